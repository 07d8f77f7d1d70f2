import Foundation

// The container's public initializers live here, in the store-migration
// layer, because opening a store may migrate it: they hand the context
// layer's designated initializer the migrator of this layer
// (`OpenMigrator`), so that Context/ never names the layer above it.
extension ModelContainer {
    /// Opens the store for these model types, as SwiftData's
    /// `init(for:migrationPlan:configurations:)`. With `migrationPlan`, a
    /// store of an earlier version is migrated by the plan; without, a
    /// changed schema is migrated by inference when no data would be lost.
    ///
    /// ```swift
    /// let container = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(url: url))
    /// ```
    ///
    /// With several configurations, each stores the entities its schema
    /// lists in its own file (or in memory), opened, checked and migrated on
    /// its own; the entities no configuration lists go to the configuration
    /// without a schema, or to the first. A relationship cannot cross
    /// configurations. A save that changes several of them is one atomic
    /// transaction (see README, "Container and configuration").
    ///
    /// ```swift
    /// let container = try ModelContainer(
    ///     for: Schema([Trip.self, Note.self]),
    ///     configurations: ModelConfiguration("trips", schema: Schema([Trip.self]), url: tripsURL),
    ///     ModelConfiguration("notes", schema: Schema([Note.self]), url: notesURL))
    /// ```
    /// - Throws: `ModelStoreError` when the file cannot be opened, is not a
    ///   ModelStore store, is of a newer format, or holds another schema that
    ///   no migration leads from; `.migrationFailed` naming the step that
    ///   failed (the store is then as it was), `.destructiveMigration`,
    ///   `.duplicateValues`, `.noMigrationPath`, and the script errors;
    ///   `.invalidSchema` for a relationship between two configurations;
    ///   `.invalidConfiguration` for a migration plan with several
    ///   configurations. `SwiftDataError.duplicateConfiguration`,
    ///   `.configurationSchemaNotFoundInContainerSchema`,
    ///   `.configurationFileNameTooLong` and
    ///   `.configurationFileNameContainsInvalidCharacters` for
    ///   configurations that cannot be set up as given.
    public convenience init(
        for forTypes: any PersistentModel.Type..., migrationPlan: (any SchemaMigrationPlan.Type)? = nil,
        configurations: ModelConfiguration...
    ) throws {
        try self.init(for: Schema(forTypes), migrationPlan: migrationPlan, configurations: configurations)
    }

    /// Opens the store for a schema, with the configurations listed one by one.
    /// - Throws: `ModelStoreError` or `SwiftDataError`, as `init(for:migrationPlan:configurations:)`.
    public convenience init(
        for schema: Schema, migrationPlan: (any SchemaMigrationPlan.Type)? = nil, configurations: ModelConfiguration...
    ) throws {
        try self.init(for: schema, migrationPlan: migrationPlan, configurations: configurations)
    }

    /// Opens the store for a schema, migrating it with `migrationPlan` when it
    /// holds an earlier version. The schema's version is the plan's last
    /// version when the schema was built from bare types.
    /// - Throws: `ModelStoreError` or `SwiftDataError`, as `init(for:migrationPlan:configurations:)`.
    public convenience init(
        for schema: Schema, migrationPlan: (any SchemaMigrationPlan.Type)? = nil, configurations: [ModelConfiguration]
    ) throws {
        try self.init(for: schema, migrationPlan: migrationPlan, configurations: configurations, migrator: OpenMigrator())
    }

    /// Opens the stores of these configurations for these model types:
    /// SQLite files or memory (`ModelConfiguration`) and other databases
    /// (`PostgresConfiguration`), as SwiftData's
    /// `init(for:configurations:)` with `DataStoreConfiguration`s.
    ///
    /// ```swift
    /// let container = try ModelContainer(
    ///     for: Trip.self, configurations: PostgresConfiguration(url: "postgres://app@db.internal/trips"))
    /// ```
    /// - Throws: `ModelStoreError.invalidConfiguration` for a configuration
    ///   type ModelStore has no store for; what the configuration's
    ///   `validate()` throws; otherwise as `init(for:migrationPlan:configurations:)`.
    @_disfavoredOverload
    public convenience init(
        for forTypes: any PersistentModel.Type..., migrationPlan: (any SchemaMigrationPlan.Type)? = nil,
        configurations: any DataStoreConfiguration...
    ) throws {
        try self.init(for: Schema(forTypes), migrationPlan: migrationPlan, configurations: configurations)
    }

    /// Opens the stores of these configurations for a schema (see
    /// `init(for:migrationPlan:configurations:)` with model types).
    /// - Throws: as `init(for:migrationPlan:configurations:)` with model types.
    @_disfavoredOverload
    public convenience init(
        for schema: Schema, migrationPlan: (any SchemaMigrationPlan.Type)? = nil, configurations: [any DataStoreConfiguration]
    ) throws {
        try self.init(
            for: schema, migrationPlan: migrationPlan, configurations: try Self.modelConfigurations(configurations),
            migrator: OpenMigrator())
    }
}
