import ArgumentParser
import Foundation
import ModelStore

/// `snapshots`: the store's migration snapshots (`StoreMigrator.snapshots()`),
/// and their removal by path or by the pruning rule.
struct Snapshots: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List a store's migration snapshots; remove them by path, or prune them.",
        discussion: """
            A migration copies the store before its first step to NAME-before-migration-TIME.store and \
            records the copy in the store's history. Each snapshot is listed with its state, size, time, \
            path and the migrations recorded after it:
              recorded    complete, in the history: restore by copying it over the store (app closed)
              missing     in the history, but the file was removed
              unfinished  left by a migration that was killed; never complete; the next migration removes it
              unrecorded  a complete copy of this store that the history does not record
              damaged     named like this store's snapshots, but not a readable store (a copy cut short)

            --remove takes paths as listed. --prune removes unfinished and damaged snapshots and the recorded \
            ones beyond the newest --keep (3, as a migration keeps by default); --unrecorded adds the \
            unrecorded ones. Both hold the store's write lock while they remove, so that a running \
            migration's snapshot is never taken away, and take --dry-run.

            Examples:
              store-tool snapshots trips.store
              store-tool snapshots trips.store --prune --keep 1 --dry-run
              store-tool snapshots trips.store --remove trips-before-migration-2025-06-01T10-00-00.250Z.store
            """)

    @OptionGroup var options: StoreOptions
    @Option(parsing: .upToNextOption, help: "Remove these snapshots (paths as listed).") var remove: [String] = []
    @Flag(help: "Remove unfinished and damaged snapshots, and recorded ones beyond the newest --keep.") var prune = false
    @Option(help: "With --prune: how many recorded snapshots to keep (default: 3).") var keep: Int?
    @Flag(help: "With --prune: also remove complete snapshots that the history does not record.") var unrecorded = false
    @Option(help: "The folder the app's migrationOptions.snapshotFolder names (default: the store's folder).")
    var folder: String?
    @Flag(help: "Show what would be removed; remove nothing.") var dryRun = false
    @Option(help: "Output format: text or json.") var format: String = "text"

    func validate() throws {
        guard ["text", "json"].contains(format) else { throw ValidationError("--format must be text or json") }
        if prune && !remove.isEmpty { throw ValidationError("--remove and --prune cannot be combined") }
        if !prune && (unrecorded || keep != nil) { throw ValidationError("--keep and --unrecorded go with --prune") }
        if let keep, keep < 0 { throw ValidationError("--keep must be 0 or more") }
        if dryRun && !prune && remove.isEmpty { throw ValidationError("--dry-run goes with --remove or --prune") }
    }

    func run() throws {
        try reporting {
            var migrationOptions = MigrationOptions()
            migrationOptions.snapshotFolder = folder.map { URL(filePath: $0) }
            migrationOptions.busyTimeout = .milliseconds(Int(max(0, options.wait) * 1000))
            let migrator = try StoreMigrator(storeAt: URL(filePath: options.store), options: migrationOptions)
            if prune {
                try showRemoved(try migrator.pruneSnapshots(keeping: keep ?? 3, includingUnrecorded: unrecorded, dryRun: dryRun))
            } else if !remove.isEmpty {
                try showRemoved(try migrator.removeSnapshots(remove, dryRun: dryRun))
            } else {
                try show(try migrator.snapshots())
            }
        }
    }

    private func show(_ snapshots: [MigrationSnapshot]) throws {
        guard format == "text" else { return try printJSON(snapshots) }
        guard !snapshots.isEmpty else {
            print("No snapshots of \(options.store).")
            return
        }
        let dates = ISO8601DateFormatter()
        let rows = snapshots.map { snapshot in
            [
                snapshot.state.rawValue, snapshot.size.map { "\($0) bytes" } ?? "-",
                snapshot.created.map { dates.string(from: $0) } ?? "-", snapshot.path,
                snapshot.migrations.joined(separator: ", "),
            ]
        }
        let widths = (0..<4).map { column in rows.map { $0[column].count }.max() ?? 0 }
        for row in rows {
            let cells = (0..<4).map { row[$0].padding(toLength: widths[$0], withPad: " ", startingAt: 0) } + [row[4]]
            print(cells.joined(separator: "  ").trimmingCharacters(in: .whitespaces))
        }
    }

    private func showRemoved(_ removed: [MigrationSnapshot]) throws {
        guard format == "text" else { return try printJSON(removed) }
        let verb = dryRun ? "would remove" : "removed"
        for snapshot in removed { print("\(verb) \(snapshot.state.rawValue) \(snapshot.path)") }
        if removed.isEmpty { print("Nothing to remove.") }
        if dryRun { print("dry run: nothing was removed") }
    }

    private func printJSON(_ snapshots: [MigrationSnapshot]) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        print(String(decoding: try encoder.encode(snapshots), as: UTF8.self))
    }
}
