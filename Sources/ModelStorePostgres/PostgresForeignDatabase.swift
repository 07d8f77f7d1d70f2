import Foundation
import ModelStore
import PostgresNIO

/// A PostgreSQL session behind the library's backend seam
/// (`ForeignDatabase`): the statements a `Connection` runs go to the server
/// through a `PostgresExecutor`, with the values crossing as SQLite's.
///
/// The SQL is translated by `PostgresSQLTranslator` (once per statement
/// text); the transaction statements the library sends run through the
/// executor (`BEGIN IMMEDIATE TRANSACTION` takes the store's writer lock,
/// as IMMEDIATE takes SQLite's write lock at once, then begins a
/// repeatable-read transaction: with one writer at a time, SERIALIZABLE's
/// predicate locks would cost every row read and prevent nothing;
/// `BEGIN DEFERRED TRANSACTION` a repeatable-read one, one snapshot for a
/// block of reads). Parameters are sent as text of no declared type, so
/// that the server types each from its place in the statement (a `1` into
/// a boolean column, a UUID's text into a uuid one, a Decimal's text into
/// numeric), as SQLite's loose typing lets the library assume; blobs are
/// bytea. A save's rows are held back and sent many a statement, as typed
/// arrays (PostgresForeignDatabase+DeferredWrites.swift). Results come
/// back by storage class, errors as SQLite's codes.
package final class PostgresForeignDatabase: ForeignDatabase {
    /// Where this session's executors come from: one of its own, or a pool
    /// it borrows from for each transaction (or statement outside one), so
    /// that a `Connection` that lives long (a context whose objects are
    /// still held) keeps no PostgreSQL connection while it does nothing.
    private enum Source {
        case own(PostgresExecutor)
        case pool(PostgresConnectionPool)
    }

    private let source: Source
    /// Runs on each executor borrowed from the pool, before its first
    /// statement (the store registers it as the container's own session).
    package var didBorrow: (PostgresExecutor) throws -> Void = { _ in }
    /// The executor borrowed from the pool, while a transaction (or the
    /// writer lock) needs it; always the own executor for `.own`.
    private var borrowed: PostgresExecutor?
    package let displayName: String
    /// The translations of the library's SQL, shared with the container's
    /// other sessions; replaced once the store's tables are known
    /// (`PostgresStore`'s bootstrap).
    package var translations: PostgresTranslationCache {
        didSet { lastTranslation = nil }
    }
    /// Translates the library's SQL.
    package var translator: PostgresSQLTranslator { translations.translator }
    /// The store's change listener, once the store is open: `PRAGMA
    /// data_version` answers its count of other servers' commits (as
    /// SQLite's moves for other connections' commits), and a transaction
    /// that wrote notifies its channel at COMMIT (see `PostgresStore`).
    package var listener: PostgresChangeListener?
    private var lastChanges = 0
    private var lastRowID: Int64 = 0
    private var holdsWriterLock = false
    /// True once the open transaction ran an INSERT, UPDATE or DELETE.
    private var wroteInTransaction = false
    /// The last statement's translation, held by reference: a save runs one
    /// statement many times in a row, and each run reads it without copying
    /// it (a copy retains and releases each of its references).
    private final class LastTranslation {
        let sql: String
        let translation: PostgresSQLTranslator.Translation

        init(sql: String, translation: PostgresSQLTranslator.Translation) {
            self.sql = sql
            self.translation = translation
        }
    }
    private var lastTranslation: LastTranslation?
    /// The result of a statement without rows, shared: it holds nothing.
    private let noRows = BufferedForeignRows(columnNames: [], rows: [])
    /// The writes held back in the open transaction, once the save asked
    /// for it (see PostgresForeignDatabase+DeferredWrites.swift).
    var deferral: PostgresWriteDeferral?
    /// The rows held back now, for tests.
    package var heldRowCount: Int { deferral?.batches.reduce(0) { $0 + $1.count } ?? 0 }
    /// The statements this session sent to the server (a batched write's
    /// rows in one), for tests that check how many round trips a save takes.
    package internal(set) var statementsSent = 0
    /// The most rows one batched statement carries (see
    /// PostgresForeignDatabase+DeferredWrites.swift); tests lower it.
    package var rowsPerStatement = Int.max

    /// A session on `executor`'s connection, for as long as it lives.
    package init(executor: PostgresExecutor, translator: PostgresSQLTranslator = PostgresSQLTranslator(keyColumns: [:])) {
        source = .own(executor)
        borrowed = executor
        translations = PostgresTranslationCache(translator: translator)
        displayName = executor.location.description
    }

    /// A session that borrows an executor from `pool` for each transaction
    /// and each statement outside one, and gives it back as soon as it is
    /// done; `didBorrow` runs on each executor borrowed.
    package init(
        pool: PostgresConnectionPool, translations: PostgresTranslationCache,
        didBorrow: @escaping (PostgresExecutor) throws -> Void = { _ in }
    ) {
        source = .pool(pool)
        self.didBorrow = didBorrow
        self.translations = translations
        displayName = pool.location.description
    }

    deinit {
        releaseWriterLock()
        if case .pool(let pool) = source, let borrowed { pool.checkin(borrowed) }
    }

    /// The executor for the next statement: the one held, or one borrowed.
    func executor() throws(PostgresStoreError) -> PostgresExecutor {
        if let borrowed { return borrowed }
        guard case .pool(let pool) = source else { preconditionFailure("an own executor is always held") }
        let executor = try pool.checkout()
        do {
            try didBorrow(executor)
        } catch {
            pool.checkin(executor)
            throw PostgresStoreError.classify(error, statement: "registering the session")
        }
        borrowed = executor
        return executor
    }

    /// Gives a borrowed executor back once no transaction or lock needs it.
    private func giveBackIfIdle() {
        guard case .pool(let pool) = source, let executor = borrowed, !executor.isInTransaction, !holdsWriterLock else { return }
        borrowed = nil
        pool.checkin(executor)
    }

    /// Runs `body` with an executor of this session (the bootstrap's
    /// statements), given back afterwards when borrowed.
    /// - Throws: what borrowing or `body` throws.
    package func withExecutor<T>(_ body: (PostgresExecutor) throws -> T) throws -> T {
        defer { giveBackIfIdle() }
        return try body(try executor())
    }

    package var isAutocommit: Bool { !(borrowed?.isInTransaction ?? false) }
    package var changes: Int { lastChanges }
    package var lastInsertRowID: Int64 { lastRowID }

    package func run(_ sql: String, parameters: [SQLiteValue]) throws(SQLiteError) -> any ForeignRows {
        // The library also prepares ROLLBACK as a statement, so that rolling
        // back never needs memory to compile SQL.
        if parameters.isEmpty, try controlTransaction(sql) { return BufferedForeignRows(columnNames: [], rows: []) }
        let translated = try translation(of: sql)
        if translated.translation.isDataVersion {
            return BufferedForeignRows(columnNames: ["data_version"], rows: [[.integer(listener?.changeCount ?? 0)]])
        }
        if translated.translation.writes && (borrowed?.isInTransaction ?? false) { wroteInTransaction = true }
        if deferral != nil {
            if let batch = translated.translation.batch, let key = holdBack(batch, parameters: parameters) {
                lastChanges = 1
                if let key { lastRowID = key }
                return noRows
            }
            // Whatever runs next sees the writes held before it.
            try sendHeldWrites()
        }
        var binds = PostgresBindings(capacity: parameters.count)
        for value in parameters {
            switch value {
            case .null: binds.appendNull()
            case .integer(let integer): binds.append(UntypedParameter(text: String(integer)))
            case .real(let real): binds.append(UntypedParameter(text: Self.text(of: real)))
            case .text(let text):
                guard !text.utf8.contains(0) else {
                    throw SQLiteError(
                        extendedCode: SQLiteError.error,
                        message: Self.nulMessage,
                        sql: sql)
                }
                binds.append(UntypedParameter(text: text))
            case .blob(let data): binds.append(ByteBuffer(bytes: data))
            }
        }
        let result: PostgresExecutor.Result
        do {
            defer { giveBackIfIdle() }
            statementsSent += 1
            result = try translated.translation.upsertRetargets.isEmpty
                ? executor().execute(translated.translation.sql, binds) : executeUpsert(translated.translation, binds)
        } catch {
            throw Self.sqliteError(error, sql: sql)
        }
        lastChanges = result.affectedRows
        if translated.translation.returnedKey != nil {
            if let cell = result.rows.first?.first, case .integer(let key) = try PostgresResultRows.value(of: cell, sql: sql) { lastRowID = key }
            return BufferedForeignRows(columnNames: [], rows: [])
        }
        return PostgresResultRows(result.rows, sql: sql)
    }

    /// Runs an upsert into a table with several UNIQUE constraints: first
    /// targeting the first constraint, then, while the row collides with
    /// another constraint not yet targeted, again targeting that one, as
    /// SQLite's upsert updates the row of whichever constraint the new row
    /// collides with. A row that collides with two rows (one by each
    /// constraint) fails as on SQLite. Inside a transaction each attempt
    /// runs in a savepoint, so a failed one leaves the transaction usable.
    /// - Throws: `PostgresStoreError` of the last attempt.
    private func executeUpsert(
        _ translation: PostgresSQLTranslator.Translation, _ binds: PostgresBindings
    ) throws -> PostgresExecutor.Result {
        let executor = try executor()
        var text = translation.sql
        var targeted: Set<String> = []
        while true {
            do {
                if !executor.isInTransaction { return try executor.execute(text, binds) }
                return try executor.savepoint { try executor.execute(text, binds) }
            } catch PostgresStoreError.uniqueViolation(let constraint?, let message, let statement) {
                guard let retargeted = translation.upsertRetargets[constraint], targeted.insert(constraint).inserted else {
                    throw PostgresStoreError.uniqueViolation(constraint: constraint, message: message, statement: statement)
                }
                text = retargeted
            }
        }
    }

    /// The translation of `sql`, made once per text.
    private func translation(of sql: String) throws(SQLiteError) -> LastTranslation {
        // A save runs one statement many times in a row, with the same
        // String: comparing it is cheaper than hashing it.
        if let last = lastTranslation, last.sql == sql { return last }
        let last = LastTranslation(sql: sql, translation: try translations.translation(of: sql))
        lastTranslation = last
        return last
    }

    /// The store's writer lock, as SQLite's `BEGIN IMMEDIATE` takes its
    /// write lock: one writing transaction at a time per store (PostgreSQL
    /// schema), on every server, so that history tokens are issued in
    /// commit order and a save's conflict check reads what the previous
    /// save committed. It is a session-level advisory lock taken before the
    /// transaction begins: taken inside, the transaction's snapshot would
    /// predate the previous writer's commit. It waits at
    /// most 5 seconds, SQLite's busy timeout, then fails as busy; the server
    /// drops it with a lost connection.
    private func takeWriterLock() throws(PostgresStoreError) {
        _ = try executor().execute(
            "SELECT pg_advisory_lock(hashtext('modelstore.writer'), hashtext(current_schema())) "
                + "FROM (SELECT set_config('lock_timeout', '5s', false)) AS timeout")
        holdsWriterLock = true
    }

    private func releaseWriterLock() {
        guard holdsWriterLock else { return }
        holdsWriterLock = false
        _ = try? borrowed?.execute("SELECT pg_advisory_unlock(hashtext('modelstore.writer'), hashtext(current_schema()))")
    }

    /// Why a text value holding NUL is refused.
    static let nulMessage = "a value holds the NUL character (U+0000), which PostgreSQL text cannot store; nothing was sent"

    /// A Double as PostgreSQL's float input reads it back exactly: Swift's
    /// shortest round-trip digits, and PostgreSQL's names for infinities.
    static func text(of real: Double) -> String {
        if real == .infinity { return "Infinity" }
        if real == -.infinity { return "-Infinity" }
        if real.isNaN { return "NaN" }
        return real.description
    }

    package func execute(_ sql: String) throws(SQLiteError) {
        if try controlTransaction(sql) { return }
        try sendHeldWrites()
        do {
            defer { giveBackIfIdle() }
            lastChanges = try executor().execute(sql).affectedRows
        } catch {
            throw Self.sqliteError(error, sql: sql)
        }
    }

    /// Runs one of the transaction statements the library sends, through
    /// the executor's own begin, commit and rollback; false for other SQL.
    private func controlTransaction(_ sql: String) throws(SQLiteError) -> Bool {
        do {
            defer { giveBackIfIdle() }
            switch sql {
            case "BEGIN IMMEDIATE TRANSACTION":
                try takeWriterLock()
                do {
                    try executor().begin(isolation: .repeatableRead)
                } catch {
                    releaseWriterLock()
                    throw error
                }
            case "BEGIN DEFERRED TRANSACTION": try executor().begin(isolation: .repeatableRead)
            case "COMMIT TRANSACTION":
                defer {
                    releaseWriterLock()
                    wroteInTransaction = false
                    deferral = nil
                }
                try sendHeldWritesBeforeCommit()
                // Delivered at COMMIT, to every other server's listener.
                if wroteInTransaction, let listener { try executor().notify(channel: listener.channel, payload: "") }
                try executor().commit()
            case "ROLLBACK TRANSACTION":
                deferral = nil
                borrowed?.rollback()
                releaseWriterLock()
                wroteInTransaction = false
            default: return false
            }
        } catch {
            throw Self.sqliteError(error, sql: sql)
        }
        return true
    }

    /// `error` with the SQLite code the library classifies its kind by.
    static func sqliteError(_ error: any Error, sql: String) -> SQLiteError {
        if let error = error as? SQLiteError { return error }
        guard let error = error as? PostgresStoreError else {
            return SQLiteError(extendedCode: SQLiteError.error, message: "\(error)", sql: sql)
        }
        let code: Int32
        switch error {
        case .uniqueViolation: code = 2067  // SQLITE_CONSTRAINT_UNIQUE
        case .foreignKeyViolation: code = SQLiteError.foreignKeyConstraint
        case .serializationFailure, .busy: code = SQLiteError.busy
        case .connectionLost: code = 10  // SQLITE_IOERR
        case .calledOnEventLoop: code = 21  // SQLITE_MISUSE
        case .invalidURL, .connectionFailed: code = SQLiteError.cannotOpen
        case .server(let sqlState, _, _):
            // The rest of PostgreSQL's integrity class (23…) as SQLite's
            // constraint codes, so that an app's check of `primaryCode`
            // against `SQLiteError.constraint` answers the same on both.
            switch sqlState {
            case "23502": code = 1299  // SQLITE_CONSTRAINT_NOTNULL
            case "23514": code = 275  // SQLITE_CONSTRAINT_CHECK
            case _ where sqlState.hasPrefix("23"): code = SQLiteError.constraint
            default: code = SQLiteError.error
            }
        }
        return SQLiteError(extendedCode: code, message: error.summary, sql: sql, origin: error.origin)
    }
}
