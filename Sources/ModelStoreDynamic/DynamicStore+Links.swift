import Foundation
import ModelStore

// The writing half of a dynamic edit: attribute columns through the entity
// table's UPDATE, links through the library's `LinkWriter`, with the checks
// a typed save makes (unique values, targets that exist, counts), and the
// other side of every changed relationship kept as the typed API keeps it
// (see `InverseChanges`).

extension DynamicStore {
    /// Writes the changed columns (attributes and to-one foreign keys) with
    /// the entity table's own UPDATE statement shape, after checking unique
    /// values against the other objects.
    /// - Parameter current: the object before the edit, whose other values
    ///   complete a `#Unique` tuple; nil when only foreign keys change.
    func writeAttributes(_ resolved: ResolvedEdits, table: EntityTable, key: Int64, current: DynamicObject?) throws {
        try checkUnique(resolved.values, current: current, table: table, key: key)
        let ordinals = table.slots.indices.filter { table.slots[$0].column != nil && resolved.values[table.slots[$0].name] != nil }
        guard !ordinals.isEmpty else { return }
        let isNew = try insertedRows.contains(ObjectID(entity: table.name, key: key))
        let statement = try connection.cachedStatement(table.updateSQL(ordinals: ordinals, bumpsVersion: !isNew))
        defer { statement.reset() }
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

    /// True when the object exists: a row of its hierarchy's table that is
    /// the entity's or one of its subentities' (a subentity's rows are in
    /// its root's table, next to the other entities').
    func exists(_ id: ObjectID) throws -> Bool {
        let condition = schema.entity(named: id.entity).flatMap { schema.rowCondition(of: $0, qualifier: "t") }
        let statement = try connection.prepare(
            "SELECT 1 FROM \(quoteIdentifier(schema.tableName(of: id.entity))) AS t WHERE t.\(quoteIdentifier(primaryKeyColumn)) = ?"
                + (condition.map { " AND \($0)" } ?? ""))
        try statement.bind(id.key, at: 1)
        return try statement.step()
    }

    private func checkTargets(_ ids: [ObjectID], of relationship: Schema.Relationship, holder: String) throws {
        let missing = try ids.filter { try !exists($0) }
        guard missing.isEmpty else {
            throw DynamicStoreError.validationFailed(
                missing.map {
                    StoreProblem(
                        .danglingReference, entity: holder, property: relationship.name,
                        message: "\($0) does not exist (given for \(holder).\(relationship.name))")
                })
        }
    }

    /// Writes the relationship edits of one object (whose foreign-key
    /// columns `writeAttributes` or the insert already wrote): the other
    /// side of one-to-ones, to-many membership, and, in `changes`, the lists
    /// on the other side that gain or lose the object.
    /// - Parameters:
    ///   - previous: the object before the edit, whose to-ones are the ones
    ///     being replaced; nil for a new object.
    ///   - isNew: the object has no to-many members yet (an insert), so
    ///     there are none to read before an edit.
    ///   - checksTargets: check that every target exists (an import knows).
    /// - Throws: `DynamicStoreError.validationFailed` when a target does not
    ///   exist or a required relationship would be left empty;
    ///   `ModelStoreError.saveFailed`; `SQLiteError`.
    func writeRelationships(
        _ resolved: ResolvedEdits, table: EntityTable, key: Int64, previous: DynamicObject?, isNew: Bool,
        changes: inout InverseChanges, checksTargets: Bool = true
    ) throws {
        for (relationship, target) in resolved.toOne {
            if checksTargets { try checkTargets(target.map { [$0] } ?? [], of: relationship, holder: table.name) }
            var before: Int64?
            if case .object(let id)? = previous?[relationship.name] { before = id.key }
            if previous != nil && before == target?.key { continue }
            try writeToOne(relationship, table: table, key: key, from: before, to: target?.key, changes: &changes)
        }
        for (relationship, operation, ids) in resolved.toMany {
            if checksTargets { try checkTargets(ids, of: relationship, holder: table.name) }
            try writeToMany(relationship, operation, ids.map(\.key), table: table, key: key, isNew: isNew, changes: &changes)
        }
    }

    private func writeToOne(
        _ relationship: Schema.Relationship, table: EntityTable, key: Int64, from before: Int64?, to target: Int64?,
        changes: inout InverseChanges
    ) throws {
        let inverse = inverse(of: relationship)
        let destination = relationship.destination
        switch relationship.storage {
        case .foreignKey(let column, _):
            guard let inverse else { return }
            if inverse.isToMany {
                // The old holder's list loses the object; the new one's gains it at the end.
                if let before { try changes.touch(inverse, of: destination, holder: before) }
                if let target { try changes.append(key, to: inverse, of: destination, holder: target) }
                return
            }
            // One-to-one: the target's previous partner lets go of it, and
            // the previous target loses this object.
            if let target {
                for other in try keys(in: table.name, where: column, equals: target) where other != key {
                    guard relationship.isOptional else {
                        throw DynamicStoreError.validationFailed([
                            StoreProblem(
                                .requiredRelationshipLost, entity: table.name, object: ObjectID(entity: table.name, key: other),
                                property: relationship.name,
                                message: "\(table.name):\(other).\(relationship.name) is required and holds \(destination):\(target), which cannot go to \(table.name):\(key) too")
                        ])
                    }
                    try setLinkColumn(column, of: table.name, row: other, to: nil, connection: connection)
                }
            }
            if let before, !inverse.isOptional {
                throw DynamicStoreError.validationFailed([
                    StoreProblem(
                        .requiredRelationshipLost, entity: destination, object: ObjectID(entity: destination, key: before),
                        property: inverse.name,
                        message: "\(destination):\(before).\(inverse.name) is required, so \(table.name):\(key) cannot leave it")
                ])
            }
        case .inverseForeignKey:
            // One-to-one whose column is in the destination's table.
            guard let inverse, case .foreignKey(let column, _) = inverse.storage else { throw unwritable(relationship, of: table.name) }
            for other in try keys(in: destination, where: column, equals: key) where other != target {
                guard inverse.isOptional else {
                    throw DynamicStoreError.validationFailed([
                        StoreProblem(
                            .requiredRelationshipLost, entity: destination, object: ObjectID(entity: destination, key: other),
                            property: inverse.name,
                            message: "\(destination):\(other).\(inverse.name) is required, so it cannot leave \(table.name):\(key)")
                    ])
                }
                try setLinkColumn(column, of: destination, row: other, to: nil, connection: connection)
            }
            guard let target else { return }
            if let partner = try foreignKey(column, of: destination, row: target), partner != key, !relationship.isOptional {
                throw DynamicStoreError.validationFailed([
                    StoreProblem(
                        .requiredRelationshipLost, entity: table.name, object: ObjectID(entity: table.name, key: partner),
                        property: relationship.name,
                        message: "\(table.name):\(partner).\(relationship.name) is required, so \(destination):\(target) cannot leave it")
                ])
            }
            try setLinkColumn(column, of: destination, row: target, to: key, connection: connection)
        case .joinTable, .unresolved:
            throw unwritable(relationship, of: table.name)
        }
    }

    private func writeToMany(
        _ relationship: Schema.Relationship, _ operation: DynamicEdit.Operation, _ given: [Int64], table: EntityTable,
        key: Int64, isNew: Bool, changes: inout InverseChanges
    ) throws {
        let stored = isNew ? [] : try storedLinks(relationship, of: key)
        let current = stored.map(\.key)
        // Sets, not `contains` on the lists: an edit of a list of thousands
        // stays linear.
        var members: [Int64]
        switch operation {
        case .set: members = unique(given)
        case .add: members = unique(current + given)
        case .remove:
            let gone = Set(given)
            members = current.filter { !gone.contains($0) }
        }
        let kept = Set(members)
        let removed = current.filter { !kept.contains($0) }
        let before = Set(current)
        let added = members.filter { !before.contains($0) }
        let inverse = inverse(of: relationship)
        let destination = relationship.destination
        try changes.markExplicit(relationship, of: table.name, holder: key)
        switch relationship.storage {
        case .inverseForeignKey:
            guard let inverse, case .foreignKey(let column, let orderColumn) = inverse.storage else {
                throw unwritable(relationship, of: table.name)
            }
            if !removed.isEmpty && !inverse.isOptional {
                throw DynamicStoreError.validationFailed([
                    StoreProblem(
                        .requiredRelationshipLost, entity: destination, property: inverse.name,
                        message: "\(destination).\(inverse.name) is required, so a \(destination) cannot leave \(table.name).\(relationship.name); delete it or move it to another \(table.name)")
                ])
            }
            for member in removed {
                try setLinkColumn(column, of: destination, row: member, to: nil, orderColumn: orderColumn, connection: connection)
            }
            for member in added {
                // A member taken from another holder leaves that holder's list.
                if let holder = try foreignKey(column, of: destination, row: member), holder != key {
                    try changes.touch(relationship, of: table.name, holder: holder)
                }
                try setLinkColumn(column, of: destination, row: member, to: key, connection: connection)
            }
        case .joinTable:
            if let inverse {
                for member in removed { try changes.touch(inverse, of: destination, holder: member) }
                for member in added { try changes.append(key, to: inverse, of: destination, holder: member) }
            }
        case .foreignKey, .unresolved:
            throw unwritable(relationship, of: table.name)
        }
        try LinkWriter.writeLinks(
            relationship, inverse: inverse, destinationTable: schema.tableName(of: destination), holder: key, members: members,
            stored: .positions(stored), connection: connection)
    }

    /// The keys in order, each kept at its first place.
    private func unique(_ keys: [Int64]) -> [Int64] {
        var seen = Set<Int64>()
        return keys.filter { seen.insert($0).inserted }
    }

    /// A storage that resolution never gives the relationship's kind (a
    /// to-one in a join table, a to-many in a column): refused, not skipped.
    private func unwritable(_ relationship: Schema.Relationship, of entity: String) -> ModelStoreError {
        .invalidSchema(reason: "\(entity).\(relationship.name) has a storage (\(relationship.storage)) that ModelStore does not write for a \(relationship.isToMany ? "to-many" : "to-one")")
    }

    /// Every to-many relationship of the object with count limits must hold
    /// a number of objects within them, as a typed save checks a new or
    /// changed object.
    /// - Throws: `ModelStoreError.relationshipCount`; `SQLiteError`.
    func checkCounts(table: EntityTable, key: Int64) throws {
        for relationship in table.entity.relationships where relationship.isToMany {
            try checkCount(relationship, of: table.name, holder: key)
        }
    }

    /// The keys of `entity`'s rows (in its hierarchy's table) whose `column` holds `value`.
    private func keys(in entity: String, where column: String, equals value: Int64) throws -> [Int64] {
        let statement = try connection.prepare(
            "SELECT \(quoteIdentifier(primaryKeyColumn)) FROM \(quoteIdentifier(schema.tableName(of: entity))) WHERE \(quoteIdentifier(column)) = ?")
        try statement.bind(value, at: 1)
        var keys: [Int64] = []
        while try statement.step() { keys.append(statement.int64(at: 0)) }
        return keys
    }

    /// The key in a row's foreign-key column (the row of `entity`, in its
    /// hierarchy's table); nil when it is NULL or there is no such row.
    private func foreignKey(_ column: String, of entity: String, row: Int64) throws -> Int64? {
        let statement = try connection.cachedStatement(
            "SELECT \(quoteIdentifier(column)) FROM \(quoteIdentifier(schema.tableName(of: entity))) WHERE \(quoteIdentifier(primaryKeyColumn)) = ?")
        defer { statement.reset() }
        try statement.bind(row, at: 1)
        guard try statement.step(), statement.storage(at: 0) != .null else { return nil }
        return statement.int64(at: 0)
    }
}

extension DynamicStore {
    /// Sets a to-one's foreign-key column of another row than the one
    /// edited (the other side of the edit): its version goes up, and the
    /// history lists it as updated. `entity` names the row's entity; the
    /// column is in its hierarchy's table.
    /// - Throws: `ModelStoreError.saveFailed` naming the entity and row.
    func setLinkColumn(
        _ column: String, of entity: String, row: Int64, to target: Int64?, orderColumn: String? = nil,
        connection: Connection
    ) throws {
        let isNew = try insertedRows.contains(ObjectID(entity: entity, key: row))
        try LinkWriter.setForeignKey(
            column, of: schema.tableName(of: entity), row: row, to: target, orderColumn: orderColumn, bumpsVersion: !isNew, connection: connection)
        if !isNew { history.record(.update, entity: entity, row: row, properties: [column]) }
    }
}

