import Foundation

/// Works out what deleting rows does, following the delete rules recorded in
/// the schema, on entity tables and row keys alone. Both a `ModelContext`
/// (typed objects) and store-tool's dynamic layer (objects as entity +
/// values, in `ModelStoreDynamic`) plan
/// their deletes with it, so that both apply exactly the same rules.
///
/// The rules run with set-based queries, one per relationship and level of
/// the cascade. A caller that holds some relationships in memory (a context's
/// loaded, possibly unsaved relationships) answers for them through
/// `loadedMembers`; the others are read from the store.
package struct DeletePlanner {
    /// The tables of the store, for destinations and inverses.
    package let tables: (String) -> EntityTable?
    /// Every table, for to-ones without inverse that may lead to a deleted row.
    package let allTables: [EntityTable]
    package let connection: Connection
    /// The keys of the objects `relationship` of row `holder` of `table` holds,
    /// when the caller knows them better than the store; nil to read them
    /// from the store. May add to the plan (new objects a cascade drops, rows
    /// they lead to, new objects that may block a `.deny` rule) and may throw.
    var loadedMembers: (_ relationship: Schema.Relationship, _ table: EntityTable, _ holder: Int64, _ plan: inout DeletePlan)
        throws -> [Int64]? = { _, _, _, _ in nil }

    /// A planner over a store's tables that reads every relationship from
    /// the store (store-tool's; a context also answers `loadedMembers`).
    package init(tables: @escaping (String) -> EntityTable?, allTables: [EntityTable], connection: Connection) {
        self.tables = tables
        self.allTables = allTables
        self.connection = connection
    }

    /// The plan for deleting `roots`, added to `initial` (which may hold new
    /// objects already dropped, and rows they lead to). A `.deny` rule that
    /// blocks is recorded in `DeletePlan.denials` (every blocking holder),
    /// not thrown.
    /// - Throws: `SQLiteError` for I/O failures; what `loadedMembers` throws.
    package func plan(
        deleting roots: [(table: EntityTable, keys: [Int64])], startingWith initial: DeletePlan = DeletePlan()
    ) throws -> DeletePlan {
        var plan = initial
        var pending: [(table: EntityTable, keys: [Int64])] = []
        var denials: [(table: EntityTable, relationship: Schema.Relationship, related: [Int64: [Int64]])] = []
        for (table, keys) in roots {
            let added = plan.add(keys, of: table)
            if !added.isEmpty { pending.append((table, added)) }
        }
        while true {
            // `loadedMembers` may have found rows through new objects.
            for (table, key) in plan.takeRowsFoundInMemory() {
                let added = plan.add([key], of: table)
                if !added.isEmpty { pending.append((table, added)) }
            }
            guard !pending.isEmpty else { break }
            let (table, keys) = pending.removeFirst()
            for relationship in table.entity.relationships {
                let destination = try destinationTable(of: relationship)
                // Only cascade and deny need to know the related objects;
                // nullify is one UPDATE (or nothing, when the link is in the
                // deleted row or a join table), and noAction does nothing.
                switch relationship.deleteRule {
                case .cascade:
                    let related = try relatedKeys(relationship, of: keys, in: table, plan: &plan)
                    let added = plan.add(related.values.joined(), of: destination)
                    if !added.isEmpty { pending.append((destination, added)) }
                case .deny:
                    denials.append((table, relationship, try relatedKeys(relationship, of: keys, in: table, plan: &plan)))
                case .nullify:
                    if case .inverseForeignKey = relationship.storage, let inverse = inverse(of: relationship),
                        case .foreignKey(let column, let orderColumn) = inverse.storage
                    {
                        plan.nullify(.init(table: destination, column: column, orderColumn: orderColumn, destination: table))
                    }
                case .noAction:
                    break
                }
            }
            // To-one relationships without an inverse that lead here: nothing
            // names a rule for them, and a dangling key is never allowed.
            // A relationship to a superclass leads to the rows of its subclasses too.
            for other in allTables {
                for relationship in other.entity.relationships
                where relationship.inverseName == nil
                    && entity(table.name, isOrInherits: relationship.destination, tables: tables)
                {
                    guard let column = relationship.foreignKeyColumn else { continue }
                    plan.nullify(.init(table: other, column: column, orderColumn: nil, destination: table))
                }
            }
        }
        for (table, relationship, related) in denials {
            let destination = try destinationTable(of: relationship)
            for (holder, keys) in related.sorted(by: { $0.key < $1.key }) {
                let blockers = keys.filter { !plan.contains(destination, $0) }
                guard !blockers.isEmpty else { continue }
                plan.deny(
                    .init(
                        table: table, holder: holder, relationship: relationship.name, destination: destination,
                        blockers: blockers.sorted()))
            }
        }
        return plan
    }

    func destinationTable(of relationship: Schema.Relationship) throws(ModelStoreError) -> EntityTable {
        guard let table = tables(relationship.destination) else {
            throw .entityNotInSchema(entity: relationship.destination)
        }
        return table
    }

    /// The other end of `relationship`, if it has one.
    func inverse(of relationship: Schema.Relationship) -> Schema.Relationship? {
        relationship.inverseName.flatMap { tables(relationship.destination)?.entity.relationship(named: $0) }
    }

    /// The keys of the objects `relationship` holds, per holder among `keys`.
    private func relatedKeys(
        _ relationship: Schema.Relationship, of keys: [Int64], in table: EntityTable, plan: inout DeletePlan
    ) throws -> [Int64: [Int64]] {
        var result: [Int64: [Int64]] = [:]
        var unloaded: [Int64] = []
        for key in keys {
            if let members = try loadedMembers(relationship, table, key, &plan) {
                if !members.isEmpty { result[key, default: []] += members }
            } else {
                unloaded.append(key)
            }
        }
        guard !unloaded.isEmpty,
            let sql = RelationshipSQL.linkedKeys(
                relationship, inverse: inverse(of: relationship), holderTable: table.tableName,
                destinationTable: tables(relationship.destination)?.tableName)
        else { return result }
        let statement = try connection.cachedStatement(sql)
        defer { statement.reset() }
        try statement.bind(jsonKeys(unloaded), at: 1)
        while try statement.step() {
            result[statement.int64(at: 0), default: []].append(statement.int64(at: 1))
        }
        return result
    }
}

/// True when entity `name` is `destination` or one of its subclasses at any
/// depth: a relationship to `destination` may hold its objects.
func entity(_ name: String, isOrInherits destination: String, tables: (String) -> EntityTable?) -> Bool {
    var current: String? = name
    // A schema's hierarchy has no cycles (validated); the bound guards a damaged one.
    var depth = 0
    while let entity = current, depth < 64 {
        if entity == destination { return true }
        current = tables(entity)?.entity.superentityName
        depth += 1
    }
    return false
}

extension DeletePlan {
    /// Writes the plan inside the caller's transaction: clears the links of
    /// the objects that stay, then deletes the rows (join-table rows go with
    /// them).
    /// - Throws: `ModelStoreError.saveFailed` naming the entity.
    package func write(on connection: Connection) throws {
        let inKeys = "IN (SELECT value FROM json_each(?))"
        for nullification in nullifications {
            guard let keys = rowsByTable.first(where: { $0.table === nullification.destination })?.keys else {
                continue
            }
            let column = quoteIdentifier(nullification.column)
            var assignments = "\(column) = NULL"
            if let order = nullification.orderColumn { assignments += ", \(quoteIdentifier(order)) = NULL" }
            let sql = "UPDATE \(quoteIdentifier(nullification.table.tableName)) SET \(assignments) WHERE \(column) \(inKeys)"
            try Self.run(sql, keys: keys, entity: nullification.table.name, connection: connection)
        }
        for (table, keys) in rowsByTable {
            let sql = "DELETE FROM \(quoteIdentifier(table.tableName)) WHERE \(quoteIdentifier(primaryKeyColumn)) \(inKeys)"
            try Self.run(sql, keys: keys, entity: table.name, connection: connection)
        }
    }

    private static func run(_ sql: String, keys: Set<Int64>, entity: String, connection: Connection) throws {
        let statement = try connection.cachedStatement(sql)
        defer { statement.reset() }
        do {
            try statement.bind(jsonKeys(keys), at: 1)
            try statement.run()
        } catch {
            throw ModelStoreError.saveFailed(entity: entity, row: nil, underlying: error)
        }
    }
}
