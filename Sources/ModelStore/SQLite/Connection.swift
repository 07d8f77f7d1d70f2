import CSQLite
import Foundation

/// One connection to a SQLite database file (or a named in-memory database),
/// configured the way ModelStore needs it: WAL journal, a busy timeout,
/// foreign keys enforced, and the defensive settings that make it safe to open
/// a file somebody else wrote.
///
/// A connection is not thread-safe and belongs to one isolation domain (the
/// context that owns it). Prepared statements are cached per SQL text, because
/// preparing costs far more than running a small statement.
package final class Connection {
    /// How to open the file.
    package enum Mode: Sendable {
        /// Read and write; create the file when it does not exist.
        case create
        /// Read and write an existing file.
        case readWrite
        /// Read only; writes fail with `SQLITE_READONLY`. A file SQLite
        /// cannot read normally because this user cannot write beside it
        /// is read immutable (see `immutableReason`).
        case readOnly
    }

    /// The SQLite database: the file's, or, on a foreign connection, a
    /// private in-memory one that holds the statements' echoes.
    let handle: OpaquePointer
    /// The database the statements run on when it is not SQLite (the
    /// backend seam: see ForeignDatabase.swift); nil for a SQLite file.
    package let foreign: (any ForeignDatabase)?
    /// `foreign != nil`, read where a save reads per row (`changes`): a
    /// flag costs a load, while reading the existential retains it.
    private let isForeign: Bool
    /// The path shown in errors: the file's path, or a description of the
    /// in-memory database.
    let path: String
    private var statementCache: [String: Statement] = [:]
    /// `valueStatement(_:)`'s statements, by their SQL.
    private var valueStatements: [String: Statement] = [:]
    /// ROLLBACK, compiled before the first write transaction begins:
    /// rolling back must not need memory to compile SQL, because it runs
    /// after errors such as SQLITE_NOMEM, when compiling fails too.
    private var rollbackStatement: Statement?
    /// True while the connection is still inside a write transaction whose
    /// rollback failed. Nothing may run in it: a save would nest in it as a
    /// savepoint, report success and never commit, and a read would see
    /// the failed save's rows. Each later use first rolls it back, and
    /// fails while it cannot.
    private var isInAbandonedTransaction = false
    /// Why this read-only connection reads its file immutable (SQLite's
    /// `immutable=1`: no locks, no journal), such as "the folder is not
    /// writable"; nil for a normal open. An immutable read assumes nobody
    /// writes the file while it is open: a write by another process
    /// meanwhile may go unseen, or make a read fail as if the file were
    /// damaged.
    package let immutableReason: String?
    /// Called with the SQL of every statement when it starts running. Tests
    /// use it to count statements (no N+1 queries); it costs one nil check.
    var statementObserver: ((String) -> Void)?

    /// Opens a connection.
    /// - Parameters:
    ///   - location: a file path, or a `file:` URI when `isURI` is true
    ///     (used for shared in-memory databases).
    ///   - displayPath: what errors call the database.
    ///   - watchesOnly: a connection that only reads `data_version` (and
    ///     rarely the change history), a container's watcher: it skips
    ///     `PRAGMA foreign_keys` and `PRAGMA synchronous`, settings for
    ///     writes (the second is the only part of configuring that makes
    ///     SQLite parse the whole schema).
    /// - Throws: `SQLiteError` when the file cannot be opened or configured;
    ///   `SQLITE_CANTOPEN` naming the file or folder this user cannot write,
    ///   for a mode that writes, or the journal whose changes a read-only
    ///   open cannot read.
    package init(
        location: String, displayPath: String? = nil, isURI: Bool = false, mode: Mode, watchesOnly: Bool = false
    ) throws(SQLiteError) {
        var flags: Int32 = SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE
        switch mode {
        case .create: flags |= SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
        case .readWrite: flags |= SQLITE_OPEN_READWRITE
        case .readOnly: flags |= SQLITE_OPEN_READONLY
        }
        if isURI { flags |= SQLITE_OPEN_URI }
        let shownPath = displayPath ?? location
        // SQLite would open a file it cannot write read-only without a word,
        // and fail at the first write with "attempt to write a readonly
        // database"; say which file or folder it is, before anything runs.
        // (A watcher never writes, and opens a file a connection for writes
        // has opened already: it skips the checks' system calls.)
        if mode != .readOnly && !isURI && !watchesOnly,
            let reason = FileAccess.reasonNotWritable(location, creating: mode == .create)
        {
            throw SQLiteError(extendedCode: SQLiteError.cannotOpen, message: reason, path: shownPath)
        }
        var handle = try Connection.open(location, flags: flags, path: shownPath)
        var immutableReason: String?
        if mode == .readOnly && !isURI && !Connection.canRead(handle) {
            // A WAL file in a folder this user cannot write (or beside a
            // `-shm` it cannot write): SQLite cannot set up the index a reader
            // needs. Read it immutable instead, unless its journal holds
            // changes the file lacks (then this throws).
            sqlite3_close_v2(handle)
            immutableReason = try FileAccess.immutableReason(location, path: shownPath)
            handle = try Connection.open(FileAccess.immutableURI(location), flags: flags | SQLITE_OPEN_URI, path: shownPath)
        }
        self.handle = handle
        self.foreign = nil
        self.isForeign = false
        self.path = shownPath
        self.immutableReason = immutableReason
        do {
            try configure(forWrites: !watchesOnly)
        } catch {
            sqlite3_close_v2(handle)
            throw error
        }
    }

    /// A connection whose statements run on `database` (see
    /// `ForeignDatabase`); the SQLite database it opens is a private
    /// in-memory one that only carries values.
    /// - Throws: `SQLiteError` when SQLite cannot open its in-memory database.
    package init(foreign database: any ForeignDatabase) throws(SQLiteError) {
        handle = try Connection.open(":memory:", flags: SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE, path: database.displayName)
        foreign = database
        isForeign = true
        path = database.displayName
        immutableReason = nil
    }

    private static func open(_ location: String, flags: Int32, path: String) throws(SQLiteError) -> OpaquePointer {
        var handle: OpaquePointer?
        let code = sqlite3_open_v2(location, &handle, flags, nil)
        guard code == SQLITE_OK, let handle else {
            let error = makeError(code, handle, sql: nil, path: path)
            // sqlite3_open_v2 allocates a handle even when it fails; it must be closed.
            sqlite3_close_v2(handle)
            throw error
        }
        return handle
    }

    /// False when a first read fails because SQLite cannot open or write
    /// what a reader needs (`SQLITE_CANTOPEN`, `SQLITE_READONLY`: the `-shm`
    /// index of a WAL file). Any other failure (not a database, a lock) is
    /// left for the reads that follow to report.
    private static func canRead(_ handle: OpaquePointer) -> Bool {
        let code = sqlite3_exec(handle, "SELECT count(*) FROM sqlite_schema", nil, nil, nil) & 0xFF
        return code != SQLITE_CANTOPEN && code != SQLITE_READONLY
    }

    deinit {
        // Statements must be finalized before the connection closes.
        statementCache.removeAll()
        valueStatements.removeAll()
        rollbackStatement = nil
        sqlite3_close_v2(handle)
    }

    private func configure(forWrites: Bool) throws(SQLiteError) {
        // A store may come from anywhere: an operator's copy, an attachment.
        // Defensive mode forbids writes that corrupt the file on purpose
        // (writable_schema, direct page writes), and with trusted_schema off a
        // view or trigger in the file cannot call functions with side effects.
        try check(modelstore_db_config_flag(handle, SQLITE_DBCONFIG_DEFENSIVE, 1), handle, path: path)
        try check(modelstore_db_config_flag(handle, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0), handle, path: path)
        // trusted_schema does not stop a trigger's plain statements: an
        // AFTER INSERT trigger planted in a file would run on our own saves.
        // ModelStore makes no triggers or views, so none may run on its
        // connections. (Opening also refuses a file that holds any: see
        // SchemaAudit; this is the second wall.)
        try check(modelstore_db_config_flag(handle, SQLITE_DBCONFIG_ENABLE_TRIGGER, 0), handle, path: path)
        try check(modelstore_db_config_flag(handle, SQLITE_DBCONFIG_ENABLE_VIEW, 0), handle, path: path)
        // Two contexts on one file write in turn: wait up to 5 s for the other's
        // transaction instead of failing at once with SQLITE_BUSY.
        try check(sqlite3_busy_timeout(handle, 5_000), handle, path: path)
        // A watcher only reads: foreign keys, like synchronous below, are
        // settings for writes.
        guard forWrites else { return }
        try execute("PRAGMA foreign_keys = ON")
        // synchronous is a setting of each connection, not of the file. With
        // WAL, NORMAL is durable across application crashes (not across a
        // power loss during the last commit) and far faster than FULL.
        try execute("PRAGMA synchronous = NORMAL")
    }

    /// Switches the file to WAL, which lets readers run while a context
    /// saves. The journal mode is stored in the file, so once is enough.
    /// - Throws: `SQLiteError` when the file cannot change its journal mode.
    func enableWriteAheadLog() throws(SQLiteError) {
        try execute("PRAGMA journal_mode = WAL")
    }

    // MARK: Statements

    /// Runs SQL text that may hold several statements and binds nothing.
    /// - Throws: `SQLiteError` naming the SQL.
    package func execute(_ sql: String) throws(SQLiteError) {
        if isInAbandonedTransaction { try rollBack() }
        statementDidStart(sql)
        if isForeign, let foreign { return try foreign.execute(sql) }
        var message: UnsafeMutablePointer<CChar>?
        let code = sqlite3_exec(handle, sql, nil, nil, &message)
        if let message { sqlite3_free(message) }
        try check(code, handle, sql: sql, path: path)
    }

    /// Returns the cached prepared statement for this SQL, preparing it on
    /// first use. The statement is reset and its bindings cleared. While the
    /// cached one is still stepping (a query that runs again inside its own
    /// loop, as loading nested relationships does), a new one is prepared.
    /// - Throws: `SQLiteError` when the SQL does not compile.
    package func cachedStatement(_ sql: String) throws(SQLiteError) -> Statement {
        if isInAbandonedTransaction { try rollBack() }
        if let statement = statementCache[sql] {
            if statement.isRunning { return try Statement(connection: self, sql: sql) }
            statement.reset()
            return statement
        }
        let statement = try Statement(connection: self, sql: sql)
        statementCache[sql] = statement
        return statement
    }

    /// `cachedStatement(_:)` for a caller that keeps the statement it is
    /// given in `kept`: the next call returns that one without looking its
    /// text up (a hash of the whole text), unless it is still stepping.
    /// `kept` must only ever hold statements of this connection.
    /// - Throws: `SQLiteError` when the SQL does not compile.
    package func cachedStatement(_ sql: String, keptIn kept: inout Statement?) throws(SQLiteError) -> Statement {
        if let statement = kept, !statement.isRunning, !isInAbandonedTransaction {
            statement.reset()
            return statement
        }
        let statement = try cachedStatement(sql)
        kept = statement
        return statement
    }

    /// A cached statement that only computes with the values bound to it
    /// (`SELECT ?1 IS ?2`, `SELECT ?1`), prepared on this connection's own
    /// SQLite database, never on a foreign one: values are compared and
    /// converted as SQLite stores them (a conflict check compares the value
    /// an object loaded with the stored one; the history reads a kept value
    /// back through its type's reader), whichever database holds the store.
    /// A server would type an unknown parameter as text, or refuse `IS`.
    /// - Throws: `SQLiteError` when SQLite cannot prepare `sql`.
    package func valueStatement(_ sql: String) throws(SQLiteError) -> Statement {
        if let statement = valueStatements[sql], !statement.isRunning {
            statement.reset()
            return statement
        }
        let statement = try Statement(connection: self, sql: sql, onSQLiteItself: true)
        valueStatements[sql] = statement
        return statement
    }

    /// Prepares a statement that is not cached, for SQL that runs once.
    /// - Throws: `SQLiteError` when the SQL does not compile.
    package func prepare(_ sql: String) throws(SQLiteError) -> Statement {
        if isInAbandonedTransaction { try rollBack() }
        return try Statement(connection: self, sql: sql)
    }

    func statementDidStart(_ sql: String) {
        statementObserver?(sql)
    }

    /// The key of the row the last successful INSERT added.
    package var lastInsertRowID: Int64 {
        if isForeign { return foreignState.lastInsertRowID }
        return sqlite3_last_insert_rowid(handle)
    }

    /// The number of rows the last INSERT, UPDATE or DELETE changed.
    package var changes: Int {
        if isForeign { return foreignState.changes }
        return Int(sqlite3_changes64(handle))
    }

    /// True while `withReadSnapshot` holds its read transaction open.
    private(set) var isHoldingReadSnapshot = false

    /// True outside any transaction (SQLite's autocommit mode).
    var isAutocommit: Bool {
        if isForeign { return foreignState.isAutocommit }
        return sqlite3_get_autocommit(handle) != 0
    }

    /// The foreign database's answers, out of line: the getters above are
    /// inlined into a save's per-row code, which must stay as small as it
    /// was on SQLite.
    @inline(never)
    private var foreignState: (changes: Int, lastInsertRowID: Int64, isAutocommit: Bool) {
        guard let foreign else { return (0, 0, true) }
        return (foreign.changes, foreign.lastInsertRowID, foreign.isAutocommit)
    }

    /// Whether SQLite has parsed the database's schema on this connection
    /// (it does at the first statement that needs it); for tests of the
    /// watcher, which is opened without parsing it.
    var hasParsedSchema: Bool {
        var used: Int32 = 0
        var highwater: Int32 = 0
        sqlite3_db_status(handle, SQLITE_DBSTATUS_SCHEMA_USED, &used, &highwater, 0)
        return used > 0
    }

    /// True when no statement of the connection is between its first step
    /// and its reset: such a statement keeps a read transaction open even
    /// in autocommit mode, pinning the connection to an old snapshot.
    var isIdle: Bool {
        guard isAutocommit else { return false }
        var statement = sqlite3_next_stmt(handle, nil)
        while let current = statement {
            if sqlite3_stmt_busy(current) != 0 { return false }
            statement = sqlite3_next_stmt(handle, current)
        }
        return true
    }

    // MARK: Transactions

    /// Runs `body` in one `BEGIN IMMEDIATE` transaction: commits when it
    /// returns, rolls back when it throws.
    ///
    /// IMMEDIATE takes the write lock at once. With a DEFERRED transaction two
    /// contexts could both read, then both try to write, and one would fail
    /// with SQLITE_BUSY in the middle of its save instead of waiting.
    ///
    /// Inside a transaction already (a save from a migration's custom
    /// stage, which runs in the migration's transaction), it runs `body` in
    /// a savepoint instead, so that the outer transaction decides.
    /// - Throws: whatever `body` throws, or `SQLiteError` from BEGIN or COMMIT.
    ///
    /// Inside a read snapshot (`withReadSnapshot`), the snapshot's read
    /// transaction ends first, the write commits on its own, and a new
    /// snapshot begins after it: a save is never held back until a block of
    /// reads ends.
    package func transaction<T>(_ body: () throws -> T) throws -> T {
        if isHoldingReadSnapshot { return try endingReadSnapshot { try transaction(body) } }
        if isInAbandonedTransaction { try rollBack() }
        if !isAutocommit { return try savepoint("modelstore_nested", body) }
        if rollbackStatement == nil { rollbackStatement = try Statement(connection: self, sql: "ROLLBACK TRANSACTION") }
        try execute("BEGIN IMMEDIATE TRANSACTION")
        let result: T
        do {
            result = try body()
            try execute("COMMIT TRANSACTION")
        } catch {
            rollbackIfNeeded()
            throw error
        }
        return result
    }

    /// Runs `body` in one read transaction (`BEGIN DEFERRED`, which takes its
    /// snapshot at the first read): its reads see one state of the store and
    /// pay for one transaction, not one per statement. Nested, or inside a
    /// write transaction, it just runs `body`.
    /// - Throws: whatever `body` throws, or `SQLiteError` from BEGIN.
    package func withReadSnapshot<T>(_ body: () throws -> T) throws -> T {
        if isInAbandonedTransaction { try rollBack() }
        guard isAutocommit else { return try body() }
        try execute("BEGIN DEFERRED TRANSACTION")
        isHoldingReadSnapshot = true
        defer {
            if isHoldingReadSnapshot {
                isHoldingReadSnapshot = false
                // Nothing was written in it, so ending it cannot lose data;
                // if COMMIT fails, ROLLBACK ends it all the same.
                if (try? execute("COMMIT TRANSACTION")) == nil { rollbackIfNeeded() }
            }
        }
        return try body()
    }

    private func endingReadSnapshot<T>(_ write: () throws -> T) throws -> T {
        try execute("COMMIT TRANSACTION")
        isHoldingReadSnapshot = false
        defer {
            // Should the new snapshot fail to begin, the rest of the block
            // reads statement by statement: still right, only not one snapshot.
            if (try? execute("BEGIN DEFERRED TRANSACTION")) != nil { isHoldingReadSnapshot = true }
        }
        return try write()
    }

    /// Runs `body` inside a savepoint, which nests inside a transaction: on an
    /// error only the savepoint's work is undone.
    /// - Throws: whatever `body` throws, or `SQLiteError`.
    func savepoint<T>(_ name: String, _ body: () throws -> T) throws -> T {
        let quoted = quoteIdentifier(name)
        try execute("SAVEPOINT \(quoted)")
        do {
            let result = try body()
            try execute("RELEASE SAVEPOINT \(quoted)")
            return result
        } catch {
            // ROLLBACK TO undoes the work but keeps the savepoint open; RELEASE closes it.
            try? execute("ROLLBACK TO SAVEPOINT \(quoted)")
            try? execute("RELEASE SAVEPOINT \(quoted)")
            throw error
        }
    }

    private func rollbackIfNeeded() {
        // After some errors (SQLITE_FULL, SQLITE_IOERR, …) SQLite has already
        // rolled back on its own; a second ROLLBACK would fail.
        guard !isAutocommit else { return }
        _ = try? rollBack()
    }

    /// Rolls back the open transaction, with the statement compiled for it
    /// when there is one. Also what every use of a connection left in an
    /// abandoned transaction runs first. While the transaction stays open
    /// (the rollback failed), the connection is marked so that nothing runs
    /// in it.
    /// - Throws: `SQLiteError` when the transaction is still open.
    private func rollBack() throws(SQLiteError) {
        var failure: SQLiteError?
        do {
            if let rollbackStatement {
                rollbackStatement.reset()
                try rollbackStatement.run()
            } else {
                statementDidStart("ROLLBACK TRANSACTION")
                if let foreign {
                    try foreign.execute("ROLLBACK TRANSACTION")
                } else {
                    try check(sqlite3_exec(handle, "ROLLBACK TRANSACTION", nil, nil, nil), handle, sql: "ROLLBACK TRANSACTION", path: path)
                }
            }
        } catch {
            failure = error
        }
        isInAbandonedTransaction = !isAutocommit
        if isInAbandonedTransaction {
            throw failure ?? SQLiteError(extendedCode: SQLITE_ERROR, message: "the transaction is still open", sql: "ROLLBACK TRANSACTION", path: path)
        }
    }
}

/// Quotes an SQL identifier (a table or column name) so that any name, even
/// one with quotes or spaces, is read as a name and never as SQL.
package func quoteIdentifier(_ name: String) -> String {
    // Most names hold no quote; `replacingOccurrences` goes through NSString
    // even then, and opening a store quotes every table and column name.
    guard name.utf8.contains(UInt8(ascii: "\"")) else { return "\"" + name + "\"" }
    return "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
}
