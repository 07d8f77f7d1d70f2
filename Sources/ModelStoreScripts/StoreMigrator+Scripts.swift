import Foundation
import ModelStore

extension StoreMigrator {
    /// Prepares to migrate the store at `url` with the scripts in
    /// `scriptsFolder` (files named `0001_description.yaml`, `.yml` or
    /// `.sql`), after the store format's own upgrades.
    ///
    /// ```swift
    /// let migrator = try StoreMigrator(storeAt: URL(filePath: "trips.store"), scriptsFolder: URL(filePath: "Migrations"))
    /// let status = try migrator.status()          // applied and pending scripts
    /// try migrator.apply { print($0) }            // snapshot, then each script in its own transaction
    /// ```
    /// - Throws: `ModelStoreError.cannotOpen` when the file does not exist,
    ///   `.notADatabase`, `.notAModelStore`, `.newerFormat` (a store written by
    ///   a newer ModelStore is never downgraded).
    public convenience init(storeAt url: URL, scriptsFolder: URL?, options: MigrationOptions = MigrationOptions()) throws {
        try self.init(storeAt: url, scripts: scriptsFolder.map { ScriptFolder(url: $0) }, options: options)
    }

    /// The scripts folder, if any.
    public var scriptsFolder: URL? { (scripts as? ScriptFolder)?.url }

    /// Records the folder's scripts up to `version` (all when nil) as
    /// applied without running them, marked as baselines in the history
    /// (`AppliedMigration.isBaseline`): for a store created by app code that
    /// already has what they do. A store of an older format gets its format
    /// upgrades first; then only history rows are written.
    /// - Throws: `ModelStoreError.invalidMigrationScript` (a script that
    ///   cannot be read is not recorded), `.migrationFailed` when the
    ///   format upgrade fails, `.cannotOpen`.
    public func baseline(through version: String? = nil) throws {
        try recordBaseline(through: version)
    }
}
