// Merging other contexts' and processes' commits into a context.
//
// A context is not Sendable: it cannot be reached from the thread of the
// context that saves. So the saving context only drops a `ChangeSet` into
// this context's inbox (see ChangeCoordinator.swift), and this context
// applies it itself, in its own isolation domain, at its next entry point:
// `fetch`, `fetchCount`, `fetchIdentifiers`, `enumerate`, `save`,
// `processPendingChanges()` and the start of `withSnapshot`, which also
// read `PRAGMA data_version` to notice other processes' commits (one
// pragma per call, not per object), and `model(for:)`, which only looks
// at the inbox (an atomic load: lookups by identifier come by the
// thousand). The main context is also woken on the main actor when its
// inbox receives changes, so that observers see them without waiting for
// the next fetch. A property read does not merge: the values of an object
// change only at those points, never in the middle of the app's code.
//
// Applying a change set (the object keeps its identity throughout):
// - deleted rows: the context's objects of them are marked deleted
//   (`isDeleted`, gone from the identity map and from fetches; their own
//   unsaved changes are dropped: the row is gone), and loaded
//   relationships that hold them drop them, as after a save of this
//   context that deletes them;
// - updated rows: the stored values are read again, in one query per
//   entity; properties without unsaved changes take them (observers are
//   told, through Observation and `objectWillChange`, as by a rollback);
//   a property with unsaved changes keeps them, and its committed value
//   becomes the stored one, so that `rollback()` returns to what the store
//   holds now. Changed relationships are loaded again: a to-one stored in
//   the row takes its new object, other loaded relationships (to-many
//   membership) become faults that load on their next read;
// - inserted rows: fetches read the store, so they appear in the next
//   fetch; nothing else to do (but for a row an upsert merged into an
//   existing one, which is updated as above);
// - a change of unknown extent (`erase()`, another process's commit that
//   the change history cannot describe; others are read from the history
//   as change sets, see ForeignChanges.swift): every object
//   the context holds is read again as for an update of every property,
//   and those whose rows are gone are deleted.

/// What a context knows of other contexts' and processes' commits.
struct MergeState {
    /// The context's inbox; nil until its connection opens (before that it
    /// holds no object that a save could make stale).
    var inbox: MergeInbox?
    /// The connection's `data_version` when last read.
    var dataVersion: Int64?
    /// `ChangeCoordinator.foreignGeneration` when last compared.
    var foreignGeneration = 0
    /// Set when a merge failed (an I/O error): the next entry point reloads
    /// everything instead of what it lost.
    var needsFullRefresh = false
    /// Set while changes are applied: observers told of them may fetch.
    var isMerging = false
    /// How many registered objects' rows were read again, and how many
    /// times every registered object was (a change of unknown extent):
    /// counters for the tests that check a merge reads what changed and
    /// no more.
    var rowsReread = 0
    var fullRefreshes = 0
    /// Objects that had unsaved changes to properties another save changed
    /// too: their committed values are still the ones this context read
    /// (see `take` in ModelContext+Refresh.swift), so a rollback reads their
    /// rows again rather than restore values the store no longer holds.
    var mergedWhileChanged: [ObjectIdentifier: any PersistentModel] = [:]
}

extension ModelState {
    /// No property changed and not deleted since the context last read or
    /// saved the object: a merge may bring it up to the stored row.
    var hasNoUnsavedChanges: Bool { dirty.isEmpty && lifecycle != .deleted }
}

extension ModelContext {
    /// Registers the context with its container's coordinator once its
    /// connection is open. A successor (see ModelContext+Succession.swift)
    /// takes no merges: its objects are read-only views of a gone context.
    func registerForMerges(_ connection: Connection) {
        guard !isSuccessor, merging.inbox == nil else { return }
        var wake: (@Sendable () -> Void)?
        if isMainContext {
            let reference = MergedContextReference(context: self)
            wake = { Task { @MainActor in reference.context?.processPendingChanges() } }
        }
        let inbox = MergeInbox(wake: wake)
        merging.inbox = inbox
        let coordinator = store.changeCoordinator
        merging.foreignGeneration = coordinator.foreignGeneration
        merging.dataVersion = coordinator.register(
            inbox, connection: connection, watching: store.isWatchedForOtherProcesses, store: store)
    }

    /// Applies other contexts' saves received since the last call and, with
    /// `checkingStore`, notices other processes' commits (see the file's
    /// comment).
    /// - Throws: `ModelStoreError` or `SQLiteError` when changed rows cannot
    ///   be read; the next entry point then reloads everything.
    func mergeExternalChanges(checkingStore: Bool = true) throws {
        guard let inbox = merging.inbox, !merging.isMerging, let connection = connectionStorage else { return }
        var refreshAll = merging.needsFullRefresh
        if checkingStore, store.isWatchedForOtherProcesses {
            let coordinator = store.changeCoordinator
            for foreign in coordinator.checkStore(connection: connection, lastSeen: &merging.dataVersion, store: store) {
                coordinator.notifyObservers(StoreChanges(foreign))
            }
            let generation = coordinator.foreignGeneration
            if generation != merging.foreignGeneration {
                merging.foreignGeneration = generation
                refreshAll = true
            }
        }
        let received = inbox.take()
        guard refreshAll || !received.isEmpty else { return }
        merging.isMerging = true
        defer { merging.isMerging = false }
        do {
            if refreshAll || received.contains(where: \.invalidatesAll) {
                merging.needsFullRefresh = true
                try refreshRegisteredObjects()
            } else {
                try apply(received)
            }
            merging.needsFullRefresh = false
        } catch {
            merging.needsFullRefresh = true
            throw error
        }
    }

    /// `mergeExternalChanges` for entry points that cannot throw: the error
    /// is kept in `lastFaultError`.
    func mergeExternalChangesReportingErrors(checkingStore: Bool = true) {
        do {
            try mergeExternalChanges(checkingStore: checkingStore)
        } catch {
            loadDidFail(error)
        }
    }

    /// Applies change sets of this process's other contexts, oldest first,
    /// as one: a row updated and deleted is deleted.
    private func apply(_ changeSets: [ChangeSet]) throws {
        var deleted = DeletePlan()
        var updated: [ObjectIdentifier: (table: EntityTable, rows: [Int64: PropertyBitSet])] = [:]
        for changes in changeSets {
            for row in changes.deleted {
                // An object with unsaved changes keeps them: its save finds
                // the row gone and the merge policy decides.
                guard let model = registered(row.table, rowID: row.rowID) else { continue }
                guard model._$modelState.hasNoUnsavedChanges else {
                    merging.mergedWhileChanged[ObjectIdentifier(model)] = model
                    continue
                }
                _ = deleted.add([row.rowID], of: row.table)
                updated[ObjectIdentifier(row.table)]?.rows[row.rowID] = nil
            }
            for row in changes.updated where registered(row.table, rowID: row.rowID) != nil {
                guard !deleted.contains(row.table, row.rowID) else { continue }
                let key = ObjectIdentifier(row.table)
                var properties = updated[key]?.rows[row.rowID] ?? PropertyBitSet()
                for ordinal in row.properties { properties.insert(ordinal) }
                updated[key, default: (row.table, [:])].rows[row.rowID] = properties
            }
            // A new row has no object here, unless the insert was an upsert
            // into an existing row: then every attribute may have changed.
            for row in changes.inserted {
                guard let registry = existingRegistry(for: row.table), registry.count > 0,
                    registry[row.rowID] != nil, !deleted.contains(row.table, row.rowID)
                else { continue }
                var all = PropertyBitSet()
                for ordinal in row.table.slots.indices { all.insert(ordinal) }
                updated[ObjectIdentifier(row.table), default: (row.table, [:])].rows[row.rowID] = all
            }
        }
        if !deleted.isEmpty { applyInMemory(deleted) }
        var gone = DeletePlan()
        for (table, rows) in updated.values {
            let missing = try reloadRegistered(table, rows: rows.map { ($0.key, $0.value) })
            addUnchanged(missing, of: table, to: &gone)
        }
        // Rows deleted by a commit this context has not heard of yet (a
        // later save of another context, another process).
        if !gone.isEmpty { applyInMemory(gone) }
    }

    /// Adds the rows among `rows` whose objects have no unsaved changes to
    /// `plan`: an object with unsaved changes whose row is gone keeps them,
    /// and its save finds the row gone and lets the merge policy decide.
    func addUnchanged(_ rows: [Int64], of table: EntityTable, to plan: inout DeletePlan) {
        let unchanged = rows.filter { rowID in
            guard let model = registered(table, rowID: rowID), !model._$modelState.hasNoUnsavedChanges else { return true }
            merging.mergedWhileChanged[ObjectIdentifier(model)] = model
            return false
        }
        if !unchanged.isEmpty { _ = plan.add(unchanged, of: table) }
    }

    /// Reads every registered object's row again: a change of unknown extent.
    private func refreshRegisteredObjects() throws {
        merging.fullRefreshes += 1
        var gone = DeletePlan()
        for registry in Array(identityMap.values) where registry.count > 0 {
            let models = registry.models
            var rows: [ObjectIdentifier: (table: EntityTable, rows: [(Int64, PropertyBitSet?)])] = [:]
            for model in models {
                let state = model._$modelState
                guard let table = state.table, let rowID = state.rowID else { continue }
                rows[ObjectIdentifier(table), default: (table, [])].rows.append((rowID, nil))
            }
            for (table, rows) in rows.values {
                let missing = try withExtendedLifetime(models) { try reloadRegistered(table, rows: rows) }
                addUnchanged(missing, of: table, to: &gone)
            }
        }
        if !gone.isEmpty { applyInMemory(gone) }
    }
}

/// A weak reference to the main context for the task that wakes it on the
/// main actor. `@unchecked Sendable`: only the main context's inbox makes
/// one, the main context never leaves the main actor (`mainContext` is
/// `@MainActor`), and the task that reads the reference runs there.
private struct MergedContextReference: @unchecked Sendable {
    weak var context: ModelContext?
}
