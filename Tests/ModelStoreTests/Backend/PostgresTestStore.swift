import Foundation
@testable import ModelStore

#if canImport(ModelStorePostgres)
import ModelStorePostgres

/// A fresh PostgreSQL schema (`test_<random>`) on the server of
/// `MODELSTORE_POSTGRES_URL`, for one test's `.postgres` store, dropped
/// with everything in it when the last copy of the test's store goes.
/// `.ci/run` starts a throwaway server; by hand, source
/// `.ci/postgres-cluster.sh` and run `start_postgres_cluster`.
final class PostgresTestSchema: Sendable {
    static let url = ProcessInfo.processInfo.environment["MODELSTORE_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }
    /// True when the `.postgres` cases run: a server is given, or this is
    /// CI, where a missing server must fail them rather than skip them.
    static var isAvailable: Bool { url != nil || ProcessInfo.processInfo.environment["CI"] != nil }

    struct NotStarted: Error, CustomStringConvertible {
        var description: String {
            "MODELSTORE_POSTGRES_URL is not set: PostgreSQL was not started (see .ci/postgres-cluster.sh)"
        }
    }

    let url: String
    let name: String

    /// Creates the schema.
    /// - Throws: `NotStarted` without a server; the server's error.
    init() throws {
        guard let url = Self.url else { throw NotStarted() }
        self.url = url
        name = "test_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(16)
        let admin = try PostgresExecutor(location: try PostgresLocation(url: url))
        try admin.execute("CREATE SCHEMA \"\(name)\"")
    }

    deinit {
        guard let location = try? PostgresLocation(url: url), let admin = try? PostgresExecutor(location: location) else { return }
        _ = try? admin.execute("DROP SCHEMA \"\(name)\" CASCADE")
    }

    /// The configuration of a store in this schema, as an app makes it
    /// with `PostgresConfiguration`.
    /// The schema lives as long as the configuration's opener, that is as
    /// long as any container opened with it, even when the test lets go of
    /// its `TestStore` first.
    func configuration() throws -> ModelConfiguration {
        var configuration = try PostgresConfiguration(url: url, databaseSchema: name).modelConfiguration()
        guard let opener = configuration.foreignDatabase else { return configuration }
        configuration.foreignDatabase = ForeignDatabaseOpener(
            name: opener.name, open: { [self] in _ = self; return try opener.open() }, bootstrap: opener.bootstrap,
            queryDialect: opener.queryDialect)
        return configuration
    }
}
#else
/// Without the PostgreSQL target (the sanitizer passes build the library's
/// suites alone) there is no `.postgres` store kind to run.
final class PostgresTestSchema: Sendable {
    static let isAvailable = false
    struct NotStarted: Error, CustomStringConvertible {
        var description: String { "this build has no PostgreSQL target" }
    }
    init() throws { throw NotStarted() }
    func configuration() throws -> ModelConfiguration { throw NotStarted() }
}
#endif
