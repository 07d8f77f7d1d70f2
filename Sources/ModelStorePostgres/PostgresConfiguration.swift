import Foundation
import ModelStore
import Synchronization

/// A store in a PostgreSQL database, in the style of SwiftData's
/// `DataStoreConfiguration`: give it to `ModelContainer` in place of a
/// `ModelConfiguration`, and the app's models, predicates and contexts run
/// on the server unchanged.
///
/// ```swift
/// import ModelStore
/// import ModelStorePostgres
///
/// let container = try ModelContainer(
///     for: Trip.self, configurations: PostgresConfiguration(url: "postgres://app@db.internal/trips"))
/// ```
///
/// Opening the container connects, creates the store's tables in the
/// PostgreSQL schema (`public` unless `databaseSchema` names another) when
/// it holds none, or checks that they are the app's schema. Several app
/// servers may open one new database at once: one of them creates the
/// tables, the others wait for it and check them. Each context then has
/// its own connection. See the "Scaling out" article for what differs
/// from a SQLite store.
public struct PostgresConfiguration: DataStoreConfiguration, CustomStringConvertible {
    /// A name for the configuration.
    public let name: String
    /// The models this configuration stores, when not all of the container's.
    public let schema: Schema?
    /// The server and database: `postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE[?sslmode=…]`.
    /// TLS is off for a loopback host and required otherwise unless
    /// `sslmode` says; `verify-full` and `require` verify the server's
    /// certificate against the system's trust store.
    public let url: String
    /// The PostgreSQL schema (namespace) that holds the store's tables; nil
    /// for the server's default search path (`public`). It must exist.
    public let databaseSchema: String?
    /// False for a read-only store: fetches work, `save()` throws.
    public let allowsSave: Bool
    /// The most connections the container keeps open at once, besides its
    /// change listener's. A context borrows one for each transaction (or
    /// statement outside one) and gives it back at once; when all are
    /// busy, a statement waits up to 5 seconds for one, then throws naming
    /// the limit. Connections given back stay open for the next borrower.
    public let maximumConnections: Int

    /// A store in the database at `url`.
    /// - Parameters:
    ///   - name: a name for the configuration; the database's name by default.
    ///   - schema: the models it stores, when not all of the container's.
    ///   - url: `postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE[?sslmode=disable|require|verify-full]`.
    ///   - databaseSchema: the PostgreSQL schema of the tables; nil for `public`.
    ///   - allowsSave: false for a read-only store.
    ///   - maximumConnections: the most connections open at once (at least 2).
    public init(
        _ name: String? = nil, schema: Schema? = nil, url: String, databaseSchema: String? = nil, allowsSave: Bool = true,
        maximumConnections: Int = 32
    ) {
        self.schema = schema
        self.maximumConnections = maximumConnections
        self.url = url
        self.databaseSchema = databaseSchema
        self.allowsSave = allowsSave
        self.name = name ?? (try? PostgresLocation(url: url).database) ?? "postgres"
    }

    /// Checks the URL.
    /// - Throws: `PostgresStoreError.invalidURL` naming what is wrong with it
    ///   (never showing the password).
    /// - Throws: `PostgresStoreError.invalidURL` naming what is wrong with
    ///   it (never showing the password); `ModelStoreError.invalidConfiguration`
    ///   for fewer than 2 connections.
    public func validate() throws {
        _ = try PostgresLocation(url: url)
        guard maximumConnections >= 2 else {
            throw ModelStoreError.invalidConfiguration(
                name: name, reason: "maximumConnections is \(maximumConnections); a container needs at least 2 "
                    + "(a save's transaction and a read at the same time)")
        }
    }

    /// The server, database and schema, without the password.
    public var description: String {
        let location = (try? PostgresLocation(url: url).description) ?? "an invalid PostgreSQL URL"
        return "PostgresConfiguration(\(location)\(databaseSchema.map { ", schema \($0)" } ?? "")\(allowsSave ? "" : ", read-only"))"
    }
}

extension PostgresConfiguration: ForeignStoreConfiguration {
    package func modelConfiguration() throws -> ModelConfiguration {
        try validate()
        let location = try PostgresLocation(url: url)
        var configuration = ModelConfiguration(name, schema: schema, url: URL(filePath: "/dev/null"), allowsSave: allowsSave)
        configuration.foreignDatabase = PostgresStore.opener(
            location: location, databaseSchema: databaseSchema, maximumConnections: maximumConnections)
        return configuration
    }
}

/// How a container opens a PostgreSQL store: connections through
/// `PostgresForeignDatabase`, and the bootstrap that creates or checks
/// the tables in place of SQLite's.
package enum PostgresStore {
    /// The opener of a store at `location`, in `databaseSchema`.
    ///
    /// Connections come from a pool of at most `maximumConnections`, and go
    /// back to it when done. The bootstrap, on the
    /// store's first connection, also starts the
    /// store's change listener (one per container); every connection then
    /// answers `PRAGMA data_version` with its count of other servers'
    /// commits, and registers its session as this container's own, whose
    /// commits the container's contexts learn of directly.
    package static func opener(location: PostgresLocation, databaseSchema: String?, maximumConnections: Int = 32)
        -> ForeignDatabaseOpener
    {
        let pool = PostgresConnectionPool(location: location, schema: databaseSchema, maximumConnections: maximumConnections)
        let shared = Mutex<(translations: PostgresTranslationCache, listener: PostgresChangeListener?)>(
            (PostgresTranslationCache(translator: PostgresSQLTranslator(keyColumns: [:])), nil))
        let registered = Mutex<Set<ObjectIdentifier>>([])
        let name = "\(location)" + (databaseSchema.map { " (schema \($0))" } ?? "")
        return ForeignDatabaseOpener(
            name: name,
            open: {
                let (translations, listener) = shared.withLock { ($0.translations, $0.listener) }
                let database = PostgresForeignDatabase(pool: pool, translations: translations) { executor in
                    guard let listener else { return }
                    try registerOwnSessions(of: executor, with: listener, registered: registered)
                }
                database.listener = listener
                return database
            },
            bootstrap: { connection, schema, configuration in
                guard let database = connection.foreign as? PostgresForeignDatabase else {
                    throw ModelStoreError.cannotOpen(path: name, reason: "its connection is not a PostgreSQL one")
                }
                let (outcome, keyColumns, columnTypes) = try database.withExecutor { executor in
                    (
                        try PostgresBootstrap(executor: executor, schema: schema, allowsWriting: configuration.allowsSave).run(),
                        try PostgresBootstrap.keyColumns(executor),
                        try PostgresBootstrap.columnTypes(executor)
                    )
                }
                let tables = PostgresTranslationCache(
                    translator: PostgresSQLTranslator(
                        keyColumns: keyColumns, conflictTargets: try PostgresSchemaSQL.conflictTargets(schema),
                        otherUniqueConstraints: try PostgresSchemaSQL.otherUniqueConstraints(schema),
                        columnTypes: columnTypes))
                guard let identifier = UUID(uuidString: outcome.identifier) else {
                    throw ModelStoreError.notAModelStore(
                        path: name, reason: "its store identifier \(outcome.identifier) is not a UUID")
                }
                // Every session of the pool registers as the container's own
                // when first borrowed (the bootstrap's included, next time).
                let listener = try PostgresChangeListener(location: location, storeIdentifier: identifier)
                registered.withLock { $0.removeAll() }
                shared.withLock { $0 = (tables, listener) }
                database.translations = tables
                database.listener = listener
                database.didBorrow = { executor in
                    try registerOwnSessions(of: executor, with: listener, registered: registered)
                }
                return outcome.identifier
            },
            queryDialect: QueryDialect(normalizesText: true, runsSwiftInSQL: false))
    }

    /// Registers `executor`'s session with `listener` as the container's
    /// own (its commits, which the container's contexts learn of directly,
    /// are not counted as another server's), once per executor, and each
    /// session that replaces a lost one in its place: the server may give
    /// the old process ID to another server's session, whose commits must
    /// be counted.
    private static func registerOwnSessions(
        of executor: PostgresExecutor, with listener: PostgresChangeListener, registered: borrowing Mutex<Set<ObjectIdentifier>>
    ) throws {
        guard registered.withLock({ $0.insert(ObjectIdentifier(executor)).inserted }) else { return }
        var currentPID = try executor.backendPID()
        listener.registerOwnSession(pid: currentPID)
        executor.didConnectAgain = { [weak listener] newPID in
            listener?.unregisterOwnSession(pid: currentPID)
            listener?.registerOwnSession(pid: newPID)
            currentPID = newPID
        }
    }
}
