import Foundation
import ModelStore
import ModelStorePostgres
import Testing

/// The PostgreSQL server the tests use: `MODELSTORE_POSTGRES_URL`, which
/// `.ci/run` exports after starting a throwaway cluster
/// (`.ci/postgres-cluster.sh`; source it and call `start_postgres_cluster`
/// to get one by hand).
///
/// Without the variable, the suites that need the server are disabled with
/// a reason, so that `swift test` passes on a machine without PostgreSQL;
/// in CI (`CI` set) they run and fail, saying that PostgreSQL was not
/// started: CI skips nothing.
enum PostgresTestDatabase {
    static let url = ProcessInfo.processInfo.environment["MODELSTORE_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }
    static let isInCI = ProcessInfo.processInfo.environment["CI"] != nil

    /// The condition of `.enabled(if:)` for the suites that need the server.
    static var isEnabled: Bool { url != nil || isInCI }
    static let disabledReason: Comment =
        "MODELSTORE_POSTGRES_URL is not set: source .ci/postgres-cluster.sh and run start_postgres_cluster"

    struct NotStarted: Error, CustomStringConvertible {
        var description: String {
            "CI is set but MODELSTORE_POSTGRES_URL is not: PostgreSQL was not started (see .ci/postgres-cluster.sh)"
        }
    }

    /// The server's location.
    /// - Throws: `NotStarted` in CI when the variable is not set.
    static func location() throws -> PostgresLocation {
        guard let url else { throw NotStarted() }
        return try PostgresLocation(url: url)
    }

    /// Runs `body` with a fresh, empty PostgreSQL schema (`test_<random>`),
    /// dropped with everything in it when `body` returns or throws.
    static func withSchema<T>(_ body: (TestSchema) throws -> T) throws -> T {
        let location = try location()
        let admin = try PostgresExecutor(location: location)
        let name = "test_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(16)
        try admin.execute("CREATE SCHEMA \"\(name)\"")
        defer { _ = try? admin.execute("DROP SCHEMA \"\(name)\" CASCADE") }
        return try body(TestSchema(location: location, name: name))
    }

    /// Runs `body` with a connection on a fresh schema where `tables` (SQL
    /// run first, in order) are made, and a translator that knows their key
    /// columns and column types, as a store's bootstrap makes it.
    static func withForeignConnection(
        creating tables: [String], _ body: (Connection, PostgresForeignDatabase) throws -> Void
    ) throws {
        try withSchema { schema in
            let executor = try schema.executor()
            for sql in tables { try executor.execute(sql) }
            let translator = PostgresSQLTranslator(
                keyColumns: try PostgresBootstrap.keyColumns(executor), columnTypes: try PostgresBootstrap.columnTypes(executor))
            let database = PostgresForeignDatabase(executor: executor, translator: translator)
            try body(try Connection(foreign: database), database)
        }
    }

    /// Runs `body` with a fresh schema and two executors on it (two
    /// sessions), for what takes two: conflicts, locks, ending a session.
    static func withTwoExecutors<T>(_ body: (PostgresExecutor, PostgresExecutor, TestSchema) throws -> T) throws -> T {
        try withSchema { database in try body(try database.executor(), try database.executor(), database) }
    }

    /// One test's PostgreSQL schema.
    struct TestSchema {
        let location: PostgresLocation
        let name: String

        /// A new executor (a connection of its own) whose unqualified names
        /// resolve to this schema.
        func executor() throws -> PostgresExecutor {
            try PostgresExecutor(location: location, schema: name)
        }
    }
}

/// Hands an executor to another thread (an event loop's, a bootstrap's):
/// safe because the test's thread does not touch it until that thread is
/// done.
struct ExecutorBox: @unchecked Sendable {
    let executor: PostgresExecutor
}
