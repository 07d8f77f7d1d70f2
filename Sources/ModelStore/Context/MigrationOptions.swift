import Foundation

/// How a migration runs: snapshots, data loss, transactions, waiting and
/// progress. Set on `ModelConfiguration.migrationOptions`, or given to
/// `StoreMigrator`.
public struct MigrationOptions: Sendable {
    /// Copy the store (with `VACUUM INTO`) before the first pending step, so
    /// that it can be restored by hand; the copy's path is recorded in the
    /// history. True by default.
    public var takesSnapshot = true
    /// Where snapshots go; the store's own folder when nil.
    public var snapshotFolder: URL?
    /// How many snapshots of the store to keep: after a migration that took
    /// one, the files of the older snapshots the store's history records in
    /// `snapshotFolder` are removed, keeping the newest `keptSnapshots` (the
    /// one just taken included; a value below 1 counts as 1). 3 by default;
    /// nil keeps them all. Snapshots the history does not record are never
    /// pruned: `store-tool snapshots` lists them.
    public var keptSnapshots: Int? = 3
    /// Let an inferred migration drop attributes and entities that hold data
    /// and drop links that no longer fit. False by default: such a
    /// migration is refused with `ModelStoreError.destructiveMigration`.
    public var allowsDataLoss = false
    /// Run every pending script in one transaction instead of one each, so
    /// that either all of them apply or none.
    public var runsScriptsInOneTransaction = false
    /// How long to wait for another connection's write lock before failing
    /// cleanly with `ModelStoreError.migrationFailed`.
    public var busyTimeout: Duration = .seconds(5)
    /// Called as a migration advances: each step, and rows copied by table
    /// rebuilds. Called on the thread that migrates.
    public var progress: (@Sendable (MigrationProgress) -> Void)?
    /// Tests only: fail just before the step with this index (0-based,
    /// counting every step and every table operation of the migration), to
    /// check that nothing changes.
    var failsBeforeStep: Int?
    /// Tests only: the failure `failsBeforeStep` injects acts as if the
    /// process were killed there. The transaction is rolled back (as SQLite
    /// rolls back a killed process's transaction when the store is next
    /// opened), but nothing that a failed migration cleans up after itself
    /// (its snapshot and the snapshot's marker) is cleaned up.
    var simulatesKill = false

    /// Options with the defaults: snapshot on (the newest 3 kept), no data
    /// loss, one transaction per script, a 5 s busy timeout, no progress
    /// callback.
    public init() {}
}

/// What a migration is doing, for a progress display.
public struct MigrationProgress: Sendable, CustomStringConvertible {
    /// The step, as the plan names it.
    public let step: String
    /// The step's position (1-based).
    public let stepNumber: Int
    /// The number of steps of the migration.
    public let stepCount: Int
    /// Rows copied so far by the step's table rebuild, if it copies rows.
    public let rowsCopied: Int?
    /// Rows the rebuild copies in all.
    public let rowsTotal: Int?

    /// "[2/5] name: 1200 of 5000 rows", for a progress line.
    public var description: String {
        var text = "[\(stepNumber)/\(stepCount)] \(step)"
        if let rowsCopied, let rowsTotal { text += ": \(rowsCopied) of \(rowsTotal) rows" }
        return text
    }
}
