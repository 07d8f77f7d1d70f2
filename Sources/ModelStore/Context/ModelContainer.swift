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
    /// The configurations the container was created with (ModelStore uses
    /// one store per container).
    public let configurations: [ModelConfiguration]
    let store: Store
    private let mainContextBox = MainContextBox()

    /// Opens the store for these model types.
    /// - Throws: `ModelStoreError` when the file cannot be opened, is not a
    ///   ModelStore store, is of a newer format, or holds another schema.
    public convenience init(for forTypes: any PersistentModel.Type..., configurations: ModelConfiguration...) throws {
        try self.init(for: Schema(forTypes), configurations: configurations)
    }

    /// Opens the store for a schema.
    /// - Throws: `ModelStoreError`, as `init(for:configurations:)`.
    public convenience init(for schema: Schema, configurations: ModelConfiguration...) throws {
        try self.init(for: schema, configurations: configurations)
    }

    /// Opens the store for these model types, migrating it with `migrationPlan`
    /// when it holds an earlier version, as SwiftData's initializer of the
    /// same shape. Without a plan, a changed schema is migrated by inference
    /// when no data would be lost.
    /// - Throws: `ModelStoreError`, as `init(for:configurations:)`; also
    ///   `.migrationFailed` naming the step that failed (the store is then as
    ///   it was), `.destructiveMigration`, `.duplicateValues`,
    ///   `.noMigrationPath`, and the script errors.
    public convenience init(
        for forTypes: any PersistentModel.Type..., migrationPlan: (any SchemaMigrationPlan.Type)?,
        configurations: ModelConfiguration...
    ) throws {
        try self.init(for: Schema(forTypes), migrationPlan: migrationPlan, configurations: configurations)
    }

    /// Opens the store for a schema with an array of configurations.
    /// - Throws: `ModelStoreError`, as `init(for:configurations:)`; also
    ///   `.invalidSchema` when more than one configuration is given.
    public convenience init(for schema: Schema, configurations: [ModelConfiguration]) throws {
        try self.init(for: schema, migrationPlan: nil, configurations: configurations)
    }

    /// Opens the store for a schema, migrating it with `migrationPlan` when it
    /// holds an earlier version. The schema's version is the plan's last
    /// version when the schema was built from bare types.
    /// - Throws: `ModelStoreError`, as `init(for:migrationPlan:configurations:)`.
    public init(
        for schema: Schema, migrationPlan: (any SchemaMigrationPlan.Type)?, configurations: [ModelConfiguration]
    ) throws {
        guard configurations.count <= 1 else {
            throw ModelStoreError.invalidSchema(reason: "ModelStore stores a container in one file; give one ModelConfiguration")
        }
        let configuration = configurations.first ?? ModelConfiguration()
        self.schema = schema
        self.configurations = [configuration]
        var schema = configuration.schema ?? schema
        // A schema built from bare model types has the default version; it
        // takes the version of the plan's schema with the same models.
        if let plan = migrationPlan, schema.version == Schema.Version(1, 0, 0),
            let match = plan.schemas.last(where: { $0.schema.differences(from: schema).isEmpty })
        {
            schema.version = match.versionIdentifier
        }
        self.store = try Store(configuration: configuration, schema: schema, migrationPlan: migrationPlan)
    }

    /// A container around a store that already exists (a custom migration
    /// stage's store over the migration's connection).
    init(store: Store) {
        self.schema = store.schema
        self.configurations = [store.configuration]
        self.store = store
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

@MainActor
private final class MainContextBox {
    var context: ModelContext?
    nonisolated init() {}
}
