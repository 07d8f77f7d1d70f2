// The parts of a save that concern relationships: foreign keys of objects
// whose target was inserted later in the same save, the order and join-table
// rows of changed to-many relationships, and the count limits.

/// A foreign key written as NULL because its target had no row yet.
struct ForeignKeyFixup {
    let model: any PersistentModel
    let table: EntityTable
    let ordinal: Int
    let target: any PersistentModel
}

extension ModelContext {
    /// - Throws: `ModelStoreError.relationshipCount` for the first to-many
    ///   outside its limits.
    func checkRelationshipCounts(_ models: [any PersistentModel], plan: DeletePlan) throws {
        for model in models {
            guard let table = model._$modelState.table, let relationships = table.relationships else { continue }
            for relationship in relationships.all where relationship.schema.isToMany {
                let (minimum, maximum) = relationship.schema.countLimits
                guard minimum != nil || maximum != nil,
                    let members = relationship.accessor.loadedModels(of: model)
                else { continue }
                let count = uniqueModels(members).filter { !plan.contains($0) }.count
                if count < (minimum ?? 0) || count > (maximum ?? Int.max) {
                    let name = model._$modelState.rowID.map { "\(table.name):\($0)" } ?? "new \(table.name)"
                    throw ModelStoreError.relationshipCount(
                        object: name, relationship: relationship.schema.name, count: count, minimum: minimum,
                        maximum: maximum)
                }
            }
        }
    }

    func writeForeignKeyFixups(_ fixups: [ForeignKeyFixup], connection: Connection) throws {
        for fixup in fixups {
            guard let rowID = fixup.model._$modelState.rowID, let targetRowID = fixup.target._$modelState.rowID,
                let column = fixup.table.slots[fixup.ordinal].column
            else { continue }
            try execute(
                "UPDATE \(quoteIdentifier(fixup.table.name)) SET \(quoteIdentifier(column)) = ? WHERE \(quoteIdentifier(primaryKeyColumn)) = ?",
                [targetRowID, rowID], entity: fixup.table.name, row: rowID, connection: connection)
        }
    }

    /// Writes the links of the to-many relationships that changed (all of
    /// them for new objects): each member's position, and join-table rows.
    func writeToManyLinks(of models: [any PersistentModel], plan: DeletePlan, connection: Connection) throws {
        for model in models {
            let state = model._$modelState
            guard let table = state.table, let relationships = table.relationships, let holder = state.rowID else {
                continue
            }
            let isNew = state.lifecycle == .inserted
            for relationship in relationships.all where relationship.schema.isToMany {
                guard isNew || state.dirty.contains(relationship.ordinal),
                    let loaded = relationship.accessor.loadedModels(of: model)
                else { continue }
                let members = uniqueModels(loaded).compactMap { member -> Int64? in
                    plan.contains(member) ? nil : member._$modelState.rowID
                }
                let old = (state.committedValue(for: relationship.ordinal) as? any RelationshipValue)?._relatedModels ?? []
                let removed = old.compactMap(\._$modelState.rowID).filter { !members.contains($0) }
                try writeLinks(relationship, holder: holder, members: members, removed: removed, connection: connection)
            }
        }
    }

    private func writeLinks(
        _ relationship: RuntimeRelationship, holder: Int64, members: [Int64], removed: [Int64], connection: Connection
    ) throws {
        let entity = relationship.schema.destination
        switch relationship.schema.storage {
        case .inverseForeignKey:
            // The members' foreign keys are their own changed to-ones; only
            // their positions are written here.
            guard let inverse = relationship.inverse, case .foreignKey(_, let orderColumn?) = inverse.schema.storage
            else { return }
            let sql = "UPDATE \(quoteIdentifier(entity)) SET \(quoteIdentifier(orderColumn)) = ? WHERE \(quoteIdentifier(primaryKeyColumn)) = ?"
            for (position, member) in members.enumerated() {
                try execute(sql, [Int64(position), member], entity: entity, row: member, connection: connection)
            }
        case .joinTable(let name, let isSource):
            let table = quoteIdentifier(name)
            let source = quoteIdentifier(JoinTableColumn.source)
            let target = quoteIdentifier(JoinTableColumn.target)
            let order = quoteIdentifier(isSource ? JoinTableColumn.sourceOrder : JoinTableColumn.targetOrder)
            // Each side writes its own order column; the row is the same.
            let delete = "DELETE FROM \(table) WHERE \(source) = ? AND \(target) = ?"
            let upsert =
                "INSERT INTO \(table) (\(source), \(target), \(order)) VALUES (?, ?, ?) "
                + "ON CONFLICT (\(source), \(target)) DO UPDATE SET \(order) = excluded.\(order)"
            for member in removed {
                try execute(delete, isSource ? [holder, member] : [member, holder], entity: name, row: holder, connection: connection)
            }
            for (position, member) in members.enumerated() {
                let pair = isSource ? [holder, member] : [member, holder]
                try execute(upsert, pair + [Int64(position)], entity: name, row: holder, connection: connection)
            }
        case .foreignKey, .unresolved:
            break
        }
    }

    private func execute(_ sql: String, _ values: [Int64], entity: String, row: Int64?, connection: Connection) throws {
        let statement = try connection.cachedStatement(sql)
        defer { statement.reset() }
        do {
            for (index, value) in values.enumerated() { try statement.bind(value, at: Int32(index + 1)) }
            try statement.run()
        } catch {
            throw ModelStoreError.saveFailed(entity: entity, row: row, underlying: error)
        }
    }
}
