extension ModelContext {
    /// The stored properties of `model` changed since it was last saved, in
    /// declaration order. Setting a property to an equal value does not count.
    /// Empty for objects that are not in this context.
    public func changedKeyPaths<T: PersistentModel>(of model: T) -> [PartialKeyPath<T>] {
        let state = model._$modelState
        guard state.owner === self, let table = state.table else { return [] }
        let properties = table.entity.properties
        return state.dirty.ordinals.compactMap { properties[$0].keyPath as? PartialKeyPath<T> }
    }

    /// The names of the stored properties of `model` changed since it was
    /// last saved, in declaration order: the same properties as
    /// `changedKeyPaths(of:)`, for logs and tools (key paths do not print
    /// their names).
    public func changedPropertyNames<T: PersistentModel>(of model: T) -> [String] {
        let state = model._$modelState
        guard state.owner === self, let table = state.table else { return [] }
        return state.dirty.ordinals.map { table.slots[$0].name }
    }

    /// The value `keyPath` had when `model` was last saved or fetched: the
    /// committed value of a changed property, the current value of an
    /// unchanged one. Nil when the object was never saved, or when `keyPath`
    /// is not a stored property.
    public func committedValue<T: PersistentModel, Value>(of model: T, _ keyPath: KeyPath<T, Value>) -> Value? {
        let state = model._$modelState
        guard state.owner === self, state.lifecycle == .persisted || state.lifecycle == .deleted,
            let property = state.table?.entity.properties.first(where: { $0.keyPath == keyPath })
        else { return nil }
        if let committed = committedValue(of: model, state: state, ordinal: property.ordinal) {
            return committed as? Value
        }
        return model[keyPath: keyPath]
    }

    /// Processes the changes made since the last call, as SwiftData's method
    /// of the same name does before it sends notifications, and merges the
    /// saves of other contexts and processes made since the context's last
    /// fetch or save (see "Contexts working together" in the README).
    ///
    /// The context's own changes need nothing more: inverses, change
    /// forwarding and the dirty sets are brought up to date by each write
    /// as it happens. A merge that fails to read the store keeps its error
    /// in `lastFaultError`, and the next fetch or save tries again.
    public func processPendingChanges() {
        mergeExternalChangesReportingErrors()
    }

    /// Discards every pending change: changed objects take back their
    /// committed values (observers are told), inserted objects leave the
    /// context, deleted objects are undeleted. The undo manager, if any,
    /// forgets this context's operations (as in SwiftData).
    /// - Complexity: O(changed objects × changed properties + inserted + deleted).
    public func rollback() {
        for model in changed.models {
            restoreCommittedValues(of: model)
        }
        for model in inserted.models {
            detach(model._$modelState)
        }
        for model in deleted.models {
            let state = model._$modelState
            state.lifecycle = .persisted
            restoreCommittedValues(of: model)
        }
        inserted.removeAll()
        changed.removeAll()
        deleted.removeAll()
        deletedInserts.removeAll()
        pendingWork = PendingSaveWork()
        reloadObjectsMergedWhileChanged()
        // As SwiftData's rollback: the undo stack loses this context's
        // operations, which would reapply the discarded changes.
        if let undoRecording {
            undoRecording.manager.removeAllActions(withTarget: self)
            undoRecording.didCommit()
            undoRecording.merges.removeAll()
        }
    }

    /// After a rollback: objects whose rows another save changed while they
    /// had unsaved changes read their rows again, so that they show what
    /// the store holds, not what it held when this context read them. A
    /// failure to read is kept in `lastFaultError`, and the next fetch or
    /// save reads every registered object again.
    private func reloadObjectsMergedWhileChanged() {
        let models = merging.mergedWhileChanged.values
        merging.mergedWhileChanged.removeAll()
        var rows: [ObjectIdentifier: (table: EntityTable, rows: [(Int64, PropertyBitSet?)])] = [:]
        for model in models {
            let state = model._$modelState
            guard let table = state.table, let rowID = state.rowID else { continue }
            rows[ObjectIdentifier(table), default: (table, [])].rows.append((rowID, nil))
        }
        do {
            var gone = DeletePlan()
            try withExtendedLifetime(models) {
                for (table, rows) in rows.values {
                    addUnchanged(try reloadRegistered(table, rows: rows), of: table, to: &gone)
                }
            }
            if !gone.isEmpty { applyInMemory(gone) }
        } catch {
            merging.needsFullRefresh = true
            loadDidFail(error)
        }
    }

    /// The last saved value of property `ordinal` of `model` (whose state is
    /// `state`), if it changed since.
    func committedValue(of model: any PersistentModel, state: ModelState, ordinal: Int) -> Any? {
        let value = keptCommittedValue(of: model, state: state, ordinal: ordinal)
        if let prefix = value as? SavedListPrefix { return prefix.value }
        return value
    }

    /// The last saved value of property `ordinal` as the context keeps it:
    /// for a long to-many changed in place, a `SavedListPrefix` rather than
    /// the property's value (see ListShadow.swift).
    func keptCommittedValue(of model: any PersistentModel, state: ModelState, ordinal: Int) -> Any? {
        guard state.dirty.contains(ordinal) else { return nil }
        // A payload left from before the last save is never read: the
        // object's first change since overwrote it, or it is clean.
        if let first = changed.committedValue(of: model, state: state), first.ordinal == ordinal { return first.value }
        return state.extras?.moreCommitted[ordinal]
    }

    /// The last saved value of every property of `model` that changed since.
    private func committedValues(of model: any PersistentModel, state: ModelState) -> [(ordinal: Int, value: Any)] {
        state.dirty.compactMap { ordinal in
            committedValue(of: model, state: state, ordinal: ordinal).map { (ordinal, $0) }
        }
    }

    func restoreCommittedValues(of model: any PersistentModel) {
        let state = model._$modelState
        guard let properties = state.table?.entity.properties else { return }
        state.isApplyingStoredValues = true
        for (ordinal, value) in committedValues(of: model, state: state) {
            _ = properties[ordinal].accessor.setValue(value, of: model)
        }
        state.isApplyingStoredValues = false
        state.markClean()
    }

    /// Runs `block`, then saves. When `block` throws, every pending change,
    /// including those made before the call, is rolled back and the error
    /// rethrown: the store and the context end as they were at the last save.
    /// - Throws: what `block` throws, or what `save()` throws (then the
    ///   changes stay pending, as after a failed `save()`).
    public func transaction(block: () throws -> Void) throws {
        do {
            try block()
        } catch {
            rollback()
            throw error
        }
        try save()
    }
}
