// Optimistic locking: how a save finds rows that changed underneath, and
// how the context's merge policy resolves them.
//
// Every object remembers the version of its row as it read or last wrote it
// (`ModelState.version`). A save's UPDATE names it (`… AND _version = ?`);
// no row changed means another writer changed or deleted the row. Deletes
// are checked with one SELECT of the versions per table before the delete.
// The save goes on to the end of its updates to find every conflict, then
// rolls back (nothing is written). `save()` then reads the stored rows,
// asks the policy, and either throws `saveConflicts` (the context as it
// was) or changes the conflicting objects in memory as the policy says and
// saves again, with the versions now expected being the stored ones.

/// An object whose row changed or went away underneath.
struct ConflictCandidate {
    let model: any PersistentModel
    /// True when the save was deleting it.
    let isDelete: Bool
}

/// Thrown inside a save's transaction to roll it back when rows changed
/// underneath. `@unchecked Sendable`: it holds the context's objects, and is
/// thrown and caught inside `save()`, in the context's isolation domain.
struct ConflictsFound: Error, @unchecked Sendable {
    let candidates: [ConflictCandidate]
}

/// A conflicting object's stored row and what differs from it.
private struct StoredComparison {
    let candidate: ConflictCandidate
    let table: EntityTable
    /// Nil when the row is gone.
    let version: Int64?
    /// The stored value of each column property that the store changed.
    var storedValues: [Int: StoredValue] = [:]
    var conflict: SaveConflict

    enum StoredValue {
        case attribute(Any)
        case foreignKey(Int64?)
    }
}

extension ModelContext {
    /// The deleted objects whose rows another writer changed since this
    /// context read them. A row that is already gone is no conflict: both
    /// sides wanted it deleted.
    /// - Throws: `ModelStoreError.saveFailed`.
    func checkDeletedVersions(connection: Connection) throws -> [ConflictCandidate] {
        var byTable: [ObjectIdentifier: (table: EntityTable, models: [Int64: any PersistentModel])] = [:]
        for model in deleted.models {
            let state = model._$modelState
            guard let table = state.table, let rowID = state.rowID else { continue }
            byTable[ObjectIdentifier(table), default: (table, [:])].models[rowID] = model
        }
        var found: [ConflictCandidate] = []
        for (table, models) in byTable.values {
            let key = quoteIdentifier(primaryKeyColumn)
            let statement = try connection.cachedStatement(
                "SELECT \(key), \(quoteIdentifier(rowVersionColumn)) FROM \(quoteIdentifier(table.tableName)) "
                    + "WHERE \(key) \(RelationshipSQL.inKeys)")
            defer { statement.reset() }
            do {
                try statement.bind(jsonKeys(models.keys), at: 1)
                while try statement.step() {
                    guard let model = models[statement.int64(at: 0)] else { continue }
                    if model._$modelState.version != statement.int64(at: 1) {
                        found.append(ConflictCandidate(model: model, isDelete: true))
                    }
                }
            } catch {
                throw ModelStoreError.saveFailed(entity: table.name, row: nil, underlying: error)
            }
        }
        return found
    }

    /// Resolves the conflicts a save found with the merge policy, in memory,
    /// or throws them (then the context is as it was).
    /// - Throws: `ModelStoreError.saveConflicts` when the policy (or, for a
    ///   custom one, its answer for any object) is `.error`, or on the last
    ///   round; what reading the stored rows throws.
    func resolveConflicts(_ candidates: [ConflictCandidate], isLastRound: Bool) throws {
        let comparisons = try candidates.map(compareWithStore)
        let resolutions: [ConflictResolution] = comparisons.map { comparison in
            switch mergePolicy {
            case .error: .error
            case .storeWins: .storeWins
            case .objectWins: .objectWins
            case .mergeByProperty(let winner): .mergeByProperty(winner: winner)
            case .custom(let resolve): resolve(comparison.conflict)
            }
        }
        let refused = zip(comparisons, resolutions).filter { $0.1 == .error }.map(\.0.conflict)
        if !refused.isEmpty || isLastRound {
            throw ModelStoreError.saveConflicts(
                path: store.path, conflicts: refused.isEmpty ? comparisons.map(\.conflict) : refused)
        }
        var gone = DeletePlan()
        for (comparison, resolution) in zip(comparisons, resolutions) {
            guard let version = comparison.version else {
                // Deleted underneath: every policy but `.error` accepts it.
                let state = comparison.candidate.model._$modelState
                if let rowID = state.rowID { _ = gone.add([rowID], of: comparison.table) }
                continue
            }
            apply(resolution, to: comparison)
            comparison.candidate.model._$modelState.version = version
        }
        if !gone.isEmpty { applyInMemory(gone) }
    }

    private func apply(_ resolution: ConflictResolution, to comparison: StoredComparison) {
        let model = comparison.candidate.model
        let state = model._$modelState
        let winner: MergeWinner
        switch resolution {
        case .error: return
        case .objectWins:
            if !comparison.candidate.isDelete { overwritingObjects.insert(ObjectIdentifier(model)) }
            return
        case .storeWins: winner = .store
        case .mergeByProperty(let chosen): winner = chosen
        }
        if comparison.candidate.isDelete {
            // The object wins: the delete goes ahead. The store wins: it is
            // undone, and the object takes the stored values.
            guard winner == .store else { return }
            state.lifecycle = .persisted
            deleted.remove(model)
        }
        let properties = comparison.table.entity.properties
        // The properties the object keeps as unsaved changes, with the
        // values a rollback returns to (the stored ones where the store
        // changed them too).
        var kept: [(ordinal: Int, committed: Any)] = []
        if resolution != .storeWins {
            for ordinal in state.dirty {
                if comparison.storedValues[ordinal] != nil && winner == .store { continue }
                guard let committed = committedValue(of: model, state: state, ordinal: ordinal) else { continue }
                if case .attribute(let stored)? = comparison.storedValues[ordinal] {
                    kept.append((ordinal, stored))
                } else {
                    kept.append((ordinal, committed))
                }
            }
        }
        let taken = comparison.storedValues.filter { ordinal, _ in
            !state.dirty.contains(ordinal) || winner == .store || resolution == .storeWins
        }
        // Every change is undone first (observers hear of it), then the
        // stored values are set and the kept changes made again.
        let keptValues = kept.map { (ordinal: $0.ordinal, value: properties[$0.ordinal].accessor.value(of: model)) }
        restoreCommittedValues(of: model)
        changed.remove(model)
        state.isApplyingStoredValues = true
        for (ordinal, value) in taken {
            switch value {
            case .attribute(let stored):
                _ = properties[ordinal].accessor.setValue(stored, of: model)
            case .foreignKey(let key):
                // The related object loads on next access, from the stored key.
                if let key {
                    state.faults.insert(ordinal)
                    state.makeExtras().faultKeys[ordinal] = key
                } else if let relationship = comparison.table.relationships?.relationship(at: ordinal) {
                    relationship.accessor.setModels([], of: model)
                }
            }
        }
        state.isApplyingStoredValues = false
        for (index, entry) in kept.enumerated() {
            state.isApplyingStoredValues = true
            _ = properties[entry.ordinal].accessor.setValue(keptValues[index].value, of: model)
            state.isApplyingStoredValues = false
            state.dirty.insert(entry.ordinal)
            if index == 0 {
                changed.append(model, state: state, committed: CommittedValue(ordinal: entry.ordinal, value: entry.committed))
            } else {
                state.makeExtras().moreCommitted[entry.ordinal] = entry.committed
            }
        }
    }

    /// Reads a conflicting object's row and compares it with what the
    /// object read and holds.
    private func compareWithStore(_ candidate: ConflictCandidate) throws -> StoredComparison {
        let model = candidate.model
        let state = model._$modelState
        guard let table = state.table, let rowID = state.rowID else {
            throw ModelStoreError.entityNotInSchema(entity: type(of: model).entityName)
        }
        let connection = try connection()
        let statement = try connection.prepare(table.selectByKeySQL)
        try statement.bind(rowID, at: 1)
        let exists = try statement.step()
        let storedVersion = exists ? statement.int64(at: table.versionColumn) : nil
        var storedValues: [Int: StoredComparison.StoredValue] = [:]
        var properties: [SaveConflict.Property] = []
        let same = try connection.valueStatement("SELECT ?1 IS ?2")
        for ordinal in table.columnOrdinals where !state.faults.contains(ordinal) || state.dirty.contains(ordinal) {
            let property = table.entity.properties[ordinal]
            let column = Int32(ordinal + 1)
            let isDirty = state.dirty.contains(ordinal)
            let current = property.accessor.value(of: model)
            let committed = committedValue(of: model, state: state, ordinal: ordinal) ?? current
            var storedText: String?
            var changedInStore = false
            if exists, let coding = property.storedValueCoding {
                let stored = try readStored(coding, table: table, ordinal: ordinal, row: rowID, statement: statement)
                storedText = String(describing: stored)
                same.reset()
                do {
                    try coding.bind(committed, same, 1)
                    try same.bind(statement.value(at: column), at: 2)
                    _ = try same.step()
                    changedInStore = same.int64(at: 0) == 0
                } catch is ValueCodingFailure {
                    // A loaded value its type cannot encode any more cannot
                    // equal a stored one: taken as changed. Any other failure
                    // (SQLite's) is the save's error: read as a change, it
                    // would let a policy drop the context's value unseen.
                    changedInStore = true
                }
                if changedInStore { storedValues[ordinal] = .attribute(stored) }
            } else if exists, let relationship = table.relationships?.relationship(at: ordinal) {
                let stored: Int64? = statement.isNull(at: column) ? nil : statement.int64(at: column)
                storedText = stored.map { "\(relationship.schema.destination):\($0)" } ?? "nil"
                let committedKey: Int64? =
                    isDirty ? (committed as? any PersistentModel)?._$modelState.rowID : foreignKey(ordinal, of: model, relationship)
                changedInStore = committedKey != stored
                if changedInStore { storedValues[ordinal] = .foreignKey(stored) }
            }
            guard isDirty || changedInStore else { continue }
            let unsavedText: String
            if let relationship = table.relationships?.relationship(at: ordinal) {
                unsavedText = foreignKey(ordinal, of: model, relationship).map { "\(relationship.schema.destination):\($0)" } ?? "nil"
            } else {
                unsavedText = String(describing: current)
            }
            properties.append(
                SaveConflict.Property(
                    name: property.name, storedValue: exists ? storedText : nil, unsavedValue: unsavedText,
                    isChangedInContext: isDirty, isChangedInStore: changedInStore || !exists))
        }
        let conflict = SaveConflict(
            identifier: model.persistentModelID, entity: table.name, row: rowID, kind: exists ? .changed : .deleted,
            isDeleteInContext: candidate.isDelete, expectedVersion: state.version, storedVersion: storedVersion,
            properties: properties)
        return StoredComparison(
            candidate: candidate, table: table, version: storedVersion, storedValues: storedValues, conflict: conflict)
    }

    private func readStored(
        _ coding: StoredValueCoding, table: EntityTable, ordinal: Int, row: Int64, statement: Statement
    ) throws -> Any {
        do {
            return try coding.read(statement, Int32(ordinal + 1))
        } catch let failure as ValueCodingFailure {
            throw ModelStoreError.invalidValue(
                entity: table.name, property: table.slots[ordinal].name, row: row, reason: failure.reason,
                path: store.path)
        }
    }

    /// The key of the object a to-one holds now, without loading it.
    private func foreignKey(_ ordinal: Int, of model: any PersistentModel, _ relationship: RuntimeRelationship) -> Int64? {
        let state = model._$modelState
        if state.faults.contains(ordinal) { return state.extras?.faultKeys[ordinal] }
        return relationship.accessor.loadedModels(of: model)?.first?._$modelState.rowID
    }
}
