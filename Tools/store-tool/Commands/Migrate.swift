import ArgumentParser
import Foundation
import ModelStore
import ModelStoreScripts

/// `migrate`: the library's migration engine (`StoreMigrator`) on a store
/// file, without the app's code.
struct Migrate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Apply migration scripts to a store, show its migration status, or plan without writing.",
        discussion: """
            Scripts are files named NNNN_description.yaml or .sql in the --scripts folder, applied once each, \
            in order, each in its own transaction, after a snapshot of the store (VACUUM INTO) whose path is \
            recorded in the history; the newest 3 snapshots are kept (store-tool snapshots lists and prunes \
            them). --plan runs the migration on a copy and prints every step, its SQL, the \
            tables it rebuilds with their row counts, and whether it destroys data; the store is only read.

            Examples:
              store-tool migrate trips.store --status --scripts Migrations
              store-tool migrate trips.store --scripts Migrations --plan      (or --dry-run)
              store-tool migrate trips.store --scripts Migrations --to 0002
              store-tool migrate trips.store --scripts Migrations --baseline
            """)

    @OptionGroup var options: StoreOptions
    @Option(help: "The folder of migration scripts.") var scripts: String?
    @Flag(help: "Show the store's format, schema version, applied and pending scripts; change nothing.")
    var status = false
    @Flag(help: "Show what would be done, with its SQL; change nothing.") var plan = false
    @Flag(help: "The same as --plan (every write command takes --dry-run).") var dryRun = false
    @Flag(help: "Record the scripts (up to --to) as applied without running them: for a store whose app code already made those changes.")
    var baseline = false
    @Option(help: "Apply scripts up to this version, such as 0002 (all when omitted).", transform: NumericOption.version)
    var to: String?
    @Flag(help: "Apply every pending script in one transaction instead of one each.") var oneTransaction = false
    @Flag(help: "Skip the snapshot taken before the first step.") var noSnapshot = false
    @Flag(help: "Allow steps that drop data (a removed attribute or entity that holds values).") var allowDataLoss = false
    @Option(help: "Output format: text or json.") var format: String = "text"

    func validate() throws {
        guard ["text", "json"].contains(format) else { throw ValidationError("--format must be text or json") }
        if !status && scripts == nil { throw ValidationError("--scripts DIR is required (or use --status)") }
        if [status, plan || dryRun, baseline].filter({ $0 }).count > 1 {
            throw ValidationError("--status, --plan (--dry-run) and --baseline cannot be combined")
        }
    }

    func run() throws {
        try reporting {
            let folder = try scripts.map { path -> URL in
                var isDirectory: ObjCBool = false
                guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else {
                    throw ToolError.badInput("the scripts folder \(path) does not exist")
                }
                return URL(filePath: path)
            }
            var migrationOptions = MigrationOptions()
            migrationOptions.takesSnapshot = !noSnapshot
            migrationOptions.allowsDataLoss = allowDataLoss
            migrationOptions.runsScriptsInOneTransaction = oneTransaction
            migrationOptions.busyTimeout = .milliseconds(NumericOption.milliseconds(options.wait))
            let migrator = try StoreMigrator(
                storeAt: URL(filePath: options.store), scriptsFolder: folder, options: migrationOptions)
            if status {
                try show(try migrator.status())
            } else if plan || dryRun {
                try show(try migrator.plan(to: to))
            } else if baseline {
                try migrator.baseline(through: to)
                try show(try migrator.status())
            } else {
                // Progress only on a terminal: nothing extra when piped.
                let result = try migrator.apply(to: to) { progress in
                    if Terminal.errorIsTerminal { Terminal.note(progress.description) }
                }
                try show(result)
            }
        }
    }

    private func show(_ value: some Encodable) throws {
        guard format == "text" else {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            encoder.dateEncodingStrategy = .iso8601
            print(String(decoding: try encoder.encode(value), as: UTF8.self))
            return
        }
        switch value {
        case let status as MigrationStatus: printStatus(status)
        case let plan as MigrationPlanReport: printPlan(plan)
        case let result as MigrationResult: printResult(result)
        default: break
        }
    }

    private func printStatus(_ status: MigrationStatus) {
        print("Format:          \(status.formatVersion) (this store-tool writes \(status.supportedFormatVersion))")
        print("Schema version:  \(status.schemaVersion)")
        print("Fingerprint:     \(status.schemaFingerprint)")
        print("Applied:         \(status.applied.isEmpty ? "none" : "")")
        let dates = ISO8601DateFormatter()
        for migration in status.applied {
            let version = migration.version.map { "\($0) " } ?? ""
            var line = "  \(version)\(migration.name)  [\(Self.kindText(migration))]  \(dates.string(from: migration.appliedAt))"
            if migration.kind == "script", let changed = status.changed.first(where: { $0.version == migration.version }) {
                line += "  " + Self.changedText(changed)
            }
            print(line)
        }
        guard status.hasScriptsFolder else {
            // The history records what ran, not what a folder holds.
            print("Pending:         \(Self.unknownPending)")
            return
        }
        print("Pending:         \(status.pending.isEmpty ? "none" : "")")
        for script in status.pending { print("  \(script.version) \(script.fileName)") }
        if !status.changed.isEmpty {
            print("Applying refuses while an applied script is changed: restore it and put the change in a new script.")
        }
    }

    /// A recorded migration's kind, with "baseline" for a script recorded
    /// without running.
    static func kindText(_ migration: AppliedMigration) -> String {
        migration.isBaseline ? "\(migration.kind), baseline: not run" : migration.kind
    }

    /// What `--status` and `info` say of pending scripts without a folder.
    static let unknownPending = "unknown (give --scripts DIR)"

    /// How `--status` and `info` mark an applied script whose file changed.
    static func changedText(_ script: ChangedMigrationScript) -> String {
        "changed since applied (checksum \(script.checksum.prefix(12))…, recorded \(script.recordedChecksum.prefix(12))…)"
    }

    private func printPlan(_ plan: MigrationPlanReport) {
        if plan.steps.isEmpty && plan.scripts.isEmpty {
            print("Nothing to do: the store is up to date.")
            return
        }
        print("Scripts: " + (plan.scripts.isEmpty ? "none" : plan.scripts.map(\.fileName).joined(separator: ", ")))
        for (index, step) in plan.steps.enumerated() {
            print("\(index + 1). \(step.name)\(step.destroysData ? "  (destroys data)" : "")")
            for table in step.rebuiltTables { print("   rebuilds \(table.table): \(table.rows) rows copied") }
            for sql in step.sql { print("   \(sql)") }
        }
        if plan.destroysData {
            // Planning refuses what applying refuses: a plan made without
            // --allow-data-loss only drops what holds no values.
            print(
                allowDataLoss
                    ? "Some steps destroy data, which --allow-data-loss allows."
                    : "Some steps drop columns or tables; none holds values (a drop that would lose values needs --allow-data-loss).")
        }
    }

    private func printResult(_ result: MigrationResult) {
        if result.applied.isEmpty {
            print("Nothing to apply: the store is up to date.")
        } else {
            print("Applied: " + result.applied.map(\.fileName).joined(separator: ", "))
        }
        if let snapshot = result.snapshotPath { print("Snapshot: \(snapshot)") }
        print("Fingerprint: \(result.schemaFingerprint)")
    }
}
