import Foundation
import ModelStore

// The check pass of an import: every record against the store's schema, in
// one read of the file, keeping only what the checks need (the keys seen,
// the unique values, the references not yet resolved), never the records.

/// What the check pass leaves for the write passes.
struct ImportCheck {
    var problems = ImportProblems()
    /// The keys of the records, which relationship keys may name.
    var keys = Set<ObjectID>()
    /// The number of records.
    var records = 0
    /// For an upsert: the records whose unique values match an object of
    /// the store, with its key.
    var matches: [ObjectID: Int64] = [:]
}

/// A record's relationships, by exported key.
struct ImportLinks {
    var toOne: [(Schema.Relationship, ObjectID)] = []
    var toMany: [(Schema.Relationship, [ObjectID])] = []
}

extension DynamicStore {
    /// Reads every record once and checks it against the schema: entities,
    /// keys, attribute types and enum cases, required values, relationship
    /// keys (records of the file, or for JSONL objects of the store), and
    /// unique values within the file and against the store (one query per
    /// batch of values). With `upsert`, a record whose unique values an
    /// object of the store holds is not a problem but a match (`matches`),
    /// and the required values it leaves out are the object's.
    /// - Throws: `DynamicStoreError.invalidImport` when the file cannot be
    ///   read; `SQLiteError`.
    func checkImport(_ source: DynamicImportSource, upsert: Bool = false, progress: (Int) -> Void) throws -> ImportCheck {
        var check = ImportCheck()
        var unknownEntities = Set<String>()
        var upserts = UpsertMatches()
        /// Keys named before their record was seen, with who named them.
        var pending: [ObjectID: [Referrer]] = [:]
        var uniques: [String: UniqueBatch] = [:]
        try source.forEach(schema: schema) { result, line in
            let record: DynamicExportFile.Record
            switch result {
            case .success(let value): record = value
            case .failure(let failure):
                check.problems.append(StoreProblem(.unreadableRecord, line: line, message: failure.reason))
                return
            }
            guard let table = store.table(named: record.entity) else {
                if record.entity.isEmpty {
                    check.problems.append(
                        StoreProblem(.malformedKey, line: line, message: "the key '\(record.key)' is not of the form Entity:ID"))
                } else if unknownEntities.insert(record.entity).inserted {
                    check.problems.append(
                        StoreProblem(
                            .unknownEntity, entity: record.entity, line: line,
                            suggestions: Suggestions.closest(to: record.entity, in: schema.entities.map(\.name)),
                            message: "\(record.entity): the store has no entity named '\(record.entity)'"))
                }
                return
            }
            guard let id = ObjectID(record.key), id.entity == record.entity else {
                check.problems.append(
                    StoreProblem(
                        .malformedKey, entity: table.name, line: line,
                        message: "\(record.entity) record '\(record.key)': the key is not of the form \(record.entity):ID"))
                return
            }
            guard check.keys.insert(id).inserted else {
                check.problems.append(
                    StoreProblem(
                        .duplicateKey, entity: table.name, object: id, line: line, message: "\(id): the key appears more than once"))
                return
            }
            check.records += 1
            if check.records % 1000 == 0 { progress(check.records) }
            pending.removeValue(forKey: id)
            if upsert && table.entity.uniqueRules.isEmpty {
                if let problem = upserts.refuse(table, line: line) { check.problems.append(problem) }
            }
            let (values, valueProblems) = typedValues(record, id: id, entity: table.entity)
            let (links, linkProblems) = importLinks(record, id: id, entity: table.entity)
            for problem in (valueProblems + linkProblems).map({ $0.on(line: line) }) {
                // A value an upserted record leaves out is the object's.
                if upsert, problem.kind == .missingRequiredValue, let property = problem.property,
                    record.attributes?[property] == nil, record.relationships?[property] == nil
                {
                    upserts.defer(problem, of: id)
                } else {
                    check.problems.append(problem)
                }
            }
            for (relationship, target) in links.toOne where !check.keys.contains(target) {
                pending[target, default: []].append(Referrer(object: id, relationship: relationship.name, line: line))
            }
            for (relationship, targets) in links.toMany {
                for target in targets where !check.keys.contains(target) {
                    pending[target, default: []].append(Referrer(object: id, relationship: relationship.name, line: line))
                }
            }
            for (index, rule) in table.entity.uniqueRules.enumerated() {
                let name = "\(table.name)#\(index)"
                // Mutated in place through the subscript: a copy taken out
                // of the dictionary and stored back would share `seen` (every
                // value of the file so far) and copy it on the first write,
                // once per record, making the check quadratic.
                let tuple = rule.names.map { values[$0] ?? .null }
                if let problem = uniques[name, default: UniqueBatch(rule: rule, table: table)].add(tuple, id: id, line: line) {
                    check.problems.append(problem)
                }
                if uniques[name]?.tuples.count ?? 0 >= UniqueBatch.lookupSize {
                    let found = try uniques[name, default: UniqueBatch(rule: rule, table: table)].flush(self)
                    check.problems.append(contentsOf: upsert ? upserts.add(found) : found.map(\.problem))
                }
            }
        }
        progress(check.records)
        for name in uniques.keys.sorted() {
            let found = try uniques[name]?.flush(self) ?? []
            check.problems.append(contentsOf: upsert ? upserts.add(found) : found.map(\.problem))
        }
        check.problems.append(contentsOf: upserts.unmatchedProblems())
        check.matches = upserts.rows
        check.problems.append(contentsOf: try danglingProblems(pending, source: source))
        return check
    }

    /// References to keys that are not records of the file: problems for a
    /// JSON export; for JSONL, references to objects of the store, which
    /// must exist (checked with one query per batch of keys).
    private func danglingProblems(_ pending: [ObjectID: [Referrer]], source: DynamicImportSource) throws -> [StoreProblem] {
        var problems: [StoreProblem] = []
        var missing = pending.keys.sorted()
        if source.refersToStore {
            var found = Set<ObjectID>()
            for (entity, ids) in Dictionary(grouping: missing, by: \.entity) {
                found.formUnion(try existing(ids.map(\.key), of: entity).map { ObjectID(entity: entity, key: $0) })
            }
            missing = missing.filter { !found.contains($0) }
        }
        for target in missing {
            for referrer in pending[target] ?? [] {
                let subject = "\(referrer.object).\(referrer.relationship)"
                problems.append(
                    StoreProblem(
                        .danglingReference, entity: referrer.object.entity, object: referrer.object,
                        property: referrer.relationship, line: referrer.line,
                        message: source.refersToStore
                            ? "\(subject): \(target) is neither a record of the file nor an object of the store"
                            : "\(subject): \(target) is not a record of the file (a dangling key)"))
            }
        }
        // In the order of their text as "line N: message" (the order these
        // problems have always been listed in).
        return problems.sorted { $0.sortText < $1.sortText }
    }

    /// The keys among `keys` that are rows of `entity`'s table, with one
    /// query per batch of keys.
    /// - Throws: `SQLiteError`.
    func existing(_ keys: [Int64], of entity: String) throws -> Set<Int64> {
        var found = Set<Int64>()
        var start = 0
        while start < keys.count {
            let batch = keys[start..<min(start + 900, keys.count)]
            start += 900
            let statement = try connection.prepare(
                "SELECT \(quoteIdentifier(primaryKeyColumn)) FROM \(quoteIdentifier(entity)) WHERE \(quoteIdentifier(primaryKeyColumn)) "
                    + "IN (\(Array(repeating: "?", count: batch.count).joined(separator: ", ")))")
            for (index, key) in batch.enumerated() { try statement.bind(key, at: Int32(index + 1)) }
            while try statement.step() { found.insert(statement.int64(at: 0)) }
        }
        return found
    }

    /// A record's attribute values typed by the schema, with the recorded
    /// defaults for the attributes it leaves out, and one problem per value
    /// that does not fit (the wrong type, not an enum case, a required value
    /// that is null or missing, an unknown name).
    func typedValues(_ record: DynamicExportFile.Record, id: ObjectID, entity: Schema.Entity) -> ([String: DynamicValue], [StoreProblem]) {
        var values: [String: DynamicValue] = [:]
        var problems: [StoreProblem] = []
        func problem(_ kind: StoreProblem.Kind, _ property: String, _ text: String, suggestions: [String] = []) {
            problems.append(.record(kind, id, of: entity, property, text, suggestions: suggestions))
        }
        let given = record.attributes ?? [:]
        for name in record.fieldProblems.keys.sorted() {
            problem(.badValue, name, record.fieldProblems[name] ?? "")
        }
        for name in given.keys.sorted() {
            guard let json = given[name] else { continue }
            guard let attribute = entity.attribute(named: name) else {
                if entity.relationship(named: name) != nil {
                    problem(.misplacedProperty, name, "a relationship, given among the attributes")
                } else {
                    problem(
                        .unknownProperty, name, "\(entity.name) has no attribute named '\(name)'",
                        suggestions: Suggestions.closest(to: name, in: entity.attributes.map(\.name)))
                }
                continue
            }
            if json == .null {
                if !attribute.isOptional { problem(.missingRequiredValue, name, "required, but null") }
                values[name] = .null
                continue
            }
            switch ValueJSON.value(json, as: attribute.kind) {
            case .success(let value):
                if let reason = attribute.valueProblem(value) { problem(.badValue, name, reason) }
                values[name] = value
            case .failure(let failure): problem(.badValue, name, failure.reason)
            }
        }
        for attribute in entity.attributes where given[attribute.name] == nil && record.fieldProblems[attribute.name] == nil {
            do {
                if let value = try attribute.recordedDefault() {
                    values[attribute.name] = value
                    continue
                }
            } catch {
                problem(.unparsableDefault, attribute.name, "missing, and \(error.reason)")
                continue
            }
            if !attribute.isOptional { problem(.missingRequiredValue, attribute.name, "required, but missing") }
        }
        return (values, problems)
    }

    /// A record's relationships by exported key, and one problem per key
    /// that is malformed, of the wrong entity, or given in the wrong shape.
    func importLinks(_ record: DynamicExportFile.Record, id: ObjectID, entity: Schema.Entity) -> (ImportLinks, [StoreProblem]) {
        var links = ImportLinks()
        var problems: [StoreProblem] = []
        func problem(_ kind: StoreProblem.Kind, _ property: String, _ text: String, suggestions: [String] = []) {
            problems.append(.record(kind, id, of: entity, property, text, suggestions: suggestions))
        }
        let given = record.relationships ?? [:]
        for name in given.keys.sorted() {
            guard let json = given[name] else { continue }
            guard let relationship = entity.relationship(named: name) else {
                if entity.attribute(named: name) != nil {
                    problem(.misplacedProperty, name, "an attribute, given among the relationships")
                } else {
                    problem(
                        .unknownProperty, name, "\(entity.name) has no relationship named '\(name)'",
                        suggestions: Suggestions.closest(to: name, in: entity.relationships.map(\.name)))
                }
                continue
            }
            let texts: [ExchangeJSON]
            switch (json, relationship.isToMany) {
            case (.null, _): texts = []
            case (.string, false): texts = [json]
            case (.array(let items), true): texts = items
            default:
                let expected = relationship.isToMany ? "an array of \(relationship.destination):ID keys" : "\"\(relationship.destination):ID\" or null"
                problem(.badValue, name, "expected \(expected), found \(json.summary)")
                continue
            }
            var targets: [ObjectID] = []
            for text in texts {
                guard case .string(let key) = text, let target = ObjectID(key), target.entity == relationship.destination else {
                    problem(.malformedKey, name, "\(text.summary) is not a key of the form \(relationship.destination):ID")
                    continue
                }
                targets.append(target)
            }
            if relationship.isToMany {
                links.toMany.append((relationship, targets))
            } else if let target = targets.first {
                links.toOne.append((relationship, target))
            }
        }
        for relationship in entity.relationships where !relationship.isToMany && !relationship.isOptional {
            if given[relationship.name] == nil || given[relationship.name] == .null {
                problem(.missingRequiredValue, relationship.name, "required, but missing")
            }
        }
        return (links, problems)
    }
}

/// The values of one uniqueness rule seen in an import file: repeats within
/// the file are found at once, values the store holds one batch at a time.
///
/// - Complexity: `add` is O(1) amortized (one hash lookup), `flush` one
///   query for at most `lookupSize` values; the whole check is linear in the
///   records, as long as the batch is mutated in place (never copied out of
///   a collection and stored back, which would copy `seen`).
struct UniqueBatch {
    /// The values looked up in the store with one query.
    static let lookupSize = 500
    let rule: UniqueRule
    let table: EntityTable
    private var seen: [[StoredKey]: ObjectID] = [:]
    private(set) var tuples: [[DynamicValue]] = []
    private var owners: [(id: ObjectID, line: Int?)] = []

    init(rule: UniqueRule, table: EntityTable) {
        self.rule = rule
        self.table = table
    }

    /// The problem of `id`'s values, which `other` holds too.
    private func duplicate(_ id: ObjectID, line: Int?, other: String) -> StoreProblem {
        StoreProblem(
            .duplicateUniqueValue, entity: table.name, object: id, property: rule.label, line: line,
            message: "\(id).\(rule.label)"
                + (rule.isCompound
                    ? ": unique together (#Unique), but \(other) has the same values"
                    : ": unique, but \(other) has the same value"))
    }

    /// Adds one record's values; a problem when another record of the file
    /// has the same ones. Tuples with a nil value are never duplicates.
    mutating func add(_ tuple: [DynamicValue], id: ObjectID, line: Int?) -> StoreProblem? {
        guard !tuple.contains(where: \.isNull) else { return nil }
        let key = tuple.map(StoredKey.init)
        if let first = seen[key] { return duplicate(id, line: line, other: "\(first) in the file") }
        seen[key] = id
        tuples.append(tuple)
        owners.append((id, line))
        return nil
    }

    /// A record whose values an object of the store holds: a problem,
    /// or for an upsert the object the record updates.
    struct StoredMatch {
        let record: ObjectID
        let line: Int?
        let row: Int64
        let rule: UniqueRule
        let problem: StoreProblem
    }

    /// Looks the batch up in the store (one query) and empties it.
    mutating func flush(_ store: DynamicStore) throws -> [StoredMatch] {
        defer {
            tuples = []
            owners = []
        }
        guard !tuples.isEmpty else { return [] }
        let conflicts = try store.storedDuplicates(
            of: tuples, rule: rule, table: table, excluding: Array(repeating: nil, count: tuples.count))
        return conflicts.keys.sorted().compactMap { index in
            guard let row = conflicts[index] else { return nil }
            let owner = owners[index]
            return StoredMatch(
                record: owner.id, line: owner.line, row: row, rule: rule,
                problem: duplicate(owner.id, line: owner.line, other: "\(table.name):\(row) of the store"))
        }
    }
}

/// An object of an import file that names a key, by which relationship and
/// on which line.
private struct Referrer {
    let object: ObjectID
    let relationship: String
    let line: Int?
}

extension StoreProblem {
    /// The order import problems of one kind are listed in: by their text
    /// as `line N: message`.
    fileprivate var sortText: String { (line.map { "line \($0): " } ?? "") + message }
}

extension StoreProblem {
    /// A problem with a property of the import file's record `id`, its
    /// message prefixed with `id.property`.
    fileprivate static func record(
        _ kind: Kind, _ id: ObjectID, of entity: Schema.Entity, _ property: String, _ text: String, suggestions: [String]
    ) -> StoreProblem {
        StoreProblem(
            kind, entity: entity.name, object: id, property: property, suggestions: suggestions,
            message: "\(id).\(property): \(text)")
    }
}
