import Foundation

/// The store of an app's models, as SwiftData's `ModelContainer`: it opens
/// (or creates) the store file, checks that it holds the app's schema, and
/// hands out contexts.
///
/// ```swift
/// let container = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(url: url))
/// let context = ModelContext(container)
/// ```
///
/// A container is `Sendable`: share it between isolation domains and give each
/// its own `ModelContext`. `mainContext` belongs to the main actor.
public final class ModelContainer: Sendable {
    /// The schema of the models the container stores.
    public let schema: Schema
    /// The configurations the container was created with, each a store of
    /// its own; one default configuration when none was given.
    public let configurations: [ModelConfiguration]
    let store: Store
    private let mainContextBox = MainContextBox()
    private let plan: MigrationPlanType?

    /// The migration plan the container was opened with, as SwiftData's
    /// `ModelContainer.migrationPlan`; nil when none was given.
    public var migrationPlan: (any SchemaMigrationPlan.Type)? { plan?.type }

    /// Opens the store for a schema, migrating it with `migrator` (and
    /// `migrationPlan`) when it holds an earlier version. The schema's
    /// version is the plan's last version when the schema was built from
    /// bare types. The public initializers, which give the store-migration
    /// layer's migrator, are in Migration/ModelContainer+Opening.swift.
    /// - Throws: `ModelStoreError` or `SwiftDataError`, as `init(for:migrationPlan:configurations:)`.
    package init(
        for schema: Schema, migrationPlan: (any SchemaMigrationPlan.Type)?, configurations: [ModelConfiguration],
        migrator: any OpenMigrating
    ) throws {
        try ConfigurationPlan.checkNames(configurations)
        self.schema = schema
        self.plan = migrationPlan.map(MigrationPlanType.init)
        if configurations.count > 1 {
            let parts = try ConfigurationPlan.parts(of: schema, configurations: configurations)
            // A plan's versions list every model of the app; which of them
            // each store held at each version is not recorded anywhere.
            guard migrationPlan == nil else {
                throw ModelStoreError.invalidConfiguration(
                    name: configurations[0].name,
                    reason: "a migration plan with several configurations is not supported; each store migrates by inference or by its migrationScriptsFolder")
            }
            self.configurations = configurations
            self.store = try Store(parts: parts, migrator: migrator)
            return
        }
        let configuration = configurations.first ?? ModelConfiguration()
        self.configurations = [configuration]
        var schema = configuration.schema ?? schema
        // A schema built from bare model types has the default version; it
        // takes the version of the plan's schema with the same models.
        if let plan = migrationPlan, schema.version == Schema.Version(1, 0, 0),
            let match = plan.schemas.last(where: { $0.schema.differences(from: schema).isEmpty })
        {
            schema.version = match.versionIdentifier
        }
        self.store = try Store(
            configuration: configuration, schema: schema, migrationPlan: migrationPlan, migrator: migrator)
    }

    /// A container around a store that already exists (a custom migration
    /// stage's store over the migration's connection).
    init(store: Store) {
        self.schema = store.schema
        self.configurations = [store.configuration]
        self.store = store
        self.plan = nil
    }

    /// Deletes every object of every entity from the store, in one
    /// transaction, as SwiftData's `erase()`. The store keeps its schema,
    /// its migration history and its key counters, so an identifier of an
    /// erased object is never given to a new one. Every context of the
    /// container marks the objects it holds deleted at its next fetch or
    /// save (see "Contexts working together" in the README); so do other
    /// processes' containers. The erase is not listed row by row in the
    /// change history: it leaves a gap there, so that `fetchHistory` after
    /// an earlier token throws `historyTokenExpired` (refetch instead).
    /// With several configurations, every store is erased in the one
    /// transaction.
    /// - Throws: `ModelStoreError.readOnlyStore` naming a read-only store (of
    ///   any configuration), with nothing deleted; `.saveFailed` naming the
    ///   table, with nothing deleted, when a store cannot be written (locked
    ///   past the busy timeout, a full disk).
    public func erase() throws {
        if let readOnly = configurations.first(where: { !$0.allowsSave }) {
            throw ModelStoreError.readOnlyStore(path: readOnly.displayPath)
        }
        let connection = try store.openConnection()
        var tables: [String] = []
        for entity in store.schema.entities {
            for relationship in entity.relationships {
                if case .joinTable(let name, isSource: true) = relationship.storage { tables.append(name) }
            }
        }
        tables += store.schema.entities.map(\.name)
        var current = ""
        let coordinator = store.changeCoordinator
        var commit = coordinator.beginCommit(watching: store.isWatchedForOtherProcesses)
        do {
            try connection.transaction {
                coordinator.transactionDidBegin(&commit, connection: connection, store: store)
                for table in tables {
                    current = table
                    try connection.execute("DELETE FROM \(quoteIdentifier(table))")
                }
                // Not recorded row by row: a gap in the history makes other
                // processes' containers reload what they hold, even when a
                // recorded save follows before they look (ForeignChanges.swift).
                current = ChangeHistory.transactionsTable
                commit.historyToken = try ChangeHistory.recordGap(connection: connection)
            }
        } catch {
            _ = coordinator.endCommit(commit, changes: nil, from: nil, connection: connection, store: store)
            guard let error = error as? SQLiteError else { throw error }
            throw ModelStoreError.saveFailed(entity: current, row: nil, underlying: error)
        }
        // Every context reloads what it holds, and finds it gone.
        _ = coordinator.endCommit(
            commit, changes: .invalidatingAll(), from: nil, connection: connection, store: store)
        coordinator.notifyObservers(StoreChanges(.invalidatingAll()))
    }

    /// Deletes every object from the store, as SwiftData's `deleteAllData()`.
    /// It cannot throw, so a failure is written to standard error; use
    /// `erase()`, which reports it.
    @available(*, deprecated, renamed: "erase()", message: "erase() reports a failure; deleteAllData() can only print it")
    public func deleteAllData() {
        do {
            try erase()
        } catch {
            FileHandle.standardError.write(Data("ModelStore: deleteAllData() failed: \(error)\n".utf8))
        }
    }

    /// The context of the main actor, created on first use, with
    /// `autosaveEnabled` set.
    @MainActor
    public var mainContext: ModelContext {
        if let context = mainContextBox.context { return context }
        let context = ModelContext(self)
        context.autosaveEnabled = true
        context.isMainContext = true
        mainContextBox.context = context
        return context
    }
}

/// A migration plan's type, shared between isolation domains: a metatype is
/// an immutable value.
private struct MigrationPlanType: @unchecked Sendable {
    let type: any SchemaMigrationPlan.Type
}

@MainActor
private final class MainContextBox {
    var context: ModelContext?
    nonisolated init() {}
}
