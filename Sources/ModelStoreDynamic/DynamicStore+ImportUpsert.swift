import Foundation
import ModelStore

// `import --upsert`: a record whose unique values (`.unique` attributes,
// `#Unique` lists) an object of the store holds updates that object instead
// of being refused as a duplicate. The check finds the matches with the same
// batched lookups that find duplicates; the write updates the object through
// the same path as `set` (history, version column, inverses).

/// The matches an upsert's check finds, and the problems they settle or raise.
struct UpsertMatches {
    /// The object each matched record updates.
    private(set) var rows: [ObjectID: Int64] = [:]
    /// The record that matched each object, to find two records matching one.
    private var records: [ObjectID: ObjectID] = [:]
    /// Records already reported as ambiguous (reported once).
    private var ambiguous = Set<ObjectID>()
    /// Required values left out by records, which are problems only when the
    /// record matches no object (then it is an insert).
    private var deferred: [ObjectID: [StoreProblem]] = [:]
    /// Entities refused for want of unique attributes (reported once).
    private var refused = Set<String>()

    /// The problem of a record of `table`, whose entity has no unique
    /// attributes to match objects by; nil after the first for the entity.
    mutating func refuse(_ table: EntityTable, line: Int?) -> StoreProblem? {
        guard refused.insert(table.name).inserted else { return nil }
        return StoreProblem(
            .noUniqueAttributes, entity: table.name, line: line,
            message: "\(table.name): an upsert matches records to objects by unique attributes (.unique or #Unique), and \(table.name) has none")
    }

    /// Keeps a problem of a required value `record` leaves out.
    mutating func `defer`(_ problem: StoreProblem, of record: ObjectID) {
        deferred[record, default: []].append(problem)
    }

    /// Takes the objects that records' unique values match; a problem for a
    /// record that matches two objects (by two rules), and for an object
    /// that two records match.
    mutating func add(_ found: [UniqueBatch.StoredMatch]) -> [StoreProblem] {
        var problems: [StoreProblem] = []
        for match in found {
            let entity = match.record.entity
            let object = ObjectID(entity: entity, key: match.row)
            if let row = rows[match.record] {
                guard row != match.row, ambiguous.insert(match.record).inserted else { continue }
                problems.append(
                    StoreProblem(
                        .ambiguousMatch, entity: entity, object: match.record, property: match.rule.label, line: match.line,
                        message: "\(match.record).\(match.rule.label): matches \(object) of the store, but its other unique values match \(entity):\(row)"))
                continue
            }
            if let other = records[object], other != match.record {
                guard ambiguous.insert(match.record).inserted else { continue }
                problems.append(
                    StoreProblem(
                        .ambiguousMatch, entity: entity, object: match.record, property: match.rule.label, line: match.line,
                        message: "\(match.record).\(match.rule.label): matches \(object) of the store, which \(other) in the file matches too"))
                continue
            }
            rows[match.record] = match.row
            records[object] = match.record
        }
        return problems
    }

    /// The required values left out by records that match no object.
    func unmatchedProblems() -> [StoreProblem] {
        deferred.keys.sorted().filter { rows[$0] == nil }.flatMap { deferred[$0] ?? [] }
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
