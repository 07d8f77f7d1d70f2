import Foundation

// Delete rules: planned before a save writes (set-based queries), written in
// its transaction, and applied to the objects in memory after it commits.

extension ModelContext {
    /// Deletes every object of `model` that `predicate` matches (all of them
    /// without one), applying delete rules as `delete(_:)` does; `save()`
    /// writes it, as in SwiftData.
    /// - Throws: what `fetch(_:)` throws.
    public func delete<T: PersistentModel>(
        model: T.Type, where predicate: Predicate<T>? = nil, includeSubclasses: Bool = true
    ) throws {
        for object in try fetch(FetchDescriptor<T>(predicate: predicate)) {
            delete(object)
        }
    }

    /// Works out what deleting `roots` does, following the delete rules.
    /// - Throws: `ModelStoreError.deleteDenied` when a `.deny` rule blocks;
    ///   `SQLiteError` for I/O failures.
    func planDeletes(_ roots: [any PersistentModel]) throws -> DeletePlan {
        var plan = DeletePlan()
        var pending: [(table: EntityTable, keys: [Int64])] = []
        var denials: [(table: EntityTable, relationship: RuntimeRelationship, related: [Int64: [Int64]])] = []
        var rootKeys: [ObjectIdentifier: (table: EntityTable, keys: [Int64])] = [:]
        for root in roots {
            guard let table = root._$modelState.table, let key = root._$modelState.rowID else { continue }
            rootKeys[ObjectIdentifier(table), default: (table, [])].keys.append(key)
        }
        for (table, keys) in rootKeys.values {
            let added = plan.add(keys, of: table)
            if !added.isEmpty { pending.append((table, added)) }
        }
        while !pending.isEmpty {
            let (table, keys) = pending.removeFirst()
            for relationship in table.relationships?.all ?? [] {
                let destination = try destinationTable(of: relationship)
                // Only cascade and deny need to know the related objects;
                // nullify is one UPDATE (or nothing, when the link is in the
                // deleted row or a join table), and noAction does nothing.
                switch relationship.schema.deleteRule {
                case .cascade:
                    let related = try relatedKeys(relationship, of: keys, in: table, plan: &plan)
                    let added = plan.add(related.values.joined(), of: destination)
                    if !added.isEmpty { pending.append((destination, added)) }
                case .deny:
                    denials.append((table, relationship, try relatedKeys(relationship, of: keys, in: table, plan: &plan)))
                case .nullify:
                    if case .inverseForeignKey = relationship.schema.storage, let inverse = relationship.inverse,
                        case .foreignKey(let column, let orderColumn) = inverse.schema.storage
                    {
                        plan.nullify(.init(table: destination, column: column, orderColumn: orderColumn, destination: table))
                    }
                case .noAction:
                    break
                }
            }
            // To-one relationships without an inverse that lead here: nothing
            // names a rule for them, and a dangling key is never allowed.
            for other in store.tables {
                for relationship in other.relationships?.all ?? []
                where relationship.inverse == nil && relationship.schema.destination == table.name {
                    guard let column = relationship.schema.foreignKeyColumn else { continue }
                    plan.nullify(.init(table: other, column: column, orderColumn: nil, destination: table))
                }
            }
        }
        for (table, relationship, related) in denials {
            let destination = try destinationTable(of: relationship)
            for (holder, keys) in related.sorted(by: { $0.key < $1.key }) {
                let blockers = keys.filter { !plan.contains(destination, $0) }
                guard !blockers.isEmpty else { continue }
                throw ModelStoreError.deleteDenied(
                    object: "\(table.name):\(holder)", relationship: relationship.schema.name,
                    blockers: blockers.sorted().map { "\(destination.name):\($0)" })
            }
        }
        return plan
    }

    /// The keys of the objects `relationship` holds, per holder among `keys`.
    /// A holder whose relationship is loaded in memory counts with its
    /// in-memory value; a new object it holds (no row yet) is dropped from
    /// the save if the rule cascades. The others are read with one query.
    private func relatedKeys(
        _ relationship: RuntimeRelationship, of keys: [Int64], in table: EntityTable, plan: inout DeletePlan
    ) throws -> [Int64: [Int64]] {
        var result: [Int64: [Int64]] = [:]
        var unloaded: [Int64] = []
        for key in keys {
            guard let holder = registered(table, rowID: key),
                let members = relationship.accessor.loadedModels(of: holder)
            else {
                unloaded.append(key)
                continue
            }
            for member in members {
                if let rowID = member._$modelState.rowID {
                    result[key, default: []].append(rowID)
                } else if member._$modelState.lifecycle == .inserted {
                    switch relationship.schema.deleteRule {
                    case .cascade:
                        plan.discard(member)
                    case .deny:
                        // A new object blocks as much as a saved one.
                        throw ModelStoreError.deleteDenied(
                            object: "\(table.name):\(key)", relationship: relationship.schema.name,
                            blockers: ["new \(relationship.schema.destination)"])
                    case .nullify, .noAction:
                        break
                    }
                }
            }
        }
        guard !unloaded.isEmpty else { return result }
        let sql: String
        let inKeys = "IN (SELECT value FROM json_each(?))"
        let key = quoteIdentifier(primaryKeyColumn)
        switch relationship.schema.storage {
        case .foreignKey(let column, _):
            sql = "SELECT \(key), \(quoteIdentifier(column)) FROM \(quoteIdentifier(table.name)) "
                + "WHERE \(key) \(inKeys) AND \(quoteIdentifier(column)) IS NOT NULL"
        case .inverseForeignKey:
            guard let inverse = relationship.inverse, let column = inverse.schema.foreignKeyColumn else { return result }
            sql = "SELECT \(quoteIdentifier(column)), \(key) FROM \(quoteIdentifier(relationship.schema.destination)) "
                + "WHERE \(quoteIdentifier(column)) \(inKeys)"
        case .joinTable(let name, let isSource):
            let (holderSide, otherSide) =
                isSource ? (JoinTableColumn.source, JoinTableColumn.target) : (JoinTableColumn.target, JoinTableColumn.source)
            sql = "SELECT \(quoteIdentifier(holderSide)), \(quoteIdentifier(otherSide)) FROM \(quoteIdentifier(name)) "
                + "WHERE \(quoteIdentifier(holderSide)) \(inKeys)"
        case .unresolved:
            return result
        }
        let statement = try connection().cachedStatement(sql)
        defer { statement.reset() }
        try statement.bind(jsonKeys(unloaded), at: 1)
        while try statement.step() {
            result[statement.int64(at: 0), default: []].append(statement.int64(at: 1))
        }
        return result
    }

    /// Writes a plan inside the save's transaction: clears the links of the
    /// objects that stay, then deletes the rows (join-table rows go with them).
    func writeDeletePlan(_ plan: DeletePlan, connection: Connection) throws {
        let inKeys = "IN (SELECT value FROM json_each(?))"
        for nullification in plan.nullifications {
            guard let keys = plan.rowsByTable.first(where: { $0.table === nullification.destination })?.keys else {
                continue
            }
            let column = quoteIdentifier(nullification.column)
            var assignments = "\(column) = NULL"
            if let order = nullification.orderColumn { assignments += ", \(quoteIdentifier(order)) = NULL" }
            let sql = "UPDATE \(quoteIdentifier(nullification.table.name)) SET \(assignments) WHERE \(column) \(inKeys)"
            try run(sql, keys: keys, entity: nullification.table.name, connection: connection)
        }
        for (table, keys) in plan.rowsByTable {
            let sql = "DELETE FROM \(quoteIdentifier(table.name)) WHERE \(quoteIdentifier(primaryKeyColumn)) \(inKeys)"
            try run(sql, keys: keys, entity: table.name, connection: connection)
        }
    }

    private func run(_ sql: String, keys: Set<Int64>, entity: String, connection: Connection) throws {
        let statement = try connection.cachedStatement(sql)
        defer { statement.reset() }
        do {
            try statement.bind(jsonKeys(keys), at: 1)
            try statement.run()
        } catch {
            throw ModelStoreError.saveFailed(entity: entity, row: nil, underlying: error)
        }
    }

    /// After the save committed: the deleted objects leave the context, and
    /// the objects that stay no longer refer to them.
    func applyInMemory(_ plan: DeletePlan) {
        var deletedObjects: [any PersistentModel] = []
        for (table, keys) in plan.rowsByTable {
            for key in keys {
                guard let model = registered(table, rowID: key) else { continue }
                deletedObjects.append(model)
            }
        }
        deletedObjects += plan.discardedInserts
        for model in deletedObjects {
            let state = model._$modelState
            if let table = state.table, let rowID = state.rowID { unregister(table, rowID: rowID) }
            inserted.remove(model)
            changed.remove(model)
            deleted.remove(model)
            state.lifecycle = .deleted
            state.owner = nil
            state.markClean()
            state.removeAllForwardingParents()
        }
        guard !plan.isEmpty else { return }
        // Every loaded relationship of a registered object that leads to an
        // entity with deleted rows drops them (as the store did).
        let deletedTables = Set(plan.rowsByTable.map { ObjectIdentifier($0.table) })
        for registry in identityMap.values {
            for entry in registry.objects.values {
                guard let model = entry.model, let relationships = model._$modelState.table?.relationships else { continue }
                for relationship in relationships.all {
                    guard let destination = store.table(named: relationship.schema.destination),
                        deletedTables.contains(ObjectIdentifier(destination)) || !plan.discardedInserts.isEmpty
                    else { continue }
                    forgetDeleted(plan, in: relationship, of: model, destination: destination)
                }
            }
        }
    }

    private func forgetDeleted(
        _ plan: DeletePlan, in relationship: RuntimeRelationship, of model: any PersistentModel, destination: EntityTable
    ) {
        let state = model._$modelState
        if state.isFault(relationship.ordinal) {
            if let key = state.faultKeys[relationship.ordinal], plan.contains(destination, key) {
                setLoaded([], for: relationship, of: model)
            }
            return
        }
        guard let members = relationship.accessor.loadedModels(of: model) else { return }
        let remaining = members.filter { !plan.contains($0) }
        if remaining.count != members.count {
            setLoaded(remaining, for: relationship, of: model)
        }
    }
}
