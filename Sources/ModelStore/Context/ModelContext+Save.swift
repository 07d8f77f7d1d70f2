import Foundation

extension ModelContext {
    /// Writes every pending insert, update and delete in one transaction.
    ///
    /// Inserts write every column; updates write only the changed columns;
    /// the cost follows the changes, not the number of registered objects.
    /// If anything fails, the transaction is rolled back: the store is as it
    /// was, and the context still holds all its pending changes (objects still
    /// dirty, temporary identifiers still temporary), so the app can fix the
    /// cause and save again.
    ///
    /// - Throws: `ModelStoreError.readOnlyStore` for a read-only store;
    ///   `.saveFailed` naming the entity and row when SQLite refuses a
    ///   statement (a unique constraint, a full disk); `.invalidValue` when a
    ///   value cannot be stored (a UInt64 above Int64.max); `.rowNotFound` when
    ///   a changed object's row was deleted elsewhere; `.deleteDenied` when a
    ///   `.deny` rule blocks a delete; `.relationshipCount` when a to-many
    ///   breaks its minimum or maximum count; `.danglingReference` when an
    ///   object would still refer to a deleted one; `.entityNotInSchema`;
    ///   `SQLiteError` when the transaction cannot begin or commit (the
    ///   database stayed busy past the timeout, the disk is full).
    ///   `.saveConflicts` when another context or process changed or
    ///   deleted a saved object's row since this context read it and the
    ///   `mergePolicy` is `.error` (see `MergePolicy`; other policies
    ///   resolve the conflicts and save).
    /// - Complexity: O(changed objects × changed properties).
    public func save() throws {
        // Other contexts' saves first: an object they deleted is not written.
        try mergeExternalChanges()
        guard hasChanges else {
            // Nothing in the context holds an inserted object deleted again
            // (an object that held it would have changes): nothing to drop.
            deletedInserts.removeAll()
            return
        }
        guard store.configuration.allowsSave else { throw ModelStoreError.readOnlyStore(path: store.path) }
        if store.hasReadOnlyParts { try checkStoresAllowSave() }
        defer { overwritingObjects.removeAll() }
        NotificationCenter.default.post(name: ModelContext.willSave, object: self)
        // Each round resolves the conflicts found; another writer may cause
        // new ones in between, so the rounds are limited.
        for round in 1...Self.conflictRounds {
            do {
                try saveOnce()
                _checkIdentityMap()
                undoRecording?.didCommit()
                return
            } catch let found as ConflictsFound {
                try resolveConflicts(found.candidates, isLastRound: round == Self.conflictRounds)
                guard hasChanges else {
                    undoRecording?.didCommit()
                    return
                }
            }
        }
    }

    /// How often a save resolves conflicts and tries again before it throws them.
    static let conflictRounds = 4

    /// One attempt: writes everything, or throws with nothing written
    /// (`ConflictsFound` when rows changed underneath).
    private func saveOnce() throws {
        let connection = try connection()
        // Delete rules are worked out first: a denied delete throws before
        // anything is written.
        let plan = try planDeletes(deleted.models, deletedInserts: deletedInserts)
        // While the rows are there: what undoing the deletes restores (only
        // with an undo manager; see ModelContext+UndoSavedDelete.swift).
        let savedDeletes = undoRecording == nil ? nil : try captureSavedDeletes(plan)
        // The pending lists are walked in place: copying them into arrays
        // first was one more pass over every object (a retain, and a release
        // at the end), which for large saves also meant cache misses.
        let work = pendingWork
        if work.needs.countChecks {
            try checkRelationshipCounts(insertedToWrite(plan), plan: plan)
            try checkRelationshipCounts(changedToWrite(plan), plan: plan)
        }

        var fixups: [ForeignKeyFixup] = []
        // The states of the changed objects written, to mark clean after the
        // commit without walking the objects again; `wroteRow` for those whose
        // rows an UPDATE wrote, whose versions then go up by one.
        var updated: [(state: ModelState, wroteRow: Bool)] = []
        updated.reserveCapacity(changed.count)
        // To-manys stored without the repeats they held in memory.
        var repeatedLists: [SavedToMany] = []
        // What the save wrote, for the other contexts and the observers,
        // collected as it is written: a pass of its own over the objects
        // after the commit would load each state again.
        var changes = ChangeSet()
        changes.author = author
        var conflicts: [ConflictCandidate] = []
        var history = HistoryRecorder()
        // Deletes and updates run before inserts, because they may free a
        // unique value that an insert takes: delete "Lisbon" and insert a new
        // "Lisbon", or rename "Lisbon" and insert a new one. Inserted first,
        // the new object would upsert into the old row instead. Foreign keys
        // are checked at commit, so the order does not matter to them.
        var commit = beginCommit()
        do {
            try connection.transaction {
                transactionDidBegin(&commit, connection: connection)
                // A server sends the rows of many objects in one statement
                // (see ForeignDatabase+DeferredWrites.swift); SQLite steps
                // each object's statement, which costs no round trip.
                let defersWrites = connection.foreign != nil
                if defersWrites { try connection.deferWrites(insertCounts: keyedInsertCounts(plan)) }
                if !plan.isEmpty {
                    conflicts += try checkDeletedVersions(connection: connection)
                    try history.recordDeletes(of: plan, connection: connection, path: store.path)
                }
                try plan.write(on: connection)
                changes.updated.reserveCapacity(changed.count)
                try changed.forEach { model in
                    let state = model._$modelState
                    guard state.lifecycle == .persisted, plan.writes(model) else { return }
                    // Looked up once for the UPDATE, the history and the
                    // change set: each look-up is a retain and a release per object.
                    let table = try table(of: model, state: state)
                    let outcome = try writeUpdate(
                        model, state: state, table: table, plan: plan, fixups: &fixups, connection: connection)
                    if outcome == .conflict {
                        conflicts.append(ConflictCandidate(model: model, isDelete: false))
                        return
                    }
                    updated.append((state, outcome == .written))
                    if let rowID = state.rowID {
                        history.recordUpdate(table: table, row: rowID, dirty: state.dirty)
                        changes.updated.append(ChangeSet.UpdatedRow(table: table, rowID: rowID, properties: state.dirty))
                    }
                }
                if defersWrites { conflicts += try sendDeferredWrites(on: connection) }
                // Every conflict of the save is reported, so the search
                // goes on to the end of the updates before giving up.
                if !conflicts.isEmpty { throw ConflictsFound(candidates: conflicts) }
                changes.inserted.reserveCapacity(inserted.count)
                try inserted.forEach { model in
                    guard plan.writes(model) else { return }
                    let state = model._$modelState
                    // Known at once, so that later rows and links can refer to it.
                    let (rowID, version) = try writeInsert(model, state: state, plan: plan, fixups: &fixups, connection: connection)
                    state.rowID = rowID
                    state.version = version
                    guard let table = state.table else { return }
                    changes.inserted.append(ChangeSet.Row(table: table, rowID: rowID))
                    if version == initialRowVersion {
                        history.recordInsert(table: table, row: rowID)
                    } else {
                        // An upsert into an existing row: an update of its attributes.
                        history.record(.update, entity: table.name, row: rowID, properties: table.entity.attributes.map(\.name))
                    }
                }
                if defersWrites {
                    let late = try sendDeferredWrites(on: connection)
                    if !late.isEmpty { throw ConflictsFound(candidates: late) }
                }
                try writeForeignKeyFixups(fixups, connection: connection)
                if work.needs.toManyLinks {
                    repeatedLists += try writeToManyLinks(of: insertedToWrite(plan), plan: plan, connection: connection)
                    repeatedLists += try writeToManyLinks(of: changedToWrite(plan), plan: plan, connection: connection)
                }
                commit.historyToken = try history.write(author: author, connection: connection)
            }
        } catch {
            endCommit(commit, changes: nil, connection: connection)
            // The store is as it was; so are the new objects: still unsaved.
            inserted.forEach { model in
                if plan.writes(model) { model._$modelState.rowID = nil }
            }
            // Foreign keys are checked at commit, for the whole save.
            if let error = error as? SQLiteError, error.extendedCode == SQLiteError.foreignKeyConstraint {
                throw ModelStoreError.danglingReference(path: store.path)
            }
            throw error
        }

        // The transaction committed: only now does the in-memory state move on.
        // Other contexts hear of it at once; the next local commit waits
        // for that (see ChangeCoordinator.swift).
        changes.addDeletes(of: plan)
        endCommit(commit, changes: changes, connection: connection)
        didInsert(plan: plan, batches: work.batches)
        for (state, wroteRow) in updated {
            state.markClean()
            if wroteRow { state.version += 1 }
        }
        applyInMemory(plan, savedDeletes: savedDeletes)
        if !repeatedLists.isEmpty { holdSavedMembers(repeatedLists) }
        inserted.removeAll()
        changed.removeAll()
        deleted.removeAll()
        deletedInserts.removeAll()
        pendingWork = PendingSaveWork()
        merging.mergedWhileChanged.removeAll()
        didSave(changes)
    }

    /// Throws when a pending change is in a read-only store of a container
    /// whose other stores are writable: the read-only one is read-only only.
    private func checkStoresAllowSave() throws {
        func check(_ model: any PersistentModel) throws {
            if let table = model._$modelState.table, !table.storeAllowsSave {
                throw ModelStoreError.readOnlyStore(path: table.storePath)
            }
        }
        try inserted.forEach(check)
        try changed.forEach(check)
        try deleted.forEach(check)
    }

    /// The inserted objects a save writes, for the passes that need a list.
    private func insertedToWrite(_ plan: DeletePlan) -> [any PersistentModel] {
        inserted.models(where: { plan.writes($0) })
    }

    /// The changed objects a save writes: saved ones (a deleted object's
    /// changes are not written), for the passes that need a list.
    private func changedToWrite(_ plan: DeletePlan) -> [any PersistentModel] {
        changed.models(where: { $0._$modelState.lifecycle == .persisted && plan.writes($0) })
    }

    private func table(of model: any PersistentModel, state: ModelState) throws -> EntityTable {
        guard let table = state.table else {
            throw ModelStoreError.entityNotInSchema(entity: type(of: model).entityName)
        }
        return table
    }

    private func writeInsert(
        _ model: any PersistentModel, state: ModelState, plan: DeletePlan, fixups: inout [ForeignKeyFixup],
        connection: Connection
    ) throws -> (rowID: Int64, version: Int64) {
        let table = try table(of: model, state: state)
        let statement = try statements.statement(.insert, for: table, on: connection) { table.insertSQL }
        // Every parameter is bound again for the next object, so clearing
        // the bindings would only cost time.
        defer { statement.rewind() }
        var index: Int32 = 1
        for ordinal in table.columnOrdinals {
            try bind(ordinal, of: model, table: table, row: nil, to: statement, at: index, plan: plan, fixups: &fixups)
            index += 1
        }
        do {
            if !table.insertReturnsKey {
                // A plain INSERT returns no row: one step finishes it.
                try statement.step()
                return (connection.lastInsertRowID, initialRowVersion)
            }
            guard try statement.step() else {
                throw ModelStoreError.saveFailed(
                    entity: table.name, row: nil,
                    underlying: SQLiteError(extendedCode: 1, message: "INSERT returned no row key", sql: table.insertSQL))
            }
            return (statement.int64(at: 0), statement.int64(at: 1))
        } catch let error as SQLiteError {
            throw ModelStoreError.saveFailed(entity: table.name, row: nil, underlying: error)
        }
    }

    /// What `writeUpdate` did.
    private enum UpdateOutcome {
        /// The row was written; its version went up by one.
        case written
        /// Only to-many links changed, written apart; the row is as it was.
        case linksOnly
        /// The row's version is not the one the object read (or the row is
        /// gone): nothing was written.
        case conflict
    }

    private func writeUpdate(
        _ model: any PersistentModel, state: ModelState, table: EntityTable, plan: DeletePlan,
        fixups: inout [ForeignKeyFixup], connection: Connection
    ) throws -> UpdateOutcome {
        guard let rowID = state.rowID, !state.dirty.isEmpty else { return .linksOnly }
        // A changed to-many has no column here; its links are written apart.
        // An object that won a conflict with `.objectWins` writes every
        // column it holds (not the ones a partial fetch left unread).
        var changed = table.hasRelationships ? table.columnOrdinals(in: state.dirty) : state.dirty
        if !overwritingObjects.isEmpty, overwritingObjects.contains(ObjectIdentifier(model)) {
            changed = PropertyBitSet()
            for ordinal in table.columnOrdinals where !state.faults.contains(ordinal) { changed.insert(ordinal) }
        }
        guard !changed.isEmpty else { return .linksOnly }
        let statement = try statements.statement(.update(changed), for: table, on: connection) {
            table.updateSQL(ordinals: changed, checksVersion: true)
        }
        // As for inserts: every parameter is bound for each object.
        defer { statement.rewind() }
        var index: Int32 = 1
        for ordinal in changed {
            try bind(ordinal, of: model, table: table, row: rowID, to: statement, at: index, plan: plan, fixups: &fixups)
            index += 1
        }
        do {
            try statement.bind(rowID, at: index)
            try statement.bind(state.version, at: index + 1)
            // An UPDATE returns no row: one step finishes it.
            try statement.step()
        } catch {
            throw ModelStoreError.saveFailed(entity: table.name, row: rowID, underlying: error)
        }
        // No row of this key and version: another writer changed or deleted it.
        return connection.changes == 0 ? .conflict : .written
    }

    private func bind(
        _ ordinal: Int, of model: any PersistentModel, table: EntityTable, row: Int64?, to statement: Statement,
        at index: Int32, plan: DeletePlan, fixups: inout [ForeignKeyFixup]
    ) throws {
        do {
            try model._$bindValue(ordinal, to: statement, at: index)
        } catch let failure as ValueCodingFailure {
            throw ModelStoreError.invalidValue(
                entity: table.name, property: table.slots[ordinal].name, row: row, reason: failure.reason,
                path: table.storePath)
        }
        guard table.hasRelationships, let relationship = table.relationships?.relationship(at: ordinal),
            let target = relationship.accessor.loadedModels(of: model)?.first
        else { return }
        // A foreign key: the generated code bound the target's key, or NULL
        // when the target has none yet (inserted later in this save).
        if plan.contains(target) {
            try statement.bindNull(at: index)
        } else if target._$modelState.rowID == nil {
            fixups.append(ForeignKeyFixup(model: model, table: table, ordinal: ordinal, target: target))
        }
    }

    /// Gives newly saved objects their permanent identity. When an insert
    /// was an upsert into a row that another object of this context already
    /// represents, that object stays the row's object and takes the saved
    /// values, and the inserted one leaves the context: one row, one object.
    /// Only attributes are taken (as the upsert wrote only attributes): the
    /// existing object keeps its relationships.
    private func didInsert(plan: DeletePlan, batches: RegistryBatches) {
        var batches = batches
        // Observers of an upserted object (below) may insert objects: they
        // wait for the next save, as before.
        inserted.forEach { model in
            guard plan.writes(model) else { return }
            let state = model._$modelState
            guard let table = state.table, let rowID = state.rowID else { return }
            state.markClean()
            if let temporary = state.temporaryIdentifier {
                // Only an identifier somebody asked for can be looked up later.
                permanentIdentifiers[temporary] = model.persistentModelID
            }
            let registry = batches.registry(for: table, in: self)
            // One lookup registers the object and finds the row's object, if
            // another one already stands for it.
            if let existing = registry.registerUnlessTaken(model, rowID: rowID) {
                takeUpsertedValues(of: model, into: existing, table: table)
                return
            }
            state.lifecycle = .persisted
        }
    }

    private func takeUpsertedValues(
        of model: any PersistentModel, into existing: any PersistentModel, table: EntityTable
    ) {
        let existingState = existing._$modelState
        existingState.isApplyingStoredValues = true
        for property in table.entity.properties where property.attribute != nil {
            _ = property.accessor.setValue(property.accessor.value(of: model), of: existing)
        }
        existingState.isApplyingStoredValues = false
        existingState.markClean()
        changed.remove(existing)
        let state = model._$modelState
        state.leaveOwner()
        state.lifecycle = .detached
    }
}

/// What the next save has to do besides writing rows, noted as objects are
/// inserted and changed (when they are in cache anyway), so that the save
/// need not walk them once more to find out.
struct PendingSaveWork {
    var needs = SaveNeeds()
    var batches = RegistryBatches()

    mutating func noteInsert(into table: EntityTable?) {
        needs.note(table)
        batches.count(table)
    }

    mutating func noteChange(in table: EntityTable?) {
        needs.note(table)
    }
}

/// What a save has to do besides writing rows, noted per object's table. It
/// may say more than needed (an inserted object deleted again), never less.
struct SaveNeeds {
    /// Some object has a to-many relationship with a minimum or maximum count.
    var countChecks = false
    /// Some object has a to-many relationship, whose links may have changed.
    var toManyLinks = false

    mutating func note(_ table: EntityTable?) {
        guard let table, !table.toManyRelationships.isEmpty else { return }
        toManyLinks = true
        if !table.countLimitedRelationships.isEmpty { countChecks = true }
    }
}

/// The registries that newly saved objects join, each looked up once per run
/// of objects of its entity and grown once for all of them, instead of
/// rehashing as it grows object by object.
struct RegistryBatches {
    /// How many of the inserted objects each table receives (objects
    /// inserted and deleted again still count: it only reserves room).
    private var counts: [(table: EntityTable, count: Int)] = []
    /// The table counted last and how many objects of it came in a row:
    /// saves mostly insert objects of one entity, or runs of them, so a run
    /// costs a comparison per object.
    private var run: (table: EntityTable, count: Int)?
    private var current: (table: EntityTable, registry: RowRegistry)?

    /// Counts one inserted object.
    mutating func count(_ table: EntityTable?) {
        guard let table else { return }
        if run?.table === table {
            run?.count += 1
        } else {
            endRun()
            run = (table, 1)
        }
    }

    private mutating func endRun() {
        guard let run else { return }
        if let index = counts.firstIndex(where: { $0.table === run.table }) {
            counts[index].count += run.count
        } else {
            counts.append(run)
        }
        self.run = nil
    }

    mutating func registry(for table: EntityTable, in context: ModelContext) -> RowRegistry {
        if let current, current.table === table { return current.registry }
        endRun()
        let registry = context.registry(for: table)
        if let index = counts.firstIndex(where: { $0.table === table }) {
            registry.reserveCapacity(registry.count + counts[index].count)
            // Reserved once: a later run of the same table finds it grown.
            counts[index].count = 0
        }
        current = (table, registry)
        return registry
    }
}
