import Foundation
import Logging
import ModelStore
import PostgresNIO

/// Runs SQL on one PostgreSQL connection, synchronously.
///
/// ModelContext's API is synchronous (SwiftData's), so the backend under it
/// is too: each call sends its statement through postgres-nio's
/// `EventLoopFuture` API and waits for the answer on the calling thread.
/// That thread must not be a SwiftNIO event loop's (the loop would wait for
/// itself): such a call throws `PostgresStoreError.calledOnEventLoop`.
/// Waiting here blocks only the calling thread while a NIO thread does the
/// I/O; no Swift concurrency task is awaited, so a busy cooperative pool
/// cannot deadlock it.
///
/// One executor holds one connection and is used by one thread at a time
/// (it is not `Sendable`); `PostgresConnectionPool` hands executors to
/// several contexts. When the connection is lost (the server restarted, an
/// administrator ended the session), the call that noticed throws
/// `.connectionLost`, and the next call connects again; a transaction that
/// was open is gone, and is never silently continued on the new connection.
///
/// ```swift
/// let executor = try PostgresExecutor(location: PostgresLocation(url: url))
/// try executor.transaction(isolation: .serializable) {
///     var binds = PostgresBindings()
///     binds.append("Lisbon")
///     try executor.execute(#"INSERT INTO "Trip" ("name") VALUES ($1)"#, binds)
/// }
/// ```
package final class PostgresExecutor {
    /// A transaction's isolation level, as PostgreSQL names it.
    package enum IsolationLevel: String, Sendable, CaseIterable {
        /// Each statement sees what was committed before it began.
        case readCommitted = "READ COMMITTED"
        /// The transaction sees one snapshot; a conflicting write fails it.
        case repeatableRead = "REPEATABLE READ"
        /// As if the transactions ran one after another; one that cannot be
        /// fails with `PostgresStoreError.serializationFailure`.
        case serializable = "SERIALIZABLE"
    }

    /// The rows a statement returned, and how many rows it affected (the
    /// count in its command tag: rows inserted, updated, deleted or
    /// selected).
    package struct Result {
        /// The rows, all read.
        package var rows: [PostgresRow]
        /// The count of the command tag (0 for a command without one).
        package var affectedRows: Int
    }

    /// Where the executor connects.
    package let location: PostgresLocation
    /// The PostgreSQL schema that unqualified names resolve to (set as the
    /// session's `search_path` at every connect); nil for the server's
    /// default (`"$user", public`).
    package let schema: String?
    private let configuration: PostgresConnection.Configuration
    private var connection: PostgresConnection?
    private var connectionCount = 0
    /// Once set, runs after each connection the executor opens (in
    /// practice one replacing a lost connection, at the first use after
    /// the loss), with the new session's process ID, before the statement
    /// that needed it: a listener that ignores this executor's
    /// notifications must learn the new ID (see `PostgresStore`).
    package var didConnectAgain: ((_ sessionPID: Int32) -> Void)?
    /// Nil outside a transaction; true inside one whose connection was lost
    /// (nothing more may run in it, and it needs no ROLLBACK).
    private var transactionLost: Bool?
    private var savepointDepth = 0
    private let logger = Logger(label: "ModelStorePostgres", factory: { _ in SwiftLogNoOpLogHandler() })

    /// Connects to `location`.
    /// - Parameter schema: the PostgreSQL schema for unqualified names; it
    ///   must exist.
    /// - Throws: `PostgresStoreError.connectionFailed` or `.calledOnEventLoop`.
    package init(location: PostgresLocation, schema: String? = nil) throws(PostgresStoreError) {
        self.location = location
        self.schema = schema
        self.configuration = try location.connectionConfiguration()
        try connect(for: "connect")
    }

    deinit {
        // postgres-nio requires a connection to be closed before it goes.
        close()
    }

    /// Closes the connection; the next call connects again.
    package func close() {
        guard let connection else { return }
        self.connection = nil
        if MultiThreadedEventLoopGroup.currentEventLoop == nil {
            try? connection.close().wait()
        } else {
            // On an event loop (the executor's last reference dropped
            // there) nothing may wait: the closure keeps the connection
            // until it is closed, which postgres-nio requires before it
            // goes away.
            connection.close().whenComplete { _ in withExtendedLifetime(connection) {} }
        }
    }

    /// How many connections this executor has opened (1 until a lost
    /// connection was replaced).
    package var connectionsOpened: Int { connectionCount }

    /// Runs one statement with `binds` as its `$1`, `$2`… and returns its rows.
    /// - Throws: `PostgresStoreError`, naming the statement.
    @discardableResult
    package func execute(_ sql: String, _ binds: PostgresBindings = PostgresBindings()) throws(PostgresStoreError) -> Result {
        try checkThread(sql)
        if transactionLost == true {
            throw .connectionLost(statement: sql, reason: "the connection was lost earlier in this transaction")
        }
        let connection = try usableConnection(for: sql)
        do {
            let result = try Self.send(PostgresQuery(unsafeSQL: sql, binds: binds), on: connection, logger: logger).wait()
            return Result(rows: result.rows, affectedRows: result.metadata.rows ?? 0)
        } catch {
            let classified = PostgresStoreError.classify(error, statement: sql)
            if classified.losesConnection || connection.isClosed {
                close()
                if transactionLost != nil { transactionLost = true }
            }
            throw classified
        }
    }

    /// Runs `body` in a transaction: `BEGIN` with the isolation level,
    /// `COMMIT` when `body` returns, `ROLLBACK` when it throws (the error is
    /// rethrown). Transactions do not nest: use `savepoint` inside one.
    /// - Throws: what `body` throws, or `PostgresStoreError` from BEGIN or
    ///   COMMIT (a serialization failure at COMMIT, a deferred foreign key);
    ///   `.server` (SQLSTATE 25001) inside a transaction already.
    @discardableResult
    package func transaction<T>(isolation: IsolationLevel = .readCommitted, _ body: () throws -> T) throws -> T {
        try begin(isolation: isolation)
        let value: T
        do {
            value = try body()
        } catch {
            rollback()
            throw error
        }
        try commit()
        return value
    }

    /// True between `begin` and `commit` or `rollback`.
    package var isInTransaction: Bool { transactionLost != nil }

    /// Begins a transaction, for a caller whose transaction is not one
    /// closure (the backend seam's BEGIN and COMMIT statements); prefer
    /// `transaction(isolation:_:)`.
    /// - Throws: `PostgresStoreError` from BEGIN; `.server` inside a transaction.
    package func begin(isolation: IsolationLevel) throws(PostgresStoreError) {
        let sql = "BEGIN ISOLATION LEVEL \(isolation.rawValue)"
        guard transactionLost == nil else {
            throw .server(sqlState: "25001", message: "a transaction is already open", statement: sql)
        }
        try execute(sql)
        transactionLost = false
    }

    /// Commits the transaction `begin` opened; when COMMIT fails (a
    /// serialization failure, a deferred foreign key), rolls back.
    /// - Throws: `PostgresStoreError` from COMMIT.
    package func commit() throws(PostgresStoreError) {
        defer {
            transactionLost = nil
            savepointDepth = 0
        }
        do {
            try execute("COMMIT")
        } catch {
            if transactionLost == false { _ = try? execute("ROLLBACK") }
            throw error
        }
    }

    /// Rolls back the transaction `begin` opened; a transaction whose
    /// connection was lost is gone already.
    package func rollback() {
        if transactionLost == false { _ = try? execute("ROLLBACK") }
        transactionLost = nil
        savepointDepth = 0
    }

    /// Runs `body` inside a savepoint of the current transaction: released
    /// when `body` returns, rolled back to (undoing only `body`'s work,
    /// the transaction going on) when it throws.
    /// - Throws: what `body` throws, or `PostgresStoreError`; `.server`
    ///   (SQLSTATE 25P01) outside a transaction.
    @discardableResult
    package func savepoint<T>(_ body: () throws -> T) throws -> T {
        guard transactionLost != nil else {
            throw PostgresStoreError.server(sqlState: "25P01", message: "a savepoint needs a transaction", statement: "SAVEPOINT")
        }
        savepointDepth += 1
        defer { savepointDepth -= 1 }
        let name = "\"modelstore_savepoint_\(savepointDepth)\""
        try execute("SAVEPOINT \(name)")
        let value: T
        do {
            value = try body()
        } catch {
            if transactionLost == false { _ = try? execute("ROLLBACK TO SAVEPOINT \(name)") }
            throw error
        }
        try execute("RELEASE SAVEPOINT \(name)")
        return value
    }

    /// Sends `query` unless the connection is closed, deciding on the
    /// connection's event loop, where its state cannot change between the
    /// check and the write: postgres-nio never answers a query written to
    /// a channel that has already closed, so the wait would never end.
    private static func send(_ query: PostgresQuery, on connection: PostgresConnection, logger: Logger)
        -> EventLoopFuture<PostgresQueryResult>
    {
        connection.eventLoop.flatSubmit {
            guard !connection.isClosed else { return connection.eventLoop.makeFailedFuture(ConnectionClosed()) }
            return connection.query(query, logger: logger)
        }
    }

    /// The connection closed before a statement could be sent.
    struct ConnectionClosed: Error, CustomStringConvertible {
        var description: String { "the connection was closed before the statement was sent" }
    }

    private func checkThread(_ sql: String) throws(PostgresStoreError) {
        if MultiThreadedEventLoopGroup.currentEventLoop != nil { throw .calledOnEventLoop(statement: sql) }
    }

    private func usableConnection(for sql: String) throws(PostgresStoreError) -> PostgresConnection {
        if let connection, !connection.isClosed { return connection }
        if transactionLost != nil {
            close()
            transactionLost = true
            throw .connectionLost(statement: sql, reason: "the connection closed during the transaction")
        }
        try connect(for: sql)
        guard let connection else { throw .connectionFailed(location: location.description, reason: "no connection") }
        return connection
    }

    private func connect(for sql: String) throws(PostgresStoreError) {
        try checkThread(sql)
        close()
        connectionCount += 1
        let eventLoop = MultiThreadedEventLoopGroup.singleton.any()
        let connection: PostgresConnection
        do {
            connection = try PostgresConnection.connect(
                on: eventLoop, configuration: configuration, id: connectionCount, logger: logger
            ).wait()
        } catch {
            throw .connectionFailed(location: location.description, reason: Self.connectFailureReason(error))
        }
        self.connection = connection
        if let schema {
            var binds = PostgresBindings()
            binds.append(quoteIdentifier(schema))
            try prepareSession(PostgresQuery(unsafeSQL: "SELECT set_config('search_path', $1, false)", binds: binds), on: connection)
        }
        if let didConnectAgain {
            let rows = try prepareSession(PostgresQuery(unsafeSQL: "SELECT pg_backend_pid()"), on: connection).rows
            guard let pid = try? rows.first?.decode(Int32.self) else {
                close()
                throw .connectionFailed(location: location.description, reason: "pg_backend_pid() returned no integer")
            }
            didConnectAgain(pid)
        }
    }

    /// Runs one statement of a new session's setup; when it fails, the
    /// connection is closed and the connect fails naming it.
    @discardableResult
    private func prepareSession(_ query: PostgresQuery, on connection: PostgresConnection) throws(PostgresStoreError)
        -> PostgresQueryResult
    {
        do {
            return try Self.send(query, on: connection, logger: logger).wait()
        } catch {
            close()
            throw .connectionFailed(
                location: location.description,
                reason: "preparing the session failed: \(PostgresStoreError.classify(error, statement: query.sql))")
        }
    }

    /// The server's message when it refused the connection (a wrong
    /// password, an unknown database), else the transport's error.
    static func connectFailureReason(_ error: any Error) -> String {
        guard let error = error as? PSQLError else { return "\(error)" }
        if let info = error.serverInfo, let message = info[.message] {
            return "\(message) (SQLSTATE \(info[.sqlState] ?? "?"))"
        }
        return error.underlying.map { "\($0)" } ?? "\(error.code)"
    }
}
