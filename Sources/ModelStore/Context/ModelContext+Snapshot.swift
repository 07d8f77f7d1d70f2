extension ModelContext {
    /// Runs `block` with every read of this context in one read transaction
    /// of the store: the fetches, counts, `model(for:)` lookups and
    /// relationship loads in the block see the store as it was at the
    /// block's first read, even while other contexts or processes save, and
    /// together cost one transaction instead of one per statement — a
    /// thousand lookups by identifier run about twice as fast inside one.
    ///
    /// SwiftData has no such scope; without it, each statement reads the
    /// newest state of the store on its own.
    ///
    /// A `save()` in the block is not held back: it ends the snapshot, commits
    /// on its own, and a new snapshot (which sees the save) begins for the
    /// rest of the block. Nested calls run inside the outer snapshot. Other
    /// connections can still write while the snapshot is open; in WAL mode,
    /// a long snapshot only keeps the write-ahead log from being
    /// checkpointed past it, so keep blocks short.
    ///
    /// - Returns: what `block` returns.
    /// - Throws: what `block` throws (the snapshot ends all the same), or
    ///   `SQLiteError` when the store cannot be opened or the transaction
    ///   cannot begin.
    public func withSnapshot<Result>(_ block: () throws -> Result) throws -> Result {
        // Merged before the snapshot begins: inside it, the objects' values
        // and the snapshot agree.
        try mergeExternalChanges()
        return try connection().withReadSnapshot(block)
    }
}
