extension Connection {
    /// SQLite's `PRAGMA data_version` for this connection: "The integer
    /// values returned by two invocations of PRAGMA data_version from the
    /// same connection will be different if changes were committed to the
    /// database by any other connection in the interim." Commits of this
    /// connection do not change it. One pragma, no table is read: contexts
    /// ask it once per fetch or save to learn whether anybody else wrote.
    ///
    /// Connections that share one cache (an in-memory store) share its
    /// pager, so for them the value does not move: they learn of each other's
    /// saves from their container instead.
    /// - Throws: `SQLiteError` when the pragma cannot run (a busy or damaged file).
    func dataVersion() throws(SQLiteError) -> Int64 {
        // Bookkeeping, not a statement of the fetch or save it precedes:
        // the observer (tests that count a fetch's statements) does not see it.
        let observer = statementObserver
        statementObserver = nil
        defer { statementObserver = observer }
        let statement = try cachedStatement("PRAGMA data_version")
        defer { statement.reset() }
        _ = try statement.step()
        return statement.int64(at: 0)
    }
}
