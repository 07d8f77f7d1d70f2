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

    /// Options with the defaults: snapshot on, no data loss, one transaction
    /// per script, a 5 s busy timeout, no progress callback.
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
