import Foundation

/// One step of a migration: a schema change, a custom stage's closure, a
/// script's SQL block, a format upgrade. What it does in detail (each table
/// operation, its SQL, rows copied) is recorded while it runs, which is how
/// a plan is made: by running on a copy of the store.
package struct MigrationStep {
    /// The step's name in progress and errors: "0003_split_full_name.yaml", "custom stage 1.0.0 → 2.0.0".
    package let name: String
    /// The work, inside the migration's transaction.
    package let run: (MigrationRunContext) throws -> Void

    package init(name: String, run: @escaping (MigrationRunContext) throws -> Void) {
        self.name = name
        self.run = run
    }

    /// A step that changes the tables from one schema to another, planning
    /// its operations on the data as it is when the step runs.
    package static func schemaChange(_ change: SchemaChange, name: String) -> MigrationStep {
        MigrationStep(name: name) { context in
            let operations = try change.operations(context.connection, path: context.path)
            for operation in operations {
                context.record(
                    PlannedStep(
                        name: "\(name): \(operation.summary)", sql: operation.sql, rebuiltTables: operation.rebuiltTables,
                        destroysData: operation.destroysData))
                try context.beginSubstep(operation.summary)
                try operation.run(context)
            }
            context.substep = nil
        }
    }
}

/// A group of steps that commit together, then record their result.
package struct MigrationTransaction {
    package var steps: [MigrationStep]
    /// Runs last inside the transaction: writes the schema record and history.
    package var finish: (MigrationRunContext) throws -> Void

    package init(steps: [MigrationStep], finish: @escaping (MigrationRunContext) throws -> Void) {
        self.steps = steps
        self.finish = finish
    }
}

/// What a running step sees: the connection, its own name, and the progress callback.
package final class MigrationRunContext {
    package let connection: Connection
    let path: String
    let progress: (@Sendable (MigrationProgress) -> Void)?
    private(set) var stepName = ""
    private(set) var stepNumber = 0
    let stepCount: Int
    /// The snapshot taken before the first step, if any.
    package var snapshotPath: String?
    /// When the current transaction began, for the history's durations.
    package var transactionStart = Date()
    /// What the steps did, in order, as a plan shows it.
    private(set) var recorded: [PlannedStep] = []
    /// The operation of the current step that is running, for errors.
    var substep: String?
    /// The full name of what is running: "step: operation".
    var currentName: String { substep.map { "\(stepName): \($0)" } ?? stepName }

    package func record(_ step: PlannedStep) { recorded.append(step) }

    init(connection: Connection, path: String, stepCount: Int, progress: (@Sendable (MigrationProgress) -> Void)?) {
        self.connection = connection
        self.path = path
        self.stepCount = stepCount
        self.progress = progress
    }

    /// Tests only: the index (counting steps and their operations) before
    /// which to fail.
    var failsBeforeStep: Int?
    private var started = 0

    private func injectFailure() throws {
        defer { started += 1 }
        if failsBeforeStep == started {
            throw ModelStoreError.migrationFailed(path: path, step: currentName, reason: "injected failure")
        }
    }

    func begin(_ step: MigrationStep) throws {
        stepNumber += 1
        stepName = step.name
        substep = nil
        try injectFailure()
        progress?(MigrationProgress(step: step.name, stepNumber: stepNumber, stepCount: stepCount, rowsCopied: nil, rowsTotal: nil))
    }

    func beginSubstep(_ summary: String) throws {
        substep = summary
        try injectFailure()
        progress?(MigrationProgress(step: currentName, stepNumber: stepNumber, stepCount: stepCount, rowsCopied: nil, rowsTotal: nil))
    }

    func report(rowsCopied: Int, of total: Int) {
        progress?(
            MigrationProgress(step: currentName, stepNumber: stepNumber, stepCount: stepCount, rowsCopied: rowsCopied, rowsTotal: total))
    }
}

/// Runs migration transactions on one connection: foreign keys off outside
/// the transaction, `BEGIN IMMEDIATE` (waiting within the busy timeout), a
/// snapshot before the first step, every step, `foreign_key_check`, commit;
/// on any error a rollback, so the store is as it was (and the snapshot,
/// which nothing recorded, removed), and an error naming the step. After the
/// last commit, the snapshots beyond `MigrationOptions.keptSnapshots` go.
struct MigrationRunner {
    let connection: Connection
    let path: String
    let options: MigrationOptions
    /// The store file, for snapshots; nil for an in-memory store.
    let fileURL: URL?

    /// - Returns: the context, with the snapshot's path and what was done.
    /// - Throws: `ModelStoreError.migrationFailed` naming the step (or the
    ///   error a step threw when it already names what is wrong:
    ///   `destructiveMigration`, `noMigrationPath`, `duplicateValues`,
    ///   `scriptChecksumMismatch`).
    @discardableResult
    func run(_ transactions: [MigrationTransaction]) throws -> MigrationRunContext {
        let stepCount = transactions.reduce(0) { $0 + $1.steps.count }
        let context = MigrationRunContext(connection: connection, path: path, stepCount: stepCount, progress: options.progress)
        let milliseconds = options.busyTimeout.components.seconds * 1000 + options.busyTimeout.components.attoseconds / 1_000_000_000_000_000
        try connection.setBusyTimeout(milliseconds: Int32(clamping: milliseconds))
        try connection.execute("PRAGMA foreign_keys = OFF")
        defer { try? connection.execute("PRAGMA foreign_keys = ON") }
        context.failsBeforeStep = options.failsBeforeStep
        let snapshots = options.takesSnapshot ? fileURL.map { SnapshotFolder(store: $0, folder: options.snapshotFolder) } : nil
        // Whether a committed transaction recorded the snapshot in the
        // history (the first one does: every first transaction's finish
        // records `context.snapshotPath`).
        var snapshotRecorded = false
        for (number, transaction) in transactions.enumerated() {
            do {
                try connection.execute("BEGIN IMMEDIATE TRANSACTION")
            } catch {
                throw ModelStoreError.migrationFailed(
                    path: path, step: transaction.steps.first?.name ?? "begin",
                    reason: error.primaryCode == SQLiteError.busy ? ModelStoreError.migrationLockTimeout : error.message)
            }
            context.transactionStart = Date()
            do {
                if number == 0, let snapshots { context.snapshotPath = try takeSnapshot(in: snapshots) }
                for step in transaction.steps {
                    try context.begin(step)
                    try runStep(step, context)
                }
                try checkForeignKeys(transaction.steps.last?.name ?? "check")
                try transaction.finish(context)
                try connection.execute("COMMIT TRANSACTION")
            } catch {
                if !connection.isAutocommit { try? connection.execute("ROLLBACK TRANSACTION") }
                // Nothing recorded the snapshot, and the store is again what
                // it holds: it would only be an orphan.
                if let snapshots, let taken = context.snapshotPath, !snapshotRecorded, !options.simulatesKill {
                    snapshots.discard(taken)
                }
                throw error
            }
            if let snapshots, let taken = context.snapshotPath, !snapshotRecorded {
                snapshotRecorded = true
                snapshots.finish(taken)
            }
        }
        if let snapshots, context.snapshotPath != nil, let kept = options.keptSnapshots {
            // The migration is done; failing to read the history only means
            // that old snapshots stay until the next one.
            snapshots.prune(keeping: max(1, kept), history: (try? MigrationHistory.read(connection)) ?? [])
        }
        return context
    }

    private func runStep(_ step: MigrationStep, _ context: MigrationRunContext) throws {
        do {
            try step.run(context)
        } catch let error as ModelStoreError {
            switch error {
            case .migrationFailed, .destructiveMigration, .duplicateValues, .scriptChecksumMismatch,
                .invalidMigrationScript, .noMigrationPath:
                throw error
            default:
                throw ModelStoreError.migrationFailed(path: path, step: context.currentName, reason: error.description)
            }
        } catch let error as SQLiteError {
            throw ModelStoreError.migrationFailed(path: path, step: context.currentName, reason: error.description)
        } catch {
            throw ModelStoreError.migrationFailed(path: path, step: context.currentName, reason: "\(error)")
        }
    }

    private func checkForeignKeys(_ step: String) throws {
        let statement = try connection.prepare("PRAGMA foreign_key_check")
        var problems: [String] = []
        while try statement.step(), problems.count < 10 {
            problems.append("\(statement.string(at: 0)) row \(statement.int64(at: 1)) refers to a missing \(statement.string(at: 2))")
        }
        if !problems.isEmpty {
            throw ModelStoreError.migrationFailed(
                path: path, step: step, reason: "foreign_key_check: " + problems.joined(separator: "; "))
        }
    }

    /// Removes what killed migrations left in the snapshot folder, then
    /// takes this migration's snapshot (see `SnapshotFolder`). Runs inside
    /// the first transaction: the write lock it holds is what tells that
    /// any marker found belongs to a migration that is gone.
    private func takeSnapshot(in snapshots: SnapshotFolder) throws -> String? {
        guard let fileURL else { return nil }
        let identifier: String
        let history: [AppliedMigration]
        do {
            identifier = try storeIdentifier()
            history = try MigrationHistory.read(connection)
        } catch {
            throw ModelStoreError.migrationFailed(path: path, step: "snapshot", reason: "\(error)")
        }
        snapshots.removeUnfinished(identifier: identifier, history: history)
        return try snapshots.take(
            of: fileURL.path(percentEncoded: false), identifier: identifier, history: history, displayPath: path)
    }

    /// The identifier the store's metadata records ("" when it has none).
    private func storeIdentifier() throws -> String {
        let statement = try connection.prepare(
            "SELECT \"value\" FROM \(quoteIdentifier(MetadataKey.table)) WHERE \"key\" = ?")
        try statement.bind(MetadataKey.storeIdentifier, at: 1)
        guard try statement.step(), statement.storage(at: 0) == .text else { return "" }
        return statement.string(at: 0)
    }
}

extension ModelStoreError {
    /// The `reason` of a `migrationFailed` whose transaction could not begin
    /// because another connection held the store's lock past the busy
    /// timeout: store-tool tells a lock from other failures by it (its exit
    /// code for a locked store).
    package static let migrationLockTimeout =
        "the store is in use by another connection, which held its lock longer than the busy timeout"
}
