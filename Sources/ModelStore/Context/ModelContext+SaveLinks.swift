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
            guard let table = model._$modelState.table, !table.countLimitedRelationships.isEmpty else { continue }
            for relationship in table.countLimitedRelationships {
                let (minimum, maximum) = relationship.schema.countLimits
                guard let members = relationship.accessor.loadedModels(of: model) else { continue }
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
            try LinkWriter.setForeignKey(
                column, of: fixup.table.name, row: rowID, to: targetRowID, connection: connection)
        }
    }

    /// Writes the links of the to-many relationships that changed (all of
    /// them for new objects): each member's position, and join-table rows.
    /// - Complexity: O(members of the changed to-manys) in memory, and one
    ///   statement per link added, removed or moved (see `LinkWriter`).
    func writeToManyLinks(of models: [any PersistentModel], plan: DeletePlan, connection: Connection) throws {
        for model in models {
            let state = model._$modelState
            guard let table = state.table, !table.toManyRelationships.isEmpty, let holder = state.rowID else {
                continue
            }
            let isNew = state.lifecycle == .inserted
            for relationship in table.toManyRelationships {
                guard isNew || state.dirty.contains(relationship.ordinal),
                    let loaded = relationship.accessor.loadedModels(of: model)
                else { continue }
                let members = uniqueModels(loaded).compactMap { member -> Int64? in
                    plan.contains(member) ? nil : member._$modelState.rowID
                }
                // The list as last loaded or saved: the stored order, which
                // the writer compares with the new one to write only what moved.
                let old = (committedValue(of: model, state: state, ordinal: relationship.ordinal) as? any RelationshipValue)?._relatedModels ?? []
                try LinkWriter.writeLinks(
                    relationship.schema, inverse: relationship.inverse?.schema, holder: holder, members: members,
                    stored: .order(uniqueModels(old).compactMap(\._$modelState.rowID)), connection: connection)
            }
        }
    }
}
