import Foundation

/// What an import wrote (or, for a dry run, would write).
public struct DynamicImportResult: Sendable {
    /// The new identifier of each exported object, by its exported key.
    public let keys: [ObjectID: ObjectID]
    /// The number of objects imported per entity, in the store's entity order.
    public let counts: [(entity: String, count: Int)]
}

extension DynamicStore {
    /// Imports a JSON export (`DynamicExportFile`) into this store, in one
    /// transaction.
    ///
    /// Every record is first checked against this store's schema: unknown
    /// entities and properties, values of the wrong type, missing required
    /// values, keys that are malformed or appear twice, relationship keys
    /// that name no record of the file, unique values that repeat in the
    /// file or exist in the store. All problems are reported together and
    /// nothing is written. Then each object is inserted with a new key
    /// through the dynamic write path (the same inserts, link writer and
    /// checks as `insert`), its relationships mapped to the new keys with
    /// their order. With `dryRun` everything runs and is rolled back.
    /// - Throws: `DynamicStoreError.invalidImport` listing every problem;
    ///   `ModelStoreError.readOnlyStore`, `.relationshipCount`,
    ///   `.danglingReference`, `.saveFailed`; `DynamicStoreError.validationFailed`;
    ///   `SQLiteError` (a lock held past the busy timeout).
    public func importObjects(_ file: DynamicExportFile, dryRun: Bool = false) throws -> DynamicImportResult {
        let objects = try importPlan(file)
        return try writeTransaction(dryRun: dryRun) {
            var keys: [ObjectID: ObjectID] = [:]
            for object in objects {
                keys[object.id] = ObjectID(entity: object.table.name, key: try insertRow(object.values, table: object.table))
            }
            // To-ones first, then to-manys, whose order wins.
            for object in objects where !object.toOne.isEmpty {
                guard let new = keys[object.id] else { continue }
                var resolved = ResolvedEdits()
                for (relationship, target) in object.toOne {
                    guard let target = keys[target] else { continue }
                    resolved.toOne.append((relationship, target))
                    if relationship.foreignKeyColumn != nil { resolved.values[relationship.name] = .object(target) }
                }
                try writeAttributes(resolved, table: object.table, key: new.key)
                try writeRelationships(resolved, table: object.table, key: new.key)
            }
            for object in objects where !object.toMany.isEmpty {
                guard let new = keys[object.id] else { continue }
                var resolved = ResolvedEdits()
                for (relationship, members) in object.toMany {
                    resolved.toMany.append((relationship, .set, members.compactMap { keys[$0] }))
                }
                try writeRelationships(resolved, table: object.table, key: new.key)
            }
            for object in objects {
                guard let new = keys[object.id] else { continue }
                try checkCounts(table: object.table, key: new.key, changed: ResolvedEdits())
            }
            let counts = schema.entities.map { entity in
                (entity: entity.name, count: objects.filter { $0.table.name == entity.name }.count)
            }
            return DynamicImportResult(keys: keys, counts: counts)
        }
    }

    /// One record checked and typed: its attribute values, and its
    /// relationships by exported keys.
    struct ImportedObject {
        let id: ObjectID
        let table: EntityTable
        var values: [String: DynamicValue] = [:]
        var toOne: [(Schema.Relationship, ObjectID)] = []
        var toMany: [(Schema.Relationship, [ObjectID])] = []
    }

    /// Checks every record against the schema and types its values.
    /// - Throws: `DynamicStoreError.invalidImport` with every problem found.
    func importPlan(_ file: DynamicExportFile) throws -> [ImportedObject] {
        var problems: [String] = []
        var unknownEntities: [String] = []
        var keys = Set<ObjectID>()
        var accepted: [(DynamicExportFile.Record, ObjectID, EntityTable)] = []
        for record in file.records {
            guard let table = store.table(named: record.entity) else {
                if !unknownEntities.contains(record.entity) {
                    unknownEntities.append(record.entity)
                    let suggestions = Suggestions.closest(to: record.entity, in: schema.entities.map(\.name))
                    problems.append("\(record.entity): the store has no entity named '\(record.entity)'" + Suggestions.didYouMean(suggestions))
                }
                continue
            }
            guard let id = ObjectID(record.key), id.entity == record.entity else {
                problems.append("\(record.entity) record '\(record.key)': the key is not of the form \(record.entity):ID")
                continue
            }
            guard keys.insert(id).inserted else {
                problems.append("\(id): the key appears more than once")
                continue
            }
            accepted.append((record, id, table))
        }
        var objects: [ImportedObject] = []
        for (record, id, table) in accepted {
            var object = ImportedObject(id: id, table: table)
            problems += typeAttributes(record, into: &object)
            problems += resolveRelationships(record, into: &object, keys: keys)
            objects.append(object)
        }
        problems += try uniqueProblems(objects)
        guard problems.isEmpty else { throw DynamicStoreError.invalidImport(problems) }
        return objects
    }

    private func typeAttributes(_ record: DynamicExportFile.Record, into object: inout ImportedObject) -> [String] {
        var problems: [String] = []
        let entity = object.table.entity
        let given = record.attributes ?? [:]
        for name in given.keys.sorted() {
            guard let json = given[name] else { continue }
            guard let attribute = entity.attribute(named: name) else {
                if entity.relationship(named: name) != nil {
                    problems.append("\(object.id).\(name): a relationship, given among the attributes")
                } else {
                    let candidates = Suggestions.closest(to: name, in: entity.attributes.map(\.name))
                    problems.append("\(object.id).\(name): \(entity.name) has no attribute named '\(name)'" + Suggestions.didYouMean(candidates))
                }
                continue
            }
            if json == .null {
                if !attribute.isOptional { problems.append("\(object.id).\(name): required, but null") }
                object.values[name] = .null
                continue
            }
            switch DynamicExchange.value(json, as: attribute.kind) {
            case .success(let value): object.values[name] = value
            case .failure(let failure): problems.append("\(object.id).\(name): \(failure.reason)")
            }
        }
        for attribute in entity.attributes where !attribute.isOptional && given[attribute.name] == nil {
            problems.append("\(object.id).\(attribute.name): required, but missing")
        }
        return problems
    }

    private func resolveRelationships(
        _ record: DynamicExportFile.Record, into object: inout ImportedObject, keys: Set<ObjectID>
    ) -> [String] {
        var problems: [String] = []
        let entity = object.table.entity
        let given = record.relationships ?? [:]
        let id = object.id
        for name in given.keys.sorted() {
            guard let json = given[name] else { continue }
            guard let relationship = entity.relationship(named: name) else {
                if entity.attribute(named: name) != nil {
                    problems.append("\(id).\(name): an attribute, given among the relationships")
                } else {
                    let candidates = Suggestions.closest(to: name, in: entity.relationships.map(\.name))
                    problems.append("\(id).\(name): \(entity.name) has no relationship named '\(name)'" + Suggestions.didYouMean(candidates))
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
                problems.append("\(id).\(name): expected \(expected), found \(json.summary)")
                continue
            }
            var targets: [ObjectID] = []
            for text in texts {
                guard case .string(let key) = text, let target = ObjectID(key), target.entity == relationship.destination else {
                    problems.append("\(id).\(name): \(text.summary) is not a key of the form \(relationship.destination):ID")
                    continue
                }
                guard keys.contains(target) else {
                    problems.append("\(id).\(name): \(target) is not a record of the file (a dangling key)")
                    continue
                }
                targets.append(target)
            }
            if relationship.isToMany {
                object.toMany.append((relationship, targets))
            } else if let target = targets.first {
                object.toOne.append((relationship, target))
            }
        }
        for relationship in entity.relationships where !relationship.isToMany && !relationship.isOptional {
            if given[relationship.name] == nil || given[relationship.name] == .null {
                problems.append("\(id).\(relationship.name): required, but missing")
            }
        }
        return problems
    }

    /// Unique values that repeat within the file or exist in the store.
    private func uniqueProblems(_ objects: [ImportedObject]) throws -> [String] {
        var problems: [String] = []
        var seen: [String: [DynamicValue: ObjectID]] = [:]
        for object in objects {
            for attribute in object.table.entity.attributes where attribute.isUnique {
                guard let value = object.values[attribute.name], !value.isNull else { continue }
                let slot = "\(object.table.name).\(attribute.name)"
                if let first = seen[slot]?[value] {
                    problems.append("\(object.id).\(attribute.name): unique, but \(first) in the file has the same value")
                    continue
                }
                seen[slot, default: [:]][value] = object.id
                let sql = "SELECT \(quoteIdentifier(primaryKeyColumn)) FROM \(quoteIdentifier(object.table.name)) "
                    + "WHERE \(quoteIdentifier(attribute.name)) = ? LIMIT 1"
                let statement = try connection.prepare(sql)
                try value.bind(to: statement, at: 1)
                if try statement.step() {
                    problems.append(
                        "\(object.id).\(attribute.name): unique, but \(object.table.name):\(statement.int64(at: 0)) of the store has the same value")
                }
            }
        }
        return problems
    }
}
