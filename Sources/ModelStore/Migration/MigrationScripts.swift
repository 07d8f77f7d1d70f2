import Foundation

/// The migration-script engine as ModelStore's migrations see it.
///
/// Reading scripts (their YAML, their checksums) is the ModelStoreScripts
/// target's work, which an app builds only when it imports it. That target
/// conforms its scripts folder to this protocol and sets an `OpenMigrator`
/// with it on `ModelConfiguration.openMigration` or gives it to `StoreMigrator`;
/// ModelStore calls it where scripts take part in a migration: before a
/// migration plan's stages at open, in `StoreMigrator`, and when a new store
/// records the scripts as a baseline. Without one, no script ever runs.
package protocol MigrationScripts: Sendable {
    /// The scripts not yet applied, in order, and the applied ones
    /// (`kind == "script"` in `applied`) whose file changed since.
    /// - Throws: `ModelStoreError.invalidMigrationScript` for an unreadable
    ///   folder or script.
    func pending(applied: [AppliedMigration]) throws -> (pending: [MigrationScriptInfo], changed: [ChangedMigrationScript])

    /// The transactions that apply the pending scripts up to `version` (all
    /// when nil) to a store holding `schema`: one per script, or one for all
    /// when `oneTransaction`, each ending with the schema record and a
    /// history row per script. `schema` becomes the schema after them. A
    /// script's drop of values is refused when it runs unless `allowsDataLoss`.
    /// - Returns: the scripts that the transactions apply, in order.
    /// - Throws: `ModelStoreError.invalidMigrationScript` naming the file
    ///   (and line) of a script that cannot be read or does not fit the
    ///   schema; `.scriptChecksumMismatch`.
    func transactions(
        applied: [AppliedMigration], through version: String?, from schema: inout Schema, oneTransaction: Bool,
        allowsDataLoss: Bool
    ) throws -> (scripts: [MigrationScriptInfo], transactions: [MigrationTransaction])

    /// Records every script up to `version` (all when nil) that is not yet
    /// recorded as applied without running it, for a store that already
    /// has the schema they lead to. Writes only history rows.
    /// - Throws: `ModelStoreError.invalidMigrationScript`; `SQLiteError`.
    func recordBaseline(_ schema: Schema, _ connection: Connection, through version: Int?) throws
}
