import Foundation

/// The store file behind a container: where it is, how to open connections to
/// it, its identifier, and the tables of the app's schema.
///
/// Opening a store checks, in order, that the file is SQLite, that it is a
/// ModelStore store, that its format is one this version knows, and that its
/// recorded schema is the app's. A new or empty file is set up in one
/// transaction, so a crash halfway leaves an empty file, never half a store.
package final class Store: Sendable {
    /// The store format this version of ModelStore writes and reads.
    static var formatVersion: Int { StoreFormat.current }

    let configuration: ModelConfiguration
    package let schema: Schema
    /// The store's identifier, recorded when it was created.
    let identifier: String
    private let location: String
    private let isURI: Bool
    private let tablesByName: [String: EntityTable]
    private let tablesByType: [ObjectIdentifier: EntityTable]
    /// Model classes by table, cast once here rather than on every lookup.
    private let modelTypes: [ObjectIdentifier: ModelType]
    /// Keeps a shared in-memory database alive for the container's lifetime:
    /// SQLite frees it when its last connection closes.
    private let memoryAnchor: MemoryAnchor?
    /// The migration's connection, which a custom stage's contexts share so
    /// that their saves are part of the migration's transaction.
    private let migrationConnection: MemoryAnchor?
    /// Idle connections to a SQLite file, ready for the next connection asked
    /// for (usually a new context's): the one that opened and checked the
    /// file, and those of contexts that went (`recycle(_:)`). SQLite has
    /// parsed the file's schema on each already and they keep their prepared
    /// statements, which is most of what opening a connection costs. At most
    /// `maximumSpareConnections`; always empty for other stores.
    private let spareConnections = Locked<[Connection]>([])

    /// How many idle connections a container keeps for its next contexts.
    /// Each holds SQLite's page cache of what it read, so the pool is small:
    /// enough for the contexts an app makes and drops at once (a server's
    /// requests, a few tasks), not a connection per context ever made.
    static let maximumSpareConnections = 4

    /// Schema objects in the file that ModelStore did not make; only ever
    /// non-empty for a read-only store opened with `toleratingForeignObjects`.
    package let foreignObjects: [ForeignSchemaObject]
    /// The other stores of a container of several configurations, which
    /// every connection attaches (see StoreAttachments.swift); empty for one.
    let attachments: [StoreAttachment]
    /// True when some table is in a read-only store while others are not: a
    /// save then checks which stores its objects are in.
    let hasReadOnlyParts: Bool

    var path: String { configuration.displayPath }

    /// How fetches write what differs from SQLite's SQL on this database.
    var queryDialect: QueryDialect { configuration.foreignDatabase?.queryDialect ?? .sqlite }

    /// True when the store is known to have the change history's tables:
    /// a SQLite file that opening brought to format 3 or later, which made
    /// them (ChangeHistory.swift). False when that is not known; readers
    /// then ask the file.
    let keepsHistory: Bool

    /// How the container's contexts learn of each other's saves and of
    /// other processes' commits (see ChangeCoordinator.swift).
    let changeCoordinator = ChangeCoordinator()

    /// Whether other processes can write the store, so that contexts watch
    /// its `data_version`: a file, not an in-memory store (whose connections
    /// share one cache) or a migration stage's (one shared connection).
    var isWatchedForOtherProcesses: Bool { !configuration.isStoredInMemoryOnly && migrationConnection == nil }

    /// Opens (or creates) the store and checks it against `schema`.
    /// - Parameters:
    ///   - migrator: the migration to run when the store needs one.
    ///   - toleratingForeignObjects: open a read-only store whose file holds
    ///     schema objects ModelStore did not make, instead of refusing it.
    /// - Throws: `ModelStoreError` naming the file and what is wrong with it.
    package init(
        configuration: ModelConfiguration, schema: Schema, migrationPlan: (any SchemaMigrationPlan.Type)? = nil,
        migrator: any OpenMigrating, toleratingForeignObjects: Bool = false
    ) throws {
        let schema = try schema.checkedForStore()
        self.configuration = configuration
        self.schema = schema
        let connection: Connection
        if configuration.isStoredInMemoryOnly {
            location = "file:modelstore-\(UUID().uuidString)?mode=memory&cache=shared"
            isURI = true
            connection = try Store.connect(location, isURI: true, path: configuration.displayPath, mode: .create)
            memoryAnchor = MemoryAnchor(connection: connection)
        } else if let opener = configuration.foreignDatabase {
            location = opener.name
            isURI = false
            memoryAnchor = nil
            connection = try Store.connect(opener)
        } else {
            location = configuration.url.path(percentEncoded: false)
            isURI = false
            memoryAnchor = nil
            connection = try Store.openFile(configuration)
        }
        migrationConnection = nil
        let outcome: StoreBootstrap.Outcome
        if let bootstrap = configuration.foreignDatabase?.bootstrap {
            // The foreign database migrates additive changes itself; staged
            // plans and scripts run on SQLite's migrator only.
            guard migrationPlan == nil, configuration.openMigration == nil else {
                throw ModelStoreError.invalidConfiguration(
                    name: configuration.name,
                    reason: "migration plans and migration scripts do not run on \(configuration.displayPath) yet; "
                        + "only additive changes are migrated there")
            }
            outcome = StoreBootstrap.Outcome(identifier: try bootstrap(connection, schema, configuration))
        } else {
            outcome = try StoreBootstrap(
                connection: connection, schema: schema, configuration: configuration, migrator: migrator,
                migrationPlan: migrationPlan, toleratesForeignObjects: toleratingForeignObjects
            ).run()
        }
        self.identifier = outcome.identifier
        self.foreignObjects = outcome.foreignObjects
        attachments = []
        hasReadOnlyParts = false
        // A writable store was upgraded to the current format by opening.
        let versionSelect: VersionSelect = outcome.formatVersion >= 3 ? .column : .absent
        keepsHistory = configuration.foreignDatabase == nil && outcome.formatVersion >= 3
        (tablesByName, tablesByType, modelTypes) = Store.tables([(schema, outcome.identifier, configuration, versionSelect)])
        guard isWatchedForOtherProcesses else { return }
        if configuration.foreignDatabase != nil {
            // A server's connection costs as much to open whatever it is
            // for: the watcher takes it.
            changeCoordinator.adoptWatcher(connection)
        } else {
            recycle(connection)
        }
    }

    /// Opens (or creates) the stores of several configurations, each
    /// checked and migrated on its own, as one store whose connections hold
    /// the first writable file as their main database and attach the others.
    /// - Throws: `ModelStoreError` naming the file and what is wrong with it.
    init(parts: [ConfigurationPart], migrator: any OpenMigrating) throws {
        var opened: [(part: ConfigurationPart, schema: Schema, file: OpenedFile)] = []
        for part in parts {
            let schema = try part.schema.checkedForStore()
            opened.append((part, schema, try OpenedFile(configuration: part.configuration, schema: schema, migrator: migrator)))
        }
        let mainIndex =
            opened.firstIndex { $0.part.configuration.allowsSave && !$0.part.configuration.isStoredInMemoryOnly }
            ?? opened.firstIndex { $0.part.configuration.allowsSave } ?? 0
        let main = opened[mainIndex]
        configuration = main.part.configuration
        schema = Schema(entities: opened.flatMap(\.schema.entities), version: main.schema.version)
        identifier = main.file.identifier
        // Every part is read-only when the main one is; one SQLite cannot
        // read otherwise is opened immutable by each connection's URI.
        location = main.file.isImmutable ? FileAccess.immutableURI(main.file.location) : main.file.location
        isURI = true
        memoryAnchor = main.file.memoryAnchor
        migrationConnection = nil
        foreignObjects = []
        attachments = opened.indices.filter { $0 != mainIndex }.enumerated().map { number, index in
            StoreAttachment(
                alias: "modelstore_\(number + 1)", configuration: opened[index].part.configuration,
                location: opened[index].file.location, anchor: opened[index].file.memoryAnchor,
                isImmutable: opened[index].file.isImmutable)
        }
        hasReadOnlyParts = Set(parts.map(\.configuration.allowsSave)).count > 1
        keepsHistory = false
        (tablesByName, tablesByType, modelTypes) = Store.tables(
            opened.map { ($0.schema, $0.file.identifier, $0.part.configuration, $0.file.versionSelect) })
    }

    /// A store over a migration's connection, for the contexts of a custom
    /// stage: no checks, every context shares the connection.
    init(migrating connection: Connection, configuration: ModelConfiguration, schema: Schema, identifier: String) throws {
        let schema = try schema.checkedForStore()
        self.configuration = configuration
        self.schema = schema
        self.identifier = identifier
        foreignObjects = []
        location = configuration.url.path(percentEncoded: false)
        isURI = false
        memoryAnchor = nil
        migrationConnection = MemoryAnchor(connection: connection)
        // The format upgrade is the migration's first transaction.
        attachments = []
        hasReadOnlyParts = false
        keepsHistory = false
        (tablesByName, tablesByType, modelTypes) = Store.tables([(schema, identifier, configuration, .column)])
    }

    /// The tables of each store's entities, each knowing its store.
    private static func tables(_ stores: [(schema: Schema, identifier: String, configuration: ModelConfiguration, versionSelect: VersionSelect)]) -> (
        [String: EntityTable], [ObjectIdentifier: EntityTable], [ObjectIdentifier: ModelType]
    ) {
        let entityCount = stores.reduce(0) { $0 + $1.schema.entities.count }
        var byName: [String: EntityTable] = Dictionary(minimumCapacity: entityCount)
        var byType: [ObjectIdentifier: EntityTable] = Dictionary(minimumCapacity: entityCount)
        var types: [ObjectIdentifier: ModelType] = Dictionary(minimumCapacity: entityCount)
        for store in stores {
            var hierarchyKeys: [String: HierarchyKey] = [:]
            // Once per store, not per entity: the path is made from a URL.
            let path = store.configuration.displayPath
            let allowsSave = store.configuration.allowsSave
            // Finding an entity's hierarchy searches the schema: only when
            // the schema has one.
            let hasHierarchies = store.schema.entities.contains { $0.superentityName != nil }
            for entity in store.schema.entities {
                let table = EntityTable(
                    entity: entity, storeIdentifier: store.identifier, storePath: path,
                    storeAllowsSave: allowsSave, versionSelect: store.versionSelect,
                    hierarchy: hasHierarchies ? HierarchyMembership.of(entity, in: store.schema, keys: &hierarchyKeys) : nil)
                byName[entity.name] = table
                if let type = entity.persistentModelType {
                    byType[ObjectIdentifier(type)] = table
                    types[ObjectIdentifier(table)] = ModelType(type: type)
                }
            }
        }
        return (byName, byType, types)
    }

    /// A new connection for a context.
    /// - Throws: `ModelStoreError.cannotOpen` when the file went away or cannot be opened.
    package func openConnection() throws -> Connection {
        if let migrationConnection { return migrationConnection.connection }
        if let opener = configuration.foreignDatabase { return try Store.connect(opener) }
        if let spare = spareConnections.withLock({ $0.popLast() }) { return spare }
        return try openFileConnection(watchesOnly: false)
    }

    /// Keeps `connection`, which its last user (a context that went) is done
    /// with, for the next connection asked for, instead of closing it: a
    /// new context then neither opens the file nor has SQLite parse its
    /// schema. Only a SQLite file's connections are kept (a migration's is
    /// shared, and a server's carries session state), only idle ones (one
    /// left inside a transaction or a statement would read an old
    /// snapshot), and at most `maximumSpareConnections`; any other is let go,
    /// which closes it.
    func recycle(_ connection: Connection) {
        guard isWatchedForOtherProcesses, configuration.foreignDatabase == nil, connection.isIdle else { return }
        connection.statementObserver = nil
        spareConnections.withLock { spares in
            guard spares.count < Store.maximumSpareConnections else { return }
            spares.append(connection)
        }
    }

    /// How many idle connections wait for their next user (for tests).
    var spareConnectionCount: Int { spareConnections.withLock { $0.count } }

    /// Whether an idle connection waits for its next user (for tests).
    var hasSpareConnection: Bool { spareConnectionCount > 0 }

    /// A new connection for the container's watcher (ChangeCoordinator.swift),
    /// which reads `data_version` and, after another process's commits, the
    /// change history: on a SQLite file it is opened without parsing the
    /// schema, which a connection for statements does at once.
    /// - Throws: `ModelStoreError.cannotOpen` when the file went away or cannot be opened.
    func openWatcherConnection() throws -> Connection {
        if migrationConnection != nil || configuration.foreignDatabase != nil { return try openConnection() }
        return try openFileConnection(watchesOnly: true)
    }

    private func openFileConnection(watchesOnly: Bool) throws -> Connection {
        let mode: Connection.Mode = configuration.allowsSave ? .readWrite : .readOnly
        let connection = try Store.connect(
            location, isURI: isURI, path: configuration.displayPath, mode: mode, watchesOnly: watchesOnly)
        if !attachments.isEmpty { try attach(to: connection) }
        return connection
    }

    package func table(named name: String) -> EntityTable? { tablesByName[name] }

    /// Every entity's table, in schema order.
    package var tables: [EntityTable] { schema.entities.compactMap { tablesByName[$0.name] } }

    /// The model class of a table, when the schema was built from classes.
    func modelType(of table: EntityTable) -> (any PersistentModel.Type)? {
        modelTypes[ObjectIdentifier(table)]?.type
    }

    func table(for type: any PersistentModel.Type) -> EntityTable? { tablesByType[ObjectIdentifier(type)] }

    static func openFile(_ configuration: ModelConfiguration) throws -> Connection {
        let path = configuration.url.path(percentEncoded: false)
        var isDirectory: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
        if isDirectory.boolValue {
            throw ModelStoreError.cannotOpen(path: path, reason: "it is a folder, not a file")
        }
        if !exists && !configuration.allowsSave {
            throw ModelStoreError.cannotOpen(path: path, reason: "the file does not exist, and a read-only store cannot create it")
        }
        if !exists {
            let folder = configuration.url.deletingLastPathComponent().path(percentEncoded: false)
            // The default location's folder is the app's own to make, as
            // SwiftData makes Application Support; an explicit URL's is not.
            if configuration.usesDefaultLocation {
                do {
                    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
                } catch {
                    throw ModelStoreError.cannotOpen(path: path, reason: "the folder \(folder) cannot be created: \(error.localizedDescription)")
                }
            }
            guard FileManager.default.fileExists(atPath: folder) else {
                throw ModelStoreError.cannotOpen(path: path, reason: "the folder \(folder) does not exist")
            }
        }
        return try connect(path, isURI: false, path: path, mode: configuration.allowsSave ? .create : .readOnly)
    }

    static func connect(
        _ location: String, isURI: Bool, path: String, mode: Connection.Mode, watchesOnly: Bool = false
    ) throws -> Connection {
        do {
            let connection = try Connection(
                location: location, displayPath: path, isURI: isURI, mode: mode, watchesOnly: watchesOnly)
            // The watcher reads data_version and the history tables, whose
            // SQL needs none of the fetches' collations and functions.
            if !watchesOnly { try QueryFunctions.register(on: connection) }
            return connection
        } catch {
            if error.primaryCode == SQLiteError.notADatabase { throw ModelStoreError.notADatabase(path: path) }
            throw ModelStoreError.cannotOpen(path: path, reason: error.message)
        }
    }
}

extension Store {
    /// A connection to a foreign database (see `ForeignDatabase`).
    /// - Throws: `ModelStoreError.cannotOpen` naming the database and what failed.
    static func connect(_ opener: ForeignDatabaseOpener) throws -> Connection {
        do {
            return try Connection(foreign: try opener.open())
        } catch let error as ModelStoreError {
            throw error
        } catch let error as SQLiteError {
            throw ModelStoreError.cannotOpen(path: opener.name, reason: error.message)
        } catch {
            throw ModelStoreError.cannotOpen(path: opener.name, reason: "\(error)")
        }
    }
}

/// How a store opens connections to a database that is not SQLite: each
/// call of `open` connects once more.
package struct ForeignDatabaseOpener: Sendable {
    /// What errors call the database (a server and database name, never a password).
    package let name: String
    package let open: @Sendable () throws -> any ForeignDatabase
    /// Sets up or checks the store on the database, in place of SQLite's
    /// bootstrap, and returns the store's identifier; nil for a foreign
    /// database that holds a SQLite store's tables as they are (the tests'
    /// forwarding database). It runs on the store's first connection, and
    /// must leave tables in the current store format (row versions, history).
    package let bootstrap: (@Sendable (Connection, Schema, ModelConfiguration) throws -> String)?
    /// What the query builder writes differently for this database.
    package let queryDialect: QueryDialect

    package init(
        name: String, open: @escaping @Sendable () throws -> any ForeignDatabase,
        bootstrap: (@Sendable (Connection, Schema, ModelConfiguration) throws -> String)? = nil,
        queryDialect: QueryDialect = .sqlite
    ) {
        self.name = name
        self.open = open
        self.bootstrap = bootstrap
        self.queryDialect = queryDialect
    }
}

/// Holds the connection that keeps an in-memory database alive. It is only
/// stored, never used after the store is set up, so sharing it is safe.
final class MemoryAnchor: @unchecked Sendable {
    let connection: Connection
    init(connection: Connection) { self.connection = connection }
}

/// A model class, shared between isolation domains. A metatype is an
/// immutable value; the compiler only lacks a way to say that the metatype of
/// a non-Sendable class may be sent.
private struct ModelType: @unchecked Sendable {
    let type: any PersistentModel.Type
}
