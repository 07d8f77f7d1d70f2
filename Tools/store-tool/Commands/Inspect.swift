import ArgumentParser
import Foundation
import ModelStore
import ModelStoreDynamic
import ModelStoreScripts

/// `info STORE`.
struct Info: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show the store's format, schema version, fingerprint, entities with counts, size and journal mode.",
        discussion: "Examples:\n  store-tool info trips.store\n  store-tool info trips.store --scripts Migrations")

    @OptionGroup var options: StoreOptions
    @Option(help: "table (text) or json.") var format: OutputFormat?
    @Option(help: "A folder of migration scripts: lists those not applied yet.") var scripts: String?

    func validate() throws {
        try OutputFormat.require(format, in: [.table, .json], for: "info")
    }

    func run() throws {
        try reporting {
            let store = try options.open()
            var counts: [(String, Int)] = []
            for entity in store.schema.entities { counts.append((entity.name, try store.count(entity.name))) }
            let recorded = store.metadata["schemaFingerprint"].flatMap { value -> String? in
                if case .text(let text) = value { return text }
                return nil
            } ?? "none"
            let fingerprintNote = recorded == store.schema.fingerprint ? "matches the schema record" : "differs from the schema record's \(store.schema.fingerprint)"
            let migration = try StoreMigrator(
                storeAt: URL(filePath: options.store), scriptsFolder: scripts.map { URL(filePath: $0) }
            ).status()
            let lastMigration = migration.applied.last.map { applied in
                (applied.version.map { "\($0) " } ?? "") + "\(applied.name) (\(Migrate.kindText(applied))) at "
                    + ISO8601DateFormatter().string(from: applied.appliedAt)
            } ?? "none recorded"
            let pending =
                scripts == nil
                ? Migrate.unknownPending
                : (migration.pending.isEmpty ? "none" : migration.pending.map(\.fileName).joined(separator: ", "))
            let changed = migration.changed.map { "\($0.fileName) \(Migrate.changedText($0))" }.joined(separator: ", ")
            // Codable attributes whose values are checked only as JSON.
            let unrecordedStructures = store.schema.attributesOfUnknownStructure.map { "\($0.entity).\($0.attribute.name)" }
            let output = Output()
            if OutputFormat.resolved(format) == .table {
                output.line("File:            \(store.path) (\(store.fileSize) bytes)")
                output.line("Format:          \(store.formatVersion)")
                output.line("Schema version:  \(store.schema.version)")
                output.line("Fingerprint:     \(recorded) (\(fingerprintNote))")
                output.line("Store id:        \(store.storeIdentifier)")
                output.line("Journal mode:    \(try store.journalMode())")
                output.line("Opened:          \(store.immutableReason.map(StoreOptions.immutableNote) ?? "read-only")")
                output.line("Last migration:  \(lastMigration)")
                output.line("Pending scripts: \(pending)")
                if !changed.isEmpty { output.line("Changed scripts: \(changed)") }
                if !unrecordedStructures.isEmpty {
                    output.line("JSON unchecked:  \(unrecordedStructures.joined(separator: ", ")) (structure not recorded)")
                }
                output.line("Entities:")
                let width = counts.map(\.0.count).max() ?? 0
                for (name, count) in counts {
                    output.line("  " + name.padding(toLength: width, withPad: " ", startingAt: 0) + "  \(count) object\(count == 1 ? "" : "s")")
                }
            } else {
                let entities = counts.map { "{\"name\":\(JSONText.string($0.0)),\"count\":\($0.1)}" }.joined(separator: ",")
                output.line(
                    "{\"path\":\(JSONText.string(store.path)),\"fileSize\":\(store.fileSize),\"format\":\(store.formatVersion),"
                        + "\"schemaVersion\":\(JSONText.string(store.schema.version.description)),"
                        + "\"fingerprint\":\(JSONText.string(recorded)),\"storeIdentifier\":\(JSONText.string(store.storeIdentifier)),"
                        + "\"journalMode\":\(JSONText.string(try store.journalMode())),"
                        + "\"immutable\":\(store.immutableReason.map(JSONText.string) ?? "null"),\"lastMigration\":\(JSONText.string(lastMigration)),"
                        + "\"pendingScripts\":\(JSONText.string(pending)),"
                        + "\"changedScripts\":[\(migration.changed.map { JSONText.string($0.fileName) }.joined(separator: ","))],"
                        + "\"unrecordedStructures\":[\(unrecordedStructures.map(JSONText.string).joined(separator: ","))],"
                        + "\"entities\":[\(entities)]}")
            }
            output.flush()
        }
    }

    /// The last row of the migration history, when the store has one.
}

/// `sql STORE "SELECT …"`.
struct SQL: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run one read-only SQL statement (for power users); statements that write are refused.",
        discussion: "Example:\n  store-tool sql trips.store 'SELECT name, date(startDate, \"unixepoch\") FROM Trip'")

    @OptionGroup var options: StoreOptions
    @Argument(help: "One SELECT (or another read-only statement).") var statement: String
    @Option(help: "table, json, jsonl or csv (default: table on a terminal, jsonl when piped).") var format: OutputFormat?

    func run() throws {
        try reporting {
            let store = try options.open(readOnly: true)
            let output = Output()
            let format = OutputFormat.resolved(format)
            var rows = 0
            var columnNames: [String] = []
            try store.readOnlyQuery(statement) { columns, row in
                columnNames = columns
                let cells = row.map(sqlText)
                switch format {
                case .json, .jsonl:
                    let object = "{" + zip(columns, row).map { JSONText.string($0) + ":" + sqlJSON($1) }.joined(separator: ",") + "}"
                    output.line(format == .jsonl ? object : (rows == 0 ? "[" : ",") + object)
                case .csv:
                    if rows == 0 { output.line(columns.map(CSVFormat.field).joined(separator: ",")) }
                    // NULL is an empty field, as `export` writes nil (`CSVFormat`).
                    output.line(row.map { CSVFormat.field($0 == .null ? nil : sqlText($0)) }.joined(separator: ","))
                case .table:
                    if rows == 0 { output.line(columns.joined(separator: "|")) }
                    output.line(cells.joined(separator: "|"))
                }
                rows += 1
            }
            if format == .json { output.line(rows == 0 ? "[]" : "]") }
            if format == .csv && rows == 0 && !columnNames.isEmpty { output.line(columnNames.map(CSVFormat.field).joined(separator: ",")) }
            output.flush()
        }
    }
}

/// `backup STORE FILE`.
struct Backup: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Copy the store consistently through SQLite's backup API.",
        discussion: """
            The copy is written under a temporary name beside FILE and appears only when it is complete; \
            FILE must not exist, and may not be the store, its -wal or its -shm under any name.

            Example:
              store-tool backup trips.store trips-2025-06-01.store
            """)

    @OptionGroup var options: StoreOptions
    @Argument(help: "The new file (must not exist; never the store, its -wal or its -shm).") var destination: String
    @Flag(help: "Check that the copy can be made (the store opens, the file is new, its folder exists) and write nothing.")
    var dryRun = false

    func run() throws {
        try reporting {
            try OutputFile.refuseStore(destination, store: options.store, option: "the backup")
            let store = try options.open(readOnly: true)
            if dryRun {
                try OutputFile.checkCreatable(destination)
                print("dry run: would copy \(store.path) (\(store.fileSize) bytes) to \(destination); nothing was written")
                return
            }
            // The copy is made under a temporary name and appears whole, or not at all.
            try OutputFile.create(destination) { file in
                do {
                    try store.backup(to: file) { done, total in Terminal.progress("backup: pages", done, total) }
                } catch let error as SQLiteError where error.primaryCode != SQLiteError.busy {
                    throw ToolError(status: .cannotWrite, message: "cannot write \(destination): \(error.message)")
                }
            }
            print("backed up \(store.path) to \(destination)")
        }
    }
}

/// A SQLite value as text.
func sqlText(_ value: SQLiteValue) -> String {
    switch value {
    case .null: "NULL"
    case .integer(let value): String(value)
    case .real(let value): "\(value)"
    case .text(let value): value
    case .blob(let value): "x'" + value.map { String(format: "%02x", $0) }.joined() + "'"
    }
}

private func sqlJSON(_ value: SQLiteValue) -> String {
    switch value {
    case .null: "null"
    case .integer(let value): String(value)
    case .real(let value) where value.isFinite: "\(value)"
    default: JSONText.string(sqlText(value))
    }
}
