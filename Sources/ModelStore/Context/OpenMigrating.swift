import Foundation

/// The migration that opening a store runs, as the context layer sees it.
///
/// Opening a store is the context layer's work (`StoreBootstrap`), but
/// migrating one is the store-migration layer's (Migration/), which sits
/// above it: a migration plan's custom stages run in contexts of their own.
/// So that the dependency goes one way, the context layer names only this
/// protocol. Migration/ implements it (`OpenMigrator`), and the container's
/// public initializers, declared there, hand it down to the store.
package protocol OpenMigrating: Sendable {
    /// Migrates the store `opening` describes to its target schema:
    /// store-format upgrades, scripts, a plan's stages, then inference.
    /// - Returns: false when nothing was pending (nothing ran).
    /// - Throws: `ModelStoreError` naming the script, stage or step that
    ///   failed; the store is then as it was.
    func migrate(_ opening: StoreOpening) throws -> Bool

    /// Records in a new store, which already has the app's schema, the
    /// migrations that would otherwise be applied to it later (a scripts
    /// folder's scripts, as a baseline). Writes only history rows.
    /// - Throws: `ModelStoreError.invalidMigrationScript`; `SQLiteError`.
    func recordBaseline(_ schema: Schema, in connection: Connection) throws
}

/// An existing store that opening found to need a migration, as
/// `OpenMigrating.migrate(_:)` receives it.
package struct StoreOpening {
    /// The connection that opened the store; the migration runs on it.
    package let connection: Connection
    package let configuration: ModelConfiguration
    /// The app's schema, resolved.
    package let target: Schema
    /// The schema the store's record holds.
    package let stored: Schema
    /// The store format the file has.
    package let storedFormat: Int
    /// The store's identifier, for the contexts of custom stages.
    package let identifier: String
    package let plan: (any SchemaMigrationPlan.Type)?
}
