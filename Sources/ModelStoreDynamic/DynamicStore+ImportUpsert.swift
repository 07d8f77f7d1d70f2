import Foundation
import ModelStore

// `import --upsert`: a record whose unique values (`.unique` attributes,
// `#Unique` lists) an object of the store holds updates that object instead
// of being refused as a duplicate. The check finds the matches with the same
// batched lookups that find duplicates; the write updates the object through
// the same path as `set` (history, version column, inverses).

/// The matches an upsert's check finds, and the problems they settle or
/// raise. The matches and the deferred problems are in the import's
/// scratch tables (`records.match`, `deferred`), not in memory.
struct UpsertMatches {
    let scratch: ImportScratch
    /// Records already reported as ambiguous (reported once; each is a problem).
    private var ambiguous = Set<ObjectID>()
    /// Entities refused for want of unique attributes (reported once).
    private var refused = Set<String>()

    init(scratch: ImportScratch) { self.scratch = scratch }

    /// The problem of a record of `table`, whose entity has no unique
    /// attributes to match objects by; nil after the first for the entity.
    mutating func refuse(_ table: EntityTable, line: Int?) -> StoreProblem? {
        guard refused.insert(table.name).inserted else { return nil }
        return StoreProblem(
            .noUniqueAttributes, entity: table.name, line: line,
            message: "\(table.name): an upsert matches records to objects by unique attributes (.unique or #Unique), and \(table.name) has none")
    }

    /// Keeps a problem of a required value `record` leaves out (always
    /// "required, but missing": a value given as null is not deferred).
    /// - Throws: `SQLiteError` from the scratch table.
    mutating func `defer`(_ problem: StoreProblem, of record: ObjectID) throws {
        try scratch.run(
            "INSERT INTO \(ImportScratch.table("deferred")) (entity, key, property, line) VALUES (?, ?, ?, ?)",
            [.text(record.entity), .integer(record.key), .text(problem.property ?? ""), .line(problem.line)])
    }

    /// Takes the objects that records' unique values match; a problem for a
    /// record that matches two objects (by two rules), and for an object
    /// that two records match.
    /// - Throws: `SQLiteError` from the scratch table.
    mutating func add(_ found: [UniqueBatch.StoredMatch]) throws -> [StoreProblem] {
        let records = ImportScratch.table("records")
        var problems: [StoreProblem] = []
        for match in found {
            let entity = match.record.entity
            let object = ObjectID(entity: entity, key: match.row)
            if let row = try scratch.int64(
                "SELECT match FROM \(records) WHERE entity = ? AND key = ?", [.text(entity), .integer(match.record.key)])
            {
                guard row != match.row, ambiguous.insert(match.record).inserted else { continue }
                problems.append(
                    StoreProblem(
                        .ambiguousMatch, entity: entity, object: match.record, property: match.rule.label, line: match.line,
                        message: "\(match.record).\(match.rule.label): matches \(object) of the store, but its other unique values match \(entity):\(row)"))
                continue
            }
            if let other = try scratch.int64(
                "SELECT key FROM \(records) WHERE entity = ? AND match = ?", [.text(entity), .integer(match.row)]),
                other != match.record.key
            {
                guard ambiguous.insert(match.record).inserted else { continue }
                problems.append(
                    StoreProblem(
                        .ambiguousMatch, entity: entity, object: match.record, property: match.rule.label, line: match.line,
                        message: "\(match.record).\(match.rule.label): matches \(object) of the store, which \(ObjectID(entity: entity, key: other)) in the file matches too"))
                continue
            }
            try scratch.run(
                "UPDATE \(records) SET match = ? WHERE entity = ? AND key = ?", [.integer(match.row), .text(entity), .integer(match.record.key)])
        }
        return problems
    }

    /// The required values left out by records that match no object.
    /// - Throws: `SQLiteError` from the scratch tables.
    func unmatchedProblems() throws -> [StoreProblem] {
        var problems: [(record: ObjectID, problem: StoreProblem)] = []
        try scratch.forEachRow(
            "SELECT d.entity, d.key, d.property, d.line FROM \(ImportScratch.table("deferred")) d JOIN \(ImportScratch.table("records")) r "
                + "ON r.entity = d.entity AND r.key = d.key WHERE r.match IS NULL ORDER BY d.seq"
        ) { row in
            let record = ObjectID(entity: row.string(at: 0), key: row.int64(at: 1))
            let property = row.string(at: 2)
            let line = row.storage(at: 3) == .null ? nil : Int(row.int64(at: 3))
            problems.append(
                (record,
                 StoreProblem(
                    .missingRequiredValue, entity: record.entity, object: record, property: property, line: line,
                    message: "\(record).\(property): required, but missing")))
        }
        // By record, each record's in the order found (a stable sort).
        return problems.enumerated().sorted { ($0.element.record, $0.offset) < ($1.element.record, $1.offset) }.map(\.element.problem)
    }
}

extension DynamicStore {
    /// Updates the object `key` of `table` with the attributes a record
    /// gives (the others keep their values), as `update` does: unique values
    /// checked against the other objects, the version column bumped, the
    /// change recorded in the history with the properties the record gives.
    /// - Throws: `DynamicStoreError.objectNotFound`, `.validationFailed`;
    ///   `ModelStoreError.invalidValue` for a stored value that does not fit
    ///   its type and that the record does not overwrite; `.saveFailed`.
    func updateImported(_ record: DynamicExportFile.Record, values: [String: DynamicValue], table: EntityTable, key: Int64) throws {
        let id = ObjectID(entity: table.name, key: key)
        let given = Set((record.attributes ?? [:]).keys)
        var resolved = ResolvedEdits()
        for (name, value) in values where given.contains(name) { resolved.values[name] = value }
        let before = try editableObject(id, overwriting: Set(resolved.values.keys))
        try writeAttributes(resolved, table: table, key: key, current: before)
        let named = given.union((record.relationships ?? [:]).keys)
        history.record(.update, entity: table.name, row: key, properties: table.slots.map(\.name).filter(named.contains))
    }
}
