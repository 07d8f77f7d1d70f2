import PostgresNIO

// The sending half of cross-server change notification (the receiving half
// is PostgresChangeListener): a save's transaction notifies the store's
// channel with its history token, and PostgreSQL delivers the notification
// to every session that LISTENs on the channel when, and only if, the
// transaction commits.

extension PostgresExecutor {
    /// Sends `payload` on `channel` with `SELECT pg_notify($1, $2)`.
    ///
    /// Inside a transaction, PostgreSQL holds the notification until COMMIT
    /// and drops it on ROLLBACK, so listeners hear only of changes that
    /// happened; within one transaction, notifications with the same
    /// channel and payload are delivered once. Outside a transaction it is
    /// delivered at once. Listeners receive notifications in the order
    /// their transactions committed.
    ///
    /// - Parameters:
    ///   - channel: the channel, as `PostgresChangeListener.channel(forStore:)`
    ///     names it (any text: pg_notify takes the name as a value, not as
    ///     an identifier).
    ///   - payload: text under 8000 bytes (PostgreSQL's limit).
    /// - Throws: `PostgresStoreError`; `.server` (SQLSTATE 22023) for a
    ///   payload that is too long.
    package func notify(channel: String, payload: String) throws(PostgresStoreError) {
        var binds = PostgresBindings()
        binds.append(channel)
        binds.append(payload)
        try execute("SELECT pg_notify($1, $2)", binds)
    }

    /// The process ID of this executor's session on the server
    /// (`pg_backend_pid()`): the sender ID a listener sees on this
    /// executor's notifications. It changes when the executor connects
    /// again after a lost connection.
    /// - Throws: `PostgresStoreError`.
    package func backendPID() throws(PostgresStoreError) -> Int32 {
        let sql = "SELECT pg_backend_pid()"
        let rows = try execute(sql).rows
        guard let pid = try? rows.first?.decode(Int32.self) else {
            throw .server(sqlState: "", message: "pg_backend_pid() returned no integer", statement: sql)
        }
        return pid
    }
}
