import Foundation

// Delete rules: planned before a save writes (set-based queries), written in
// its transaction, and applied to the objects in memory after it commits.

extension ModelContext {
    /// Works out what deleting `roots` and `deletedInserts` (inserted
    /// objects deleted again, see `ModelContext.deletedInserts`) does,
    /// following the delete rules (see `DeletePlanner`). A holder whose
    /// relationship is loaded in memory counts with its in-memory value; a
    /// new object it holds (no row yet) is dropped from the save if the rule
    /// cascades, and blocks it if the rule denies (unless a cascade drops it).
    /// - Throws: `ModelStoreError.deleteDenied` when a `.deny` rule blocks;
    ///   `SQLiteError` for I/O failures.
    func planDeletes(_ roots: [any PersistentModel], deletedInserts: [any PersistentModel] = []) throws -> DeletePlan {
        var initial = DeletePlan()
        for model in deletedInserts {
            // Unless it was related to an object of the context again, which inserted it again.
            let state = model._$modelState
            if state.owner == nil && state.lifecycle == .detached { discardNew(model, plan: &initial) }
        }
        var rootKeys: [ObjectIdentifier: (table: EntityTable, keys: [Int64])] = [:]
        for root in roots {
            guard let table = root._$modelState.table, let key = root._$modelState.rowID else { continue }
            rootKeys[ObjectIdentifier(table), default: (table, [])].keys.append(key)
        }
        guard !rootKeys.isEmpty || initial.hasRowsFoundInMemory else { return initial }
        let store = store
        var planner = DeletePlanner(tables: { store.table(named: $0) }, allTables: store.tables, connection: try connection())
        planner.loadedMembers = { [unowned self] relationship, table, key, plan in
            try loadedMembers(relationship, table: table, holder: key, plan: &plan)
        }
        let plan = try planner.plan(deleting: Array(rootKeys.values), startingWith: initial)
        if let blocker = plan.newBlockers.first(where: { !plan.contains($0.model) }) { throw blocker.error }
        if let denial = plan.denials.first { throw denial.error }
        return plan
    }

    /// The keys of the objects a registered holder's loaded relationship
    /// holds; nil when the holder is not registered or the relationship not
    /// loaded.
    private func loadedMembers(
        _ relationship: Schema.Relationship, table: EntityTable, holder key: Int64, plan: inout DeletePlan
    ) throws -> [Int64]? {
        guard let holder = registered(table, rowID: key),
            let runtime = table.relationships?.all.first(where: { $0.schema.name == relationship.name }),
            let members = runtime.accessor.loadedModels(of: holder)
        else { return nil }
        var result: [Int64] = []
        for member in members {
            if let rowID = member._$modelState.rowID {
                result.append(rowID)
            } else if member._$modelState.lifecycle == .inserted {
                switch relationship.deleteRule {
                case .cascade:
                    discardNew(member, plan: &plan)
                case .deny:
                    // A new object blocks as much as a saved one, unless a
                    // cascade drops it from this save too.
                    plan.noteNewBlocker(
                        .init(holder: "\(table.name):\(key)", relationship: relationship.name, model: member))
                case .nullify, .noAction:
                    break
                }
            }
        }
        return result
    }

    /// Drops a new object from the save (an inserted object deleted again,
    /// or one a cascade reached) and follows its cascade rules in memory,
    /// where its relationships are: the saved objects they reach are deleted
    /// (the planner follows their rules in turn), new ones dropped too. Its
    /// `.deny` rules do not apply: it was never stored, so nothing is lost.
    private func discardNew(_ model: any PersistentModel, plan: inout DeletePlan) {
        guard !plan.contains(model) else { return }
        plan.discard(model)
        let relationships = model._$modelState.table?.relationships ?? ModelRelationships.of(type(of: model))
        for relationship in relationships.all where relationship.schema.deleteRule == .cascade {
            for member in relationship.accessor.loadedModels(of: model) ?? [] {
                let state = member._$modelState
                guard state.owner === self else { continue }
                if let table = state.table, let key = state.rowID {
                    plan.addFoundInMemory(key, of: table)
                } else if state.lifecycle == .inserted {
                    discardNew(member, plan: &plan)
                }
            }
        }
    }

    /// After the save committed: the deleted objects leave the context, and
    /// the objects that stay no longer refer to them. `savedDeletes`: what
    /// the save noted for undoing its deletes, completed here with the
    /// references that the objects in memory lose.
    func applyInMemory(_ plan: DeletePlan, savedDeletes: SavedDeleteCapture? = nil) {
        var deletedObjects: [any PersistentModel] = []
        for (table, keys) in plan.rowsByTable {
            for key in keys {
                guard let model = registered(table, rowID: key) else { continue }
                deletedObjects.append(model)
            }
        }
        deletedObjects += plan.discardedInserts
        // What undoing the deletes restores (ModelContext+UndoSavedDelete.swift):
        // the links in memory found below, and the links the store held
        // where no object in memory has the relationship loaded.
        if let savedDeletes {
            savedDeletes.dropStoredLinksLoaded(in: self)
        }
        defer { savedDeletes?.fillRecords() }
        for model in deletedObjects {
            let state = model._$modelState
            // An inserted object deleted again left the context then.
            guard state.owner === self else { continue }
            if let table = state.table, let rowID = state.rowID { unregister(table, rowID: rowID) }
            inserted.remove(model)
            changed.remove(model)
            deleted.remove(model)
            state.lifecycle = .deleted
            state.leaveOwner()
            state.markClean()
            state.removeAllForwardingParents()
        }
        guard !plan.isEmpty else { return }
        // Every loaded relationship of a registered object that leads to an
        // entity with deleted rows drops them (as the store did). By class
        // hierarchy (one SQL table, one identity map): a relationship to a
        // superclass holds its subclasses' objects.
        let deletedTables = Set(plan.rowsByTable.map(\.table.registryKey))
        for registry in identityMap.values {
            for model in registry.models {
                guard let relationships = model._$modelState.table?.relationships else { continue }
                for relationship in relationships.all {
                    guard let destination = store.table(named: relationship.schema.destination),
                        deletedTables.contains(destination.registryKey) || !plan.discardedInserts.isEmpty
                    else { continue }
                    forgetDeleted(plan, in: relationship, of: model, destination: destination, noting: savedDeletes)
                }
            }
        }
        // The deleted objects let go of each other too: a project and the
        // steps its cascade deleted hold each other, and would otherwise keep
        // each other (and, through their links, a successor context with its
        // connection) alive after the app lets go of them. What they still
        // hold of the objects that stay is left as it was.
        for model in deletedObjects {
            guard let relationships = model._$modelState.table?.relationships else { continue }
            for relationship in relationships.all {
                guard let destination = store.table(named: relationship.schema.destination) else { continue }
                forgetDeleted(plan, in: relationship, of: model, destination: destination)
            }
        }
    }

    /// Drops the objects `plan` deletes from `relationship` of `model`. The
    /// loaded references dropped from a relationship without inverse are
    /// noted in `savedDeletes`, for undo to restore: nothing else would.
    private func forgetDeleted(
        _ plan: DeletePlan, in relationship: RuntimeRelationship, of model: any PersistentModel, destination: EntityTable,
        noting savedDeletes: SavedDeleteCapture? = nil
    ) {
        let state = model._$modelState
        if state.isFault(relationship.ordinal) {
            if let key = state.extras?.faultKeys[relationship.ordinal], plan.containsRow(of: destination, key) {
                state.extras?.prefetched[relationship.ordinal] = nil
                setLoaded([], for: relationship, of: model)
            } else if let prefetched = state.extras?.prefetched[relationship.ordinal] {
                state.extras?.prefetched[relationship.ordinal] = .models(prefetched.models.filter { !plan.contains($0) })
            }
            return
        }
        guard let members = relationship.accessor.loadedModels(of: model) else { return }
        let remaining = members.filter { !plan.contains($0) }
        if remaining.count != members.count {
            if let savedDeletes, relationship.inverse == nil {
                for member in members where plan.contains(member) {
                    savedDeletes.noteLink(from: .model(model), through: relationship, to: member)
                }
            }
            setLoaded(remaining, for: relationship, of: model)
        }
    }
}
