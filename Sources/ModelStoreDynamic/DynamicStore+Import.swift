import Foundation
import ModelStore

/// What an import wrote (or, for a dry run, would write).
package struct DynamicImportResult: Sendable {
    /// The new identifier of each imported object, by its key in the file.
    package let keys: [ObjectID: ObjectID]
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

    /// Imports records (a JSON export, or a JSONL file streamed line by
    /// line) into this store, in one transaction.
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
        let stamp = try source.stamp()
        let check = try checkImport(source, upsert: upsert) { progress(DynamicImportProgress(phase: "checking", done: $0, total: nil)) }
        guard check.problems.isEmpty else { throw DynamicStoreError.importProblems(check.problems) }
        let total = check.records
        return try writeTransaction(dryRun: dryRun) {
            // The records written must be the records checked.
            let changed = DynamicStoreError.invalidImport(["the file changed while it was imported"])
            var keys: [ObjectID: ObjectID] = [:]
            var counts: [String: Int] = [:]
            var updated: [String: Int] = [:]
            // One read of each record: its row now, its links kept compact
            // for the linking below, once every row exists.
            var links = ImportLinkLog()
            try eachRecord(source) { record, id, table in
                guard keys.count < total, keys[id] == nil else { throw changed }
                let (values, _) = typedValues(record, id: id, entity: table.entity)
                let key: Int64
                if let match = check.matches[id] {
                    key = match
                    try updateImported(record, values: values, table: table, key: key)
                    updated[table.name, default: 0] += 1
                } else {
                    key = try insertRow(values, table: table)
                    counts[table.name, default: 0] += 1
                }
                keys[id] = ObjectID(entity: table.name, key: key)
                links.add(importLinks(record, id: id, entity: table.entity).0, table: table, holder: key, isUpdate: check.matches[id] != nil)
                if keys.count % 1000 == 0 { progress(DynamicImportProgress(phase: "inserting", done: keys.count, total: total)) }
            }
            guard keys.count == total, try source.stamp() == stamp else { throw changed }
            // To-ones first, then to-manys, whose order wins.
            var changes = InverseChanges()
            let linkCount = links.steps
            try writeImportLinks(links, keys: keys, changes: &changes) { done in
                if done % 1000 == 0 { progress(DynamicImportProgress(phase: "linking", done: done, total: linkCount)) }
            }
            try apply(changes)
            for new in keys.values {
                guard let table = store.table(named: new.entity), table.entity.relationships.contains(where: \.isToMany) else { continue }
                try checkCounts(table: table, key: new.key)
            }
            progress(DynamicImportProgress(phase: "linking", done: linkCount, total: linkCount))
            let ordered = schema.entities.map { (entity: $0.name, count: counts[$0.name] ?? 0) }
            let updates = updated.isEmpty ? [] : schema.entities.map { (entity: $0.name, count: updated[$0.name] ?? 0) }
            return DynamicImportResult(keys: keys, counts: ordered, updated: updates)
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
