/// The store format: ModelStore's own tables, versioned like an app's
/// schema. Each upgrade is SQL that the repository's
/// `Migrations/format/` folder holds too (a test keeps them identical), plus,
/// for format 3, what depends on the store's tables (`perEntityTable`).
///
/// The context layer's: a new store is created in the current format, with
/// its schema record. Upgrading an older store is a migration
/// (`StoreFormat.upgradeSteps`, in Migration/MigrationHistory.swift).
package enum StoreFormat {
    /// The format this ModelStore writes.
    package static let current = 4

    /// Upgrades by the version they lead to. `perEntityTable` is SQL run
    /// once per entity table (the table's quoted name replaces `{table}`),
    /// after `sql`.
    static let upgrades: [(version: Int, name: String, sql: String, perEntityTable: String?)] = [
        (
            2, "0002_migration_history.sql",
            """
            CREATE TABLE "_modelstore_migrations" ("id" INTEGER PRIMARY KEY AUTOINCREMENT, "version" TEXT, \
            "name" TEXT NOT NULL, "kind" TEXT NOT NULL, "checksum" TEXT, "fingerprintBefore" TEXT NOT NULL, \
            "fingerprintAfter" TEXT NOT NULL, "appliedAt" REAL NOT NULL, "duration" REAL NOT NULL, "snapshot" TEXT) STRICT;
            """,
            nil
        ),
        (3, "0003_row_versions_and_history.sql", ChangeHistory.createSQL, "ALTER TABLE {table} ADD COLUMN \(SchemaSQL.versionColumnDefinition)"),
        // 1 for a script recorded as applied without running (a baseline);
        // the rows of older formats are scripts that ran, hence the default.
        (4, "0004_baseline_scripts.sql", "ALTER TABLE \"_modelstore_migrations\" ADD COLUMN \"baseline\" INTEGER NOT NULL DEFAULT 0;", nil),
    ]

    /// Replaces the schema record, its fingerprint and version.
    /// - Throws: `SQLiteError`; `EncodingError`, which schema values do not cause.
    package static func writeSchemaRecord(_ schema: Schema, _ connection: Connection) throws {
        let record = try schema.canonicalRecord().text
        let statement = try connection.prepare(
            "INSERT INTO \(quoteIdentifier(MetadataKey.table)) (\"key\", \"value\") VALUES (?, ?) "
                + "ON CONFLICT (\"key\") DO UPDATE SET \"value\" = excluded.\"value\"")
        for (key, value) in [
            (MetadataKey.schema, record), (MetadataKey.schemaFingerprint, schema.fingerprint),
            (MetadataKey.schemaVersion, schema.version.description),
        ] {
            statement.reset()
            try statement.bind(key, at: 1)
            try statement.bind(value, at: 2)
            try statement.run()
        }
    }
}
