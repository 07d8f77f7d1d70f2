import Foundation

// What happens to a context's objects when the context goes.
//
// Apps keep objects longer than the context that fetched them (a function
// that makes a context, fetches and returns the objects). Such an object
// must still read what the store holds: its relationships, loaded or not,
// and the attributes a partial fetch left out. And once the app lets go of
// the objects, everything must be freed, although related objects refer to
// each other (a trip holds its stops, each stop its trip: a cycle of strong
// references that reference counting alone never frees).
//
// So a context's deinit (`close()`):
// 1. discards its unsaved changes, as `rollback()` does: changed and deleted
//    objects take back their saved values, inserted ones leave the context
//    (and their relationships are emptied: what they held was never saved).
//    An object that can no longer be saved must not show values that the
//    store does not hold.
// 2. turns every loaded relationship of its objects that holds objects back
//    into a fault that remembers the row keys it held (`faultKeys` for a
//    to-one stored in the row, as a fetch makes them, else
//    `ModelStateExtras.loadedKeys`), and the objects prefetched for a fault
//    into their keys. Then no object holds another (but through a
//    non-optional to-one, which cannot be empty; a cycle made only of those
//    cannot be loaded from a store, but an app can make one, and it is not
//    freed), and the objects that only the context and each other held are
//    freed.
// 3. if objects are still alive (something still holds one of the links its
//    objects hold, see `StateLink`), makes a successor: a context of the same
//    container that no app sees, which takes over the identity map (the
//    objects still alive, held as weakly as before) and the connection, and
//    hands it the links. The links hold the successor strongly; it holds no
//    object strongly. The successor lives while any of those objects does.
// 4. with no successor, gives its connection back to the store, which keeps
//    a few idle ones for the next contexts (`Store.recycle(_:)`): a context
//    made for one task and dropped costs no open, no close and no parse of
//    the file's schema.
//
// The objects of a successor keep their faults (`StateLink.keepsFaults`):
// a getter returns what the successor loads, by the remembered keys (found
// in the identity map, or read from the store), and keeps nothing, so that
// they never come to hold each other again. A read therefore returns what
// the gone context would have returned: the same rows for a relationship it
// had loaded (a row deleted since is left out once its object is freed and
// has to be read again), what the store holds for one it had not; and
// within the objects alive, one row is one object (`stop.trip === trip`).
// Rows the successor reads become its objects, with the same rule. Their
// changes are not tracked (nobody can save them: `modelContext` is nil); a
// write keeps its value in memory, as on an object without context. When
// the last object of the gone context is freed, the successor goes too, and
// hands whatever of its own objects is still alive to a successor of its
// own, with step 3 only: it has no changes, and its objects hold nothing
// that it loaded (what the app wrote into them stays as written).
//
// The work is done at the deinit and on such objects only: fetches, reads
// and saves of live contexts do nothing more.

extension ModelContext {
    /// Discards, unlinks and hands over what the context leaves, as the
    /// file's comment says; called by the deinit.
    /// - Complexity: O(pending objects + registered objects of entities with
    ///   relationships × their relationships).
    func close() {
        isClosing = true
        // Loads made while the objects are unlinked (an observer told of the
        // changes below may read) keep nothing either.
        for link in stateLinks { link.ownerWillClose() }
        if !isSuccessor {
            discardPendingChanges()
            unlinkRegisteredObjects()
        }
        var successor: ModelContext?
        for index in stateLinks.indices {
            // Only the context holds the link: none of its objects is alive.
            if isKnownUniquelyReferenced(&stateLinks[index]) {
                stateLinks[index].ownerWillDeinit()
                continue
            }
            let next = successor ?? ModelContext(succeeding: self)
            successor = next
            stateLinks[index].hand(to: next)
        }
        // Without a successor nobody reads through the connection again: the
        // store keeps it for the next context.
        if successor == nil, let connection = giveUpConnection() {
            store.recycle(connection)
        }
    }

    /// Discards every unsaved change (see `rollback()`). Objects whose
    /// insertion is discarded become new objects again, related to nothing,
    /// so that new objects that refer to each other are freed.
    private func discardPendingChanges() {
        guard hasChanges else { return }
        let discarded = inserted.models
        // The context is going: its rollback must not read rows again (the
        // reading runs through this context). Objects another save changed
        // keep the values this context read; their successor reads
        // relationships from the store as it is.
        merging.mergedWhileChanged.removeAll()
        rollback()
        for model in discarded {
            let state = model._$modelState
            let relationships = state.table?.relationships ?? ModelRelationships.of(type(of: model))
            state.isApplyingStoredValues = true
            for relationship in relationships.all {
                relationship.accessor.setModels([], of: model)
            }
            state.isApplyingStoredValues = false
        }
    }

    /// Turns the loaded relationships of every registered object into faults
    /// that remember their keys (step 2 of the file's comment).
    private func unlinkRegisteredObjects() {
        // Objects of entities without relationships hold no other object.
        for registry in Array(identityMap.values) where registry.hasRelationships {
            // Held here while they are unlinked; freed after, unless the app
            // holds them.
            for model in registry.models {
                unlink(model)
            }
        }
    }

    private func unlink(_ model: any PersistentModel) {
        let state = model._$modelState
        guard let relationships = state.table?.relationships else { return }
        state.isApplyingStoredValues = true
        defer { state.isApplyingStoredValues = false }
        for relationship in relationships.all {
            let ordinal = relationship.ordinal
            if state.faults.contains(ordinal) {
                // Objects prefetched for the fault, not taken yet: the fault
                // resolves to them, so to their keys.
                if let prefetched = state.extras?.prefetched.removeValue(forKey: ordinal),
                    let keys = rowIDs(of: prefetched.models)
                {
                    state.makeExtras().loadedKeys[ordinal] = keys
                }
                continue
            }
            let related = relationship.accessor.loadedModels(of: model) ?? []
            // Nil or empty holds nothing, and reads as a live context would
            // read it; a non-optional to-one cannot be empty: it keeps its
            // object.
            guard !related.isEmpty, relationship.accessor.setModels([], of: model) else { continue }
            state.faults.insert(ordinal)
            if relationship.holdsForeignKey, related.count == 1, let key = related[0]._$modelState.rowID {
                // As a fault made by a fetch: no array to allocate.
                state.makeExtras().faultKeys[ordinal] = key
            } else if let keys = rowIDs(of: related) {
                state.makeExtras().loadedKeys[ordinal] = keys
            }
            // Without every key (an object not saved: not after a rollback),
            // the fault reads the store instead.
        }
    }

    /// The row keys of `models`, in order; nil when one has none.
    private func rowIDs(of models: [any PersistentModel]) -> [Int64]? {
        var keys: [Int64] = []
        keys.reserveCapacity(models.count)
        for model in models {
            guard let rowID = model._$modelState.rowID else { return nil }
            keys.append(rowID)
        }
        return keys
    }

    // MARK: Loading for objects that keep their faults

    /// The objects relationship `relationship` of an object whose faults
    /// stay faults (its state is `state`) holds: those of the keys it
    /// remembers, else those the store holds, whose keys it then remembers,
    /// so that later reads return the same objects as a live context's would.
    /// - Throws: `ModelStoreError` when a row cannot be read; `SQLiteError`.
    func keptFaultModels(_ relationship: RuntimeRelationship, of state: ModelState) throws -> [any PersistentModel] {
        let ordinal = relationship.ordinal
        let destination = try destinationTable(of: relationship)
        if let keys = state.extras?.loadedKeys[ordinal] { return try models(keyed: keys, in: destination) }
        if relationship.holdsForeignKey {
            if let key = state.extras?.faultKeys[ordinal] { return try models(keyed: [key], in: destination) }
            let keys = try storedForeignKey(relationship, of: state).map { [$0] } ?? []
            state.makeExtras().loadedKeys[ordinal] = keys
            return try models(keyed: keys, in: destination)
        }
        // Not saved: nothing in the store refers to it.
        guard let rowID = state.rowID else { return [] }
        let type = try modelType(of: destination)
        let sql = try relatedRowsQuery(relationship, destination: destination, holders: .one).sql
        // Column 0 is the row's key.
        let loaded = try rows(type, table: destination, sql: sql, extraColumn: 0) { try $0.bind(rowID, at: 1) }
        state.makeExtras().loadedKeys[ordinal] = loaded.map(\.extra)
        return loaded.map(\.model)
    }

    /// The objects of the rows `keys` of `table`, in order: registered ones
    /// as they are, the others read in one query. Rows deleted since are
    /// left out.
    /// - Throws: `ModelStoreError` when a row cannot be read; `SQLiteError`.
    private func models(keyed keys: [Int64], in table: EntityTable) throws -> [any PersistentModel] {
        guard !keys.isEmpty else { return [] }
        let type = try modelType(of: table)
        let missing = keys.filter { registered(table, rowID: $0) == nil }
        // Held until the result is collected: the identity map holds them weakly.
        var read: [any PersistentModel] = []
        if missing.count == 1 {
            if let model = try fetchOne(type, table: table, rowID: missing[0]) { read.append(model) }
        } else if !missing.isEmpty {
            let sql = "\(table.selectSQL) WHERE \(quoteIdentifier(primaryKeyColumn)) IN (SELECT value FROM json_each(?))"
            read = try rows(type, table: table, sql: sql) { try $0.bind(jsonKeys(missing), at: 1) }.map(\.model)
        }
        return withExtendedLifetime(read) { keys.compactMap { registered(table, rowID: $0) } }
    }

    /// The key in the holder's row of a to-one stored there; nil for NULL,
    /// or when the row is gone (nothing in the store refers through it).
    private func storedForeignKey(_ relationship: RuntimeRelationship, of state: ModelState) throws -> Int64? {
        guard let table = state.table, let rowID = state.rowID, let column = relationship.schema.foreignKeyColumn else {
            return nil
        }
        let sql = "SELECT \(quoteIdentifier(column)) FROM \(quoteIdentifier(table.tableName)) WHERE \(quoteIdentifier(primaryKeyColumn)) = ?"
        let statement = try connection().cachedStatement(sql)
        defer { statement.reset() }
        try statement.bind(rowID, at: 1)
        guard try statement.step(), !statement.isNull(at: 0) else { return nil }
        return statement.int64(at: 0)
    }

    /// The error of a to-one relationship that several rows claim (the
    /// store was edited without ModelStore): which of them it holds is not
    /// known, so it is not loaded.
    func toOneClaimedTwice(_ relationship: RuntimeRelationship, of state: ModelState, count: Int) -> ModelStoreError {
        .invalidValue(
            entity: state.table?.name ?? "?", property: relationship.schema.name, row: state.rowID,
            reason: "\(count) \(relationship.schema.destination) rows refer to the object through this to-one relationship",
            path: store.configuration.displayPath)
    }
}
