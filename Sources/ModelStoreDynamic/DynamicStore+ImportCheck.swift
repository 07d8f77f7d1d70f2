import Foundation
import ModelStore

// The check pass of an import: every record against the store's schema, in
// one read of the file, keeping only what the checks need (the keys seen,
// the unique values, the links), never the records, and keeping it in the
// import's scratch tables (`ImportScratch`), not in memory.

/// What the check pass leaves for the write passes (besides the scratch
/// tables: the records' keys, their links, for an upsert their matches).
struct ImportCheck {
    var problems = ImportProblems()
    /// The number of records.
    var records = 0
}

/// A record's relationships, by exported key.
struct ImportLinks {
    var toOne: [(Schema.Relationship, ObjectID)] = []
    var toMany: [(Schema.Relationship, [ObjectID])] = []
}

/// The kinds of rows of the scratch table `links`.
enum ImportLinkKind: Int64 {
    /// A to-one and its target.
    case toOne = 0
    /// A member of the to-many of the latest `toMany` row.
    case member = 1
    /// A to-many the record gives (its members follow).
    case toMany = 2
}

extension DynamicStore {
    /// Reads every record once and checks it against the schema: entities,
    /// keys, attribute types and enum cases, required values, relationship
    /// keys (records of the file, or for JSONL objects of the store), and
    /// unique values within the file and against the store (one query per
    /// batch of values). With `upsert`, a record whose unique values an
    /// object of the store holds is not a problem but a match (the
    /// `match` of its row in the scratch table `records`), and the required
    /// values it leaves out are the object's. Each accepted record's key
    /// and links go into `scratch`, for the write.
    /// - Throws: `DynamicStoreError.invalidImport` when the file cannot be
    ///   read; `SQLiteError`.
    func checkImport(
        _ source: DynamicImportSource, upsert: Bool = false, scratch: ImportScratch, progress: (Int) -> Void
    ) throws -> ImportCheck {
        // One read transaction: the lookups see one state of the store, and
        // the scratch tables' writes are one transaction, not one each.
        try connection.withReadSnapshot { try checkRecords(source, upsert: upsert, scratch: scratch, progress: progress) }
    }

    private func checkRecords(
        _ source: DynamicImportSource, upsert: Bool, scratch: ImportScratch, progress: (Int) -> Void
    ) throws -> ImportCheck {
        var check = ImportCheck()
        var unknownEntities = Set<String>()
        var upserts = UpsertMatches(scratch: scratch)
        var uniques: [String: UniqueBatch] = [:]
        let addRecord = "INSERT OR IGNORE INTO \(ImportScratch.table("records")) (entity, key) VALUES (?, ?)"
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
            try scratch.run(addRecord, [.text(id.entity), .integer(id.key)])
            guard connection.changes > 0 else {
                check.problems.append(
                    StoreProblem(
                        .duplicateKey, entity: table.name, object: id, line: line, message: "\(id): the key appears more than once"))
                return
            }
            check.records += 1
            if check.records % 1000 == 0 { progress(check.records) }
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
                    try upserts.defer(problem, of: id)
                } else {
                    check.problems.append(problem)
                }
            }
            try keep(links, of: id, line: line, in: scratch)
            for (index, rule) in table.entity.uniqueRules.enumerated() {
                let name = "\(table.name)#\(index)"
                // Mutated in place through the subscript: a copy taken out
                // of the dictionary and stored back would copy its batch
                // once per record.
                let tuple = rule.names.map { values[$0] ?? .null }
                if let problem = try uniques[name, default: UniqueBatch(rule: rule, table: table, name: name)].add(
                    tuple, id: id, line: line, scratch: scratch)
                {
                    check.problems.append(problem)
                }
                if uniques[name]?.tuples.count ?? 0 >= UniqueBatch.lookupSize {
                    let found = try uniques[name, default: UniqueBatch(rule: rule, table: table, name: name)].flush(self)
                    check.problems.append(contentsOf: upsert ? try upserts.add(found) : found.map(\.problem))
                }
            }
        }
        progress(check.records)
        for name in uniques.keys.sorted() {
            let found = try uniques[name]?.flush(self) ?? []
            check.problems.append(contentsOf: upsert ? try upserts.add(found) : found.map(\.problem))
        }
        check.problems.append(contentsOf: try upserts.unmatchedProblems())
        check.problems.append(contentsOf: try danglingProblems(source: source, scratch: scratch))
        return check
    }

    /// Keeps a record's links in the scratch table `links`, in file order.
    private func keep(_ links: ImportLinks, of id: ObjectID, line: Int?, in scratch: ImportScratch) throws {
        let sql =
            "INSERT INTO \(ImportScratch.table("links")) (holder_entity, holder_key, relationship, kind, target_entity, target_key, line) "
            + "VALUES (?, ?, ?, ?, ?, ?, ?)"
        func add(_ relationship: Schema.Relationship, _ kind: ImportLinkKind, _ target: ObjectID?) throws {
            try scratch.run(
                sql,
                [
                    .text(id.entity), .integer(id.key), .text(relationship.name), .integer(kind.rawValue),
                    target.map { .text($0.entity) } ?? .null, .optional(target?.key), .line(line),
                ])
        }
        for (relationship, target) in links.toOne { try add(relationship, .toOne, target) }
        for (relationship, targets) in links.toMany {
            try add(relationship, .toMany, nil)
            for target in targets { try add(relationship, .member, target) }
        }
    }

    /// References to keys that are not records of the file: problems for a
    /// JSON export; for JSONL, references to objects of the store, which
    /// must exist (checked with one query per batch of keys).
    private func danglingProblems(source: DynamicImportSource, scratch: ImportScratch) throws -> [StoreProblem] {
        let links = ImportScratch.table("links")
        let records = ImportScratch.table("records")
        let unresolved =
            "FROM \(links) l WHERE l.target_key IS NOT NULL AND NOT EXISTS "
            + "(SELECT 1 FROM \(records) r WHERE r.entity = l.target_entity AND r.key = l.target_key)"
        // The keys that are neither records nor (for JSONL) objects of the
        // store: only these are kept in memory, as each is a problem.
        var missing = Set<ObjectID>()
        var batch: [ObjectID] = []
        func lookUp() throws {
            guard let entity = batch.first?.entity else { return }
            let found = try source.refersToStore ? existing(batch.map(\.key), of: entity) : []
            missing.formUnion(batch.filter { !found.contains($0.key) })
            batch = []
        }
        try scratch.forEachRow("SELECT DISTINCT l.target_entity, l.target_key \(unresolved) ORDER BY 1, 2") { row in
            let target = ObjectID(entity: row.string(at: 0), key: row.int64(at: 1))
            if batch.count >= 900 || (batch.first.map { $0.entity != target.entity } ?? false) { try lookUp() }
            batch.append(target)
        }
        try lookUp()
        guard !missing.isEmpty else { return [] }
        var problems: [StoreProblem] = []
        try scratch.forEachRow(
            "SELECT l.holder_entity, l.holder_key, l.relationship, l.line, l.target_entity, l.target_key \(unresolved) ORDER BY l.seq"
        ) { row in
            let target = ObjectID(entity: row.string(at: 4), key: row.int64(at: 5))
            guard missing.contains(target) else { return }
            let object = ObjectID(entity: row.string(at: 0), key: row.int64(at: 1))
            let relationship = row.string(at: 2)
            let line = row.storage(at: 3) == .null ? nil : Int(row.int64(at: 3))
            let subject = "\(object).\(relationship)"
            problems.append(
                StoreProblem(
                    .danglingReference, entity: object.entity, object: object, property: relationship, line: line,
                    message: source.refersToStore
                        ? "\(subject): \(target) is neither a record of the file nor an object of the store"
                        : "\(subject): \(target) is not a record of the file (a dangling key)"))
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
