import Foundation
import ModelStore

/// What an import wrote (or, for a dry run, would write).
package struct DynamicImportResult: Sendable {
    /// The number of objects imported per entity, in the store's entity order.
    package let counts: [(entity: String, count: Int)]
    /// The number of objects of the store updated per entity (an upsert),
    /// in the store's entity order; empty when none were.
    package let updated: [(entity: String, count: Int)]
}

/// How far an import is: the phase (`checking`, `inserting`, `linking`) and
/// the records done, of `total` when known.
package struct DynamicImportProgress: Sendable {
    /// What the import is doing.
    package let phase: String
    /// Records done in this phase.
    package let done: Int
    /// Records in the file, once the check has counted them.
    package let total: Int?
}

extension DynamicStore {
    /// Imports a JSON export (`DynamicExportFile`) into this store, in one
    /// transaction; see `importObjects(from:dryRun:progress:)`.
    /// - Throws: as `importObjects(from:dryRun:progress:)`.
    package func importObjects(_ file: DynamicExportFile, dryRun: Bool = false) throws -> DynamicImportResult {
        try importObjects(from: .export(file), dryRun: dryRun)
    }

    /// Imports records (a JSON export, a JSONL file streamed line by line,
    /// a CSV file streamed row by row) into this store, in one transaction.
    ///
    /// Every record is first checked against this store's schema: unknown
    /// entities and properties, values of the wrong type or not a case of
    /// their enum, missing required values (an attribute left out takes the
    /// default the record holds), keys that are malformed or appear twice,
    /// relationship keys that name no record of the file (for JSONL: no
    /// record and no object of the store), unique values (`.unique` and
    /// `#Unique`) that repeat in the file or exist in the store, looked up
    /// one batch at a time. All problems are reported together and nothing
    /// is written. Then each object is inserted with a new key through the
    /// dynamic write path (the same inserts, link writer and checks as
    /// `insert`), its relationships mapped to the new keys with their order;
    /// objects of the store that gain members keep their order and have
    /// their counts checked, as a typed save does. With `dryRun` everything
    /// runs and is rolled back.
    ///
    /// Memory does not grow with the records: what the import remembers per
    /// record (keys, new keys, unique values, links, matches, the lists on
    /// the other side of links) is in TEMP tables of the store's connection
    /// (`ImportScratch`), never in the store's file, dropped when the
    /// import ends however it ends.
    ///
    /// With `upsert`, a record whose unique values (of any `.unique`
    /// attribute or `#Unique` list) an object of the store holds updates
    /// that object, as `update` does: the attributes and to-ones the record
    /// gives are written, the others keep their values, and a to-many it
    /// gives replaces the object's members (one it leaves out is kept).
    /// Keys naming the record name the object. A record of an entity
    /// without unique attributes is a problem, and so is a record whose
    /// values match two objects, or an object two records match.
    /// - Throws: `DynamicStoreError.importProblems` with every problem (the
    ///   first 1,000 listed, the rest counted); `.invalidImport` when the
    ///   file cannot be read; `ModelStoreError.readOnlyStore`,
    ///   `.relationshipCount`, `.danglingReference`, `.saveFailed`;
    ///   `DynamicStoreError.validationFailed`; `SQLiteError` (a lock held
    ///   past the busy timeout).
    package func importObjects(
        from source: DynamicImportSource, dryRun: Bool = false, upsert: Bool = false,
        progress: (DynamicImportProgress) -> Void = { _ in }
    ) throws -> DynamicImportResult {
        // What grows with the records is in temporary tables (see
        // `ImportScratch`), dropped when the import ends, however it ends.
        let scratch = try ImportScratch(connection: connection)
        defer { scratch.close() }
        let stamp = try source.stamp()
        let check = try checkImport(source, upsert: upsert, scratch: scratch) {
            progress(DynamicImportProgress(phase: "checking", done: $0, total: nil))
        }
        guard check.problems.isEmpty else { throw DynamicStoreError.importProblems(check.problems) }
        let total = check.records
        return try writeTransaction(dryRun: dryRun) {
            insertedRows = InsertedRows(spillingTo: scratch)
            // The records written must be the records checked.
            let changed = DynamicStoreError.invalidImport(["the file changed while it was imported"])
            let records = ImportScratch.table("records")
            var written = 0
            var counts: [String: Int] = [:]
            var updated: [String: Int] = [:]
            // One read of each record: its row now; its links, which the
            // check kept in the scratch table, are written once every row exists.
            try eachRecord(source) { record, id, table in
                // A record the check accepted, not written yet, and the
                // object of the store it updates (an upsert's match).
                var isPending = false
                var match: Int64?
                try scratch.forEachRow(
                    "SELECT new_key IS NULL, match FROM \(records) WHERE entity = ? AND key = ?", [.text(id.entity), .integer(id.key)]
                ) { row in
                    isPending = row.int64(at: 0) != 0
                    match = row.storage(at: 1) == .null ? nil : row.int64(at: 1)
                }
                guard written < total, isPending else { throw changed }
                let (values, _) = typedValues(record, id: id, entity: table.entity)
                let key: Int64
                if let match {
                    key = match
                    try updateImported(record, values: values, table: table, key: key)
                    updated[table.name, default: 0] += 1
                } else {
                    key = try insertRow(values, table: table)
                    counts[table.name, default: 0] += 1
                }
                try scratch.run("UPDATE \(records) SET new_key = ? WHERE entity = ? AND key = ?", [.integer(key), .text(id.entity), .integer(id.key)])
                written += 1
                if written % 1000 == 0 { progress(DynamicImportProgress(phase: "inserting", done: written, total: total)) }
            }
            guard written == total, try source.stamp() == stamp else { throw changed }
            // To-ones first, then to-manys, whose order wins.
            var changes = InverseChanges(spillingTo: scratch)
            let linkCount = try importLinkSteps(scratch)
            try writeImportLinks(scratch, changes: &changes) { done in
                if done % 1000 == 0 { progress(DynamicImportProgress(phase: "linking", done: done, total: linkCount)) }
            }
            try apply(changes)
            try scratch.forEachRow("SELECT entity, new_key FROM \(records) ORDER BY seq") { row in
                guard let table = store.table(named: row.string(at: 0)), table.entity.relationships.contains(where: \.isToMany) else { return }
                try checkCounts(table: table, key: row.int64(at: 1))
            }
            progress(DynamicImportProgress(phase: "linking", done: linkCount, total: linkCount))
            let ordered = schema.entities.map { (entity: $0.name, count: counts[$0.name] ?? 0) }
            let updates = updated.isEmpty ? [] : schema.entities.map { (entity: $0.name, count: updated[$0.name] ?? 0) }
            return DynamicImportResult(counts: ordered, updated: updates)
        }
    }

    /// Calls `body` with each record of a checked source, its key and table.
    /// - Throws: `DynamicStoreError.invalidImport` when a record no longer
    ///   reads (the file changed after the check); what `body` throws.
    private func eachRecord(
        _ source: DynamicImportSource, _ body: (DynamicExportFile.Record, ObjectID, EntityTable) throws -> Void
    ) throws {
        try source.forEach(schema: schema) { result, line in
            guard case .success(let record) = result, let table = store.table(named: record.entity),
                let id = ObjectID(record.key)
            else {
                throw DynamicStoreError.invalidImport(
                    ["\(line.map { "line \($0): " } ?? "")the file changed while it was imported"])
            }
            try body(record, id, table)
        }
    }
}
