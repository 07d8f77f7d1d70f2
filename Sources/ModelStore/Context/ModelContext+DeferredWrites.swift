/// The save's side of deferred writes (see
/// ForeignDatabase+DeferredWrites.swift): what a foreign database needs to
/// know before the rows come, and the conflicts it finds when it sends them.
extension ModelContext {
    /// How many rows the save inserts into each table that fills its own
    /// key (an upsert's key comes back from its own statement).
    func keyedInsertCounts(_ plan: DeletePlan) -> [String: Int] {
        var counts: [String: Int] = [:]
        // Inserts come in runs of one table: count a run, and hash its
        // table's name once per run rather than once per object.
        var run: (table: EntityTable, count: Int)?
        inserted.forEach { model in
            guard plan.writes(model), let table = model._$modelState.table, !table.insertReturnsKey else { return }
            if let current = run, current.table === table {
                run = (table, current.count + 1)
                return
            }
            if let current = run { counts[current.table.tableName, default: 0] += current.count }
            run = (table, 1)
        }
        if let current = run { counts[current.table.tableName, default: 0] += current.count }
        return counts
    }

    /// Sends the writes a foreign database held back; the UPDATEs among
    /// them that changed no row are conflicts, as an UPDATE sent alone that
    /// changes no row is (`writeUpdate`).
    /// - Throws: `ModelStoreError.saveFailed` naming the table when a write fails.
    func sendDeferredWrites(on connection: Connection) throws -> [ConflictCandidate] {
        let misses: [DeferredWriteMiss]
        do {
            misses = try connection.sendDeferredWrites()
        } catch {
            throw ModelStoreError.saveFailed(entity: error.table, row: error.key, underlying: error.error)
        }
        guard !misses.isEmpty else { return [] }
        let missed = Set(misses)
        var candidates: [ConflictCandidate] = []
        changed.forEach { model in
            let state = model._$modelState
            guard let rowID = state.rowID, let table = state.table,
                missed.contains(DeferredWriteMiss(table: table.tableName, key: rowID))
            else { return }
            candidates.append(ConflictCandidate(model: model, isDelete: false))
        }
        return candidates
    }
}
