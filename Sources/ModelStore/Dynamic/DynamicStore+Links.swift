import Foundation

// The writing half of a dynamic edit: attribute columns through the entity
// table's UPDATE, links through the library's `LinkWriter`, with the checks
// a typed save makes (unique values, targets that exist, counts).

extension DynamicStore {
    /// Writes the changed columns (attributes and to-one foreign keys) with
    /// the entity table's own UPDATE statement shape.
    func writeAttributes(_ resolved: ResolvedEdits, table: EntityTable, key: Int64) throws {
        try checkUnique(resolved, table: table, key: key)
        let ordinals = table.slots.indices.filter { table.slots[$0].column != nil && resolved.values[table.slots[$0].name] != nil }
        guard !ordinals.isEmpty else { return }
        let statement = try connection.prepare(table.updateSQL(ordinals: ordinals))
        var index: Int32 = 1
        do {
            for ordinal in ordinals {
                try (resolved.values[table.slots[ordinal].name] ?? .null).bind(to: statement, at: index)
                index += 1
            }
            try statement.bind(key, at: index)
            try statement.run()
        } catch let error as SQLiteError {
            throw ModelStoreError.saveFailed(entity: table.name, row: key, underlying: error)
        }
        if connection.changes == 0 { throw DynamicStoreError.objectNotFound(ObjectID(entity: table.name, key: key)) }
    }

    /// Unique attributes must not take a value another object has (an
    /// insert would otherwise turn into an upsert of that object).
    func checkUnique(_ resolved: ResolvedEdits, table: EntityTable, key: Int64?) throws {
        var problems: [String] = []
        for attribute in table.entity.attributes where attribute.isUnique {
            guard let value = resolved.values[attribute.name], !value.isNull else { continue }
            let sql = "SELECT \(quoteIdentifier(primaryKeyColumn)) FROM \(quoteIdentifier(table.name)) "
                + "WHERE \(quoteIdentifier(attribute.name)) = ? AND \(quoteIdentifier(primaryKeyColumn)) IS NOT ? LIMIT 1"
            let statement = try connection.prepare(sql)
            try value.bind(to: statement, at: 1)
            try statement.bind(key.map(SQLiteValue.integer) ?? .null, at: 2)
            if try statement.step() {
                problems.append("\(table.name).\(attribute.name) is unique, and \(table.name):\(statement.int64(at: 0)) has the same value")
            }
        }
        guard problems.isEmpty else { throw DynamicStoreError.validationFailed(problems) }
    }

    /// True when the object exists.
    func exists(_ id: ObjectID) throws -> Bool {
        let statement = try connection.prepare(
            "SELECT 1 FROM \(quoteIdentifier(id.entity)) WHERE \(quoteIdentifier(primaryKeyColumn)) = ?")
        try statement.bind(id.key, at: 1)
        return try statement.step()
    }

    private func checkTargets(_ ids: [ObjectID], of relationship: Schema.Relationship, holder: String) throws {
        let missing = try ids.filter { try !exists($0) }
        guard missing.isEmpty else {
            throw DynamicStoreError.validationFailed(
                missing.map { "\($0) does not exist (given for \(holder).\(relationship.name))" })
        }
    }

    /// Writes the relationship edits: order columns of to-ones, the other
    /// side of one-to-ones, and to-many membership, keeping inverses right.
    func writeRelationships(_ resolved: ResolvedEdits, table: EntityTable, key: Int64, isInsert: Bool = false) throws {
        for (relationship, target) in resolved.toOne {
            try checkTargets(target.map { [$0] } ?? [], of: relationship, holder: table.name)
            let inverse = inverse(of: relationship)
            switch relationship.storage {
            case .foreignKey(let column, let orderColumn):
                guard let target else {
                    try LinkWriter.setForeignKey(column, of: table.name, row: key, to: nil, orderColumn: orderColumn, connection: connection)
                    continue
                }
                if let orderColumn {
                    let position = try nextPosition(column: column, orderColumn: orderColumn, table: table.name, target: target.key, excluding: key)
                    try LinkWriter.setForeignKey(
                        column, of: table.name, row: key, to: target.key, orderColumn: orderColumn, position: position,
                        connection: connection)
                } else if inverse != nil {
                    // One-to-one: the target's previous holder lets go of it.
                    for other in try keys(in: table.name, where: column, equals: target.key) where other != key {
                        try LinkWriter.setForeignKey(column, of: table.name, row: other, to: nil, connection: connection)
                    }
                }
            case .inverseForeignKey:
                guard let column = inverse?.foreignKeyColumn else { continue }
                for other in try keys(in: relationship.destination, where: column, equals: key) {
                    try LinkWriter.setForeignKey(column, of: relationship.destination, row: other, to: nil, connection: connection)
                }
                if let target {
                    try LinkWriter.setForeignKey(column, of: relationship.destination, row: target.key, to: key, connection: connection)
                }
            case .joinTable, .unresolved:
                continue
            }
        }
        for (relationship, operation, ids) in resolved.toMany {
            try checkTargets(ids, of: relationship, holder: table.name)
            let current = isInsert ? [] : try relatedKeys(relationship, of: key)
            let given = ids.map(\.key)
            var members: [Int64]
            switch operation {
            case .set: members = []
                for member in given where !members.contains(member) { members.append(member) }
            case .add: members = current
                for member in given where !members.contains(member) { members.append(member) }
            case .remove: members = current.filter { !given.contains($0) }
            }
            let removed = current.filter { !members.contains($0) }
            let inverse = inverse(of: relationship)
            if case .inverseForeignKey = relationship.storage, let inverse, case .foreignKey(let column, let orderColumn) = inverse.storage {
                if !removed.isEmpty && !inverse.isOptional {
                    throw DynamicStoreError.validationFailed(
                        ["\(relationship.destination).\(inverse.name) is required, so a \(relationship.destination) cannot leave \(table.name).\(relationship.name); delete it or move it to another \(table.name)"])
                }
                for member in removed {
                    try LinkWriter.setForeignKey(
                        column, of: relationship.destination, row: member, to: nil, orderColumn: orderColumn, connection: connection)
                }
                for member in members where !current.contains(member) {
                    try LinkWriter.setForeignKey(column, of: relationship.destination, row: member, to: key, connection: connection)
                }
            }
            try LinkWriter.writeLinks(
                relationship, inverse: inverse, holder: key, members: members, removed: removed, connection: connection)
        }
    }

    /// To-many relationships that were edited (all, for a new object) must
    /// hold a count within their limits.
    func checkCounts(table: EntityTable, key: Int64, changed resolved: ResolvedEdits) throws {
        for relationship in table.entity.relationships where relationship.isToMany {
            let (minimum, maximum) = relationship.countLimits
            guard minimum != nil || maximum != nil else { continue }
            let count = try relatedKeys(relationship, of: key).count
            if count < (minimum ?? 0) || count > (maximum ?? Int.max) {
                throw ModelStoreError.relationshipCount(
                    object: "\(table.name):\(key)", relationship: relationship.name, count: count, minimum: minimum,
                    maximum: maximum)
            }
        }
    }

    private func keys(in table: String, where column: String, equals value: Int64) throws -> [Int64] {
        let statement = try connection.prepare(
            "SELECT \(quoteIdentifier(primaryKeyColumn)) FROM \(quoteIdentifier(table)) WHERE \(quoteIdentifier(column)) = ?")
        try statement.bind(value, at: 1)
        var keys: [Int64] = []
        while try statement.step() { keys.append(statement.int64(at: 0)) }
        return keys
    }

    /// The position after the last member of the target's to-many.
    private func nextPosition(column: String, orderColumn: String, table: String, target: Int64, excluding key: Int64) throws -> Int64 {
        let statement = try connection.prepare(
            "SELECT coalesce(max(\(quoteIdentifier(orderColumn))) + 1, 0) FROM \(quoteIdentifier(table)) "
                + "WHERE \(quoteIdentifier(column)) = ? AND \(quoteIdentifier(primaryKeyColumn)) <> ?")
        try statement.bind(target, at: 1)
        try statement.bind(key, at: 2)
        _ = try statement.step()
        return statement.int64(at: 0)
    }
}
