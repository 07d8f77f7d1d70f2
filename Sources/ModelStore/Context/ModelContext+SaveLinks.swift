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
                column, of: fixup.table.tableName, row: rowID, to: targetRowID, connection: connection)
        }
    }

    /// Writes the links of the to-many relationships that changed (all of
    /// them for new objects): each member's position, and join-table rows.
    /// Returns the lists that held an object more than once, each with its
    /// members as stored, for `holdSavedMembers` to apply after the commit.
    /// - Complexity: O(members of the changed to-manys) in memory, and one
    ///   statement per link added, removed or moved (see `LinkWriter`).
    func writeToManyLinks(of models: [any PersistentModel], plan: DeletePlan, connection: Connection) throws
        -> [SavedToMany]
    {
        var repeated: [SavedToMany] = []
        for model in models {
            let state = model._$modelState
            guard let table = state.table, !table.toManyRelationships.isEmpty, let holder = state.rowID else {
                continue
            }
            let isNew = state.lifecycle == .inserted
            for relationship in table.toManyRelationships {
                guard isNew || state.dirty.contains(relationship.ordinal),
                    let loaded = relationship.accessor.loadedObjects(of: model)
                else { continue }
                let members = try writeLinks(
                    of: relationship, holder: holder, loaded: loaded, model: model, state: state, plan: plan,
                    connection: connection)
                if members.count != loaded.count {
                    repeated.append(SavedToMany(holder: model, relationship: relationship, members: members))
                }
            }
        }
        return repeated
    }

    /// After a save's commit: the lists that held an object more than once
    /// (or a deleted one) now hold their members as stored, each once, as
    /// a reload would give them. It is not a change: nothing is marked
    /// dirty or recorded for undo.
    ///
    /// The invariant it keeps: a to-many of a saved object holds no repeats
    /// until the app changes it (lists loaded from the store hold none: a
    /// member's foreign key names one holder, and a join table's rows are
    /// unique). `LinkDiff.appendedCount` relies on it for the list last
    /// saved or loaded.
    func holdSavedMembers(_ lists: [SavedToMany]) {
        for list in lists {
            let state = list.holder._$modelState
            let wasApplying = state.isApplyingStoredValues
            state.isApplyingStoredValues = true
            defer { state.isApplyingStoredValues = wasApplying }
            list.relationship.accessor.setModels(list.relationship.accessor.models(list.members), of: list.holder)
        }
    }

    /// Writes one to-many's links, and returns its members as stored: the
    /// list without repeats and without objects being deleted.
    ///
    /// The lists are compared as references
    /// (`RelationshipValue._relatedObjects`): for a long list whose end
    /// changed, neither pass touches its objects, which cost more than
    /// anything else a save of it did (a cache miss each). Only the members
    /// whose position is written are asked for their row keys.
    private func writeLinks(
        of relationship: RuntimeRelationship, holder: Int64, loaded: [AnyObject], model: any PersistentModel,
        state: ModelState, plan: DeletePlan, connection: Connection
    ) throws -> [AnyObject] {
        let kept = keptCommittedValue(of: model, state: state, ordinal: relationship.ordinal)
        func write(_ members: [AnyObject], _ kept: LinkDiff.Kept) throws {
            let removed = relationship.accessor.models(kept.removed).compactMap(\._$modelState.rowID)
            try LinkWriter.writeLinks(
                relationship.schema, inverse: relationship.inverse?.schema,
                destinationTable: store.table(named: relationship.schema.destination)?.tableName, holder: holder,
                count: members.count, member: { relationship.accessor.models([members[$0]]).first?._$modelState.rowID },
                stored: .order(prefix: kept.prefix, suffix: kept.suffix, removed: removed), connection: connection)
        }
        // A long list changed in place keeps the list as last saved as a
        // prefix of its shadow: an append is found without copying it.
        if plan.isEmpty, let saved = kept as? SavedListPrefix,
            let appended = saved.shadow.knownNewAppended(after: saved.count, making: loaded)
                ?? LinkDiff.appendedCount(toFirst: saved.count, of: saved.shadow.members, making: loaded)
        {
            try write(loaded, LinkDiff.Kept(prefix: loaded.count - appended, suffix: 0, removed: []))
            return loaded
        }
        // The list as last loaded or saved: the stored order, which the
        // writer compares with the new one to write only what moved.
        let old: [AnyObject]
        if let saved = kept as? SavedListPrefix {
            old = saved.members
        } else {
            old = (kept as? any RelationshipValue)?._relatedObjects ?? []
        }
        // Appending to a list (the common edit of a long one) is found by
        // comparing references, without the identity set below, whose
        // cost follows the length of the list, not the change.
        if plan.isEmpty, let appended = LinkDiff.appendedCount(to: old, making: loaded) {
            try write(loaded, LinkDiff.Kept(prefix: loaded.count - appended, suffix: 0, removed: []))
            return loaded
        }
        // Objects being deleted leave the list; without deletes (most saves)
        // no object is asked.
        let deleted = plan.isEmpty ? [] : relationship.accessor.models(loaded).filter(plan.contains)
        var gone = IdentitySet(capacity: deleted.count)
        for object in deleted { gone.insert(object) }
        // One identity set of the list finds its repeats, then tells which
        // objects of the old list are still members.
        var seen = IdentitySet(capacity: loaded.count)
        var members = loaded
        if let first = loaded.indices.first(where: { !seen.insert(loaded[$0]) || gone.contains(loaded[$0]) }) {
            // A list without repeats or deletes is used as it is: a copy
            // retains and releases every object.
            members = Array(loaded[..<first]) + loaded[(first + 1)...].filter { seen.insert($0) && !gone.contains($0) }
        }
        try write(members, LinkDiff.compare(previous: old, members: members) { seen.contains($0) && !gone.contains($0) })
        return members
    }
}

/// A to-many as a save stored it, where that differs from the list the app
/// held (an object in it twice): see `ModelContext.holdSavedMembers`.
struct SavedToMany {
    let holder: any PersistentModel
    let relationship: RuntimeRelationship
    let members: [AnyObject]
}
