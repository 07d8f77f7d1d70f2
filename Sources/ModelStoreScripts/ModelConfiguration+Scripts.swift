import Foundation
import ModelStore

extension ModelConfiguration {
    /// A folder of migration scripts (`0001_name.yaml` or `.sql`) that
    /// opening the store applies, in order, before any migration plan or
    /// inferred migration; nil for none. A new store records them as
    /// applied (it already has the schema they lead to).
    ///
    /// ```swift
    /// import ModelStore
    /// import ModelStoreScripts
    ///
    /// var configuration = ModelConfiguration(url: storeURL)
    /// configuration.migrationScriptsFolder = URL(filePath: "Migrations")
    /// let container = try ModelContainer(for: Trip.self, configurations: configuration)
    /// ```
    ///
    /// Opening the container then throws `ModelStoreError.invalidMigrationScript`
    /// (naming the file and line) for a script it cannot read or apply, and
    /// `.scriptChecksumMismatch` for an applied script whose file changed.
    public var migrationScriptsFolder: URL? {
        get { ((openMigration as? OpenMigrator)?.scripts as? ScriptFolder)?.url }
        set { openMigration = newValue.map { OpenMigrator(scripts: ScriptFolder(url: $0)) } }
    }
}
