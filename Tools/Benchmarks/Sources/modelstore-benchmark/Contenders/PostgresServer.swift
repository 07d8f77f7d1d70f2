import Foundation
import PostgresNIO

/// The PostgreSQL server of `--postgres URL`: connections for the raw
/// postgres-nio contender and the fixtures, and a fresh schema per round.
///
/// Everything here is synchronous, as the harness is: each statement goes
/// through postgres-nio's `EventLoopFuture` API and the calling thread
/// waits for its answer, as ModelStore's PostgreSQL executor does, so both
/// contenders pay the same hand-off to NIO's thread per statement.
struct PostgresServer: Sendable {
    /// The URL as given, for `PostgresConfiguration`.
    let url: String
    private let configuration: PostgresConnection.Configuration

    /// The server at `url`: `postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE`.
    /// - Throws: `Options.UsageError` naming what is wrong with the URL, and
    ///   for a host other than loopback without `sslmode=disable`: the raw
    ///   contender connects without TLS, where ModelStore would require it,
    ///   and the two would not do the same work.
    init(url: String) throws {
        func refuse(_ reason: String) -> Options.UsageError {
            Options.UsageError(description: "--postgres \(Self.redacted(url)): \(reason)")
        }
        guard let components = URLComponents(string: url), ["postgres", "postgresql"].contains(components.scheme ?? "")
        else { throw refuse("not a postgres:// URL") }
        guard let host = components.host, !host.isEmpty else { throw refuse("no host") }
        guard let user = components.user, !user.isEmpty else { throw refuse("no user") }
        let database = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        guard !database.isEmpty else { throw refuse("no database") }
        let sslMode = components.queryItems?.first { $0.name == "sslmode" }?.value
        let loopback = ["127.0.0.1", "::1", "[::1]", "localhost"].contains(host)
        guard loopback || sslMode == "disable" else {
            throw refuse("the raw contender connects without TLS: give a loopback host or ?sslmode=disable")
        }
        self.url = url
        configuration = PostgresConnection.Configuration(
            host: host, port: components.port ?? 5432, username: user, password: components.password,
            database: database, tls: .disable)
    }

    /// The URL without its password, for messages.
    static func redacted(_ url: String) -> String {
        guard var components = URLComponents(string: url), components.password != nil else { return url }
        components.password = "***"
        return components.string ?? "the URL"
    }

    /// A new connection; close it with `close(_:)`.
    /// - Throws: `CheckFailure` naming the server and why it refused or
    ///   could not be reached.
    func connect() throws -> PostgresConnection {
        do {
            return try PostgresConnection.connect(
                on: MultiThreadedEventLoopGroup.singleton.any(), configuration: configuration, id: 1, logger: Self.logger
            ).wait()
        } catch let error as PSQLError {
            // PSQLError's description hides its details; the server's
            // message or the transport's error is what a reader needs.
            let reason = error.serverInfo?[.message] ?? error.underlying.map { "\($0)" } ?? "\(error.code)"
            throw CheckFailure(description: "cannot connect to \(Self.redacted(url)): \(reason)")
        }
    }

    /// Closes a connection (postgres-nio requires it before the connection goes).
    func close(_ connection: PostgresConnection) {
        try? connection.close().wait()
    }

    /// Runs one statement and returns its rows, all read.
    /// - Throws: the server's error, naming the statement.
    @discardableResult
    static func query(_ connection: PostgresConnection, _ sql: String, _ binds: PostgresBindings = PostgresBindings()) throws
        -> PostgresQueryResult
    {
        do {
            return try connection.query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: logger).wait()
        } catch let error as PSQLError {
            let message = error.serverInfo?[.message] ?? "\(error.code)"
            throw CheckFailure(description: "PostgreSQL: \(message), in \(sql)")
        }
    }

    /// Creates a schema of its own for one contender's round, dropped (with
    /// everything in it) when `scratch` is removed, and returns its name.
    /// - Throws: the server's error.
    func makeSchema(removedWith scratch: Scratch) throws -> String {
        let name = "modelstore_bench_" + UUID().uuidString.lowercased().replacing("-", with: "")
        let connection = try connect()
        defer { close(connection) }
        try Self.query(connection, #"CREATE SCHEMA "\#(name)""#)
        scratch.atRemoval { [self] in
            guard let connection = try? connect() else { return }
            defer { close(connection) }
            _ = try? Self.query(connection, #"DROP SCHEMA "\#(name)" CASCADE"#)
        }
        return name
    }

    /// A connection whose unqualified names resolve to `schema`.
    func connect(schema: String) throws -> PostgresConnection {
        let connection = try connect()
        do {
            var binds = PostgresBindings()
            binds.append(#""\#(schema)""#)
            try Self.query(connection, "SELECT set_config('search_path', $1, false)", binds)
        } catch {
            close(connection)
            throw error
        }
        return connection
    }

    /// A connection to `schema`, as `connect(schema:)`, closed when
    /// `scratch` is removed (before the schema is dropped).
    func connect(schema: String, closedWith scratch: Scratch) throws -> PostgresConnection {
        let connection = try connect(schema: schema)
        scratch.atRemoval { [self] in close(connection) }
        return connection
    }

    /// The time of one `SELECT 1` from sending it to its answer, on one
    /// connection: the median over `loops` loops of `statements` each.
    /// - Throws: the server's error.
    func roundTripSeconds(statements: Int = 1_000, loops: Int = 7) throws -> Double {
        let connection = try connect()
        defer { close(connection) }
        try Self.query(connection, "SELECT 1")
        var perStatement: [Double] = []
        for _ in 0..<loops {
            let start = monotonicSeconds()
            for _ in 0..<statements { try Self.query(connection, "SELECT 1") }
            perStatement.append((monotonicSeconds() - start) / Double(statements))
        }
        return median(perStatement)
    }

    /// postgres-nio's logger; it logs nothing below critical (ModelStore's
    /// executor logs nothing at all), so that neither contender pays for logs.
    private static let logger: Logger = {
        var logger = Logger(label: "modelstore-benchmark")
        logger.logLevel = .critical
        return logger
    }()
}
