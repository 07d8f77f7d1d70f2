import ArgumentParser
import Foundation
import ModelStore
import ModelStoreDynamic

/// `store-tool`: inspects and edits any ModelStore store from the command
/// line, without the app's code, through the dynamic layer (`ModelStoreDynamic`).
@main
struct StoreTool: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "store-tool",
        abstract: "Inspect and edit a ModelStore store without the app's code.",
        discussion: """
            Objects are named Entity:ID (Trip:1). Inspection opens the store read-only; every write is \
            one transaction and takes --dry-run. Output formats: table (the default on a terminal), \
            json, jsonl (the default when piped), csv.

            Exit codes: 0 success, 1 check found problems (or repair left some), 2 bad input, 3 object not found, \
            4 cannot open the store (a write: the file or its folder is not writable), 5 newer store format, 6 store locked, 7 refused by the store's \
            rules, 8 other failure, 9 cannot write the output file, 64 command-line usage (also a \
            number out of its option's range).

            Limits: a filter holds at most 500 conditions, 12 levels of parentheses and not, and \
            10000 values in its in-lists; --wait is 0 to 86400 seconds, --limit and --offset 0 or \
            more, show --depth 0 to 100, migrate --to digits (0002).

            \(FilterHelp.grammar)
            """,
        version: StoreTool.version,
        subcommands: [
            Info.self, SchemaCommand.self, List.self, Count.self, Show.self, SetCommand.self, Insert.self, Delete.self,
            Export.self, Import.self, Check.self, Repair.self, SQL.self, Backup.self, Migrate.self, Snapshots.self,
            History.self, Serve.self,
        ])
}

extension StoreTool {
    /// What `store-tool --version` prints: the tool's version and the store
    /// format it reads and writes (a store of a newer format exits 5). No
    /// release is tagged yet, hence the `-dev`; a release sets the number.
    static let version = "store-tool 0.1.0-dev (ModelStore store format \(StoreFormat.current))"
}

/// The store argument and how long to wait for a lock, shared by every command.
struct StoreOptions: ParsableArguments {
    @Argument(help: "The store file.")
    var store: String

    @Option(
        help: ArgumentHelp("Seconds to wait for another process's lock before giving up (0 to 86400).", valueName: "seconds"),
        transform: NumericOption.seconds)
    var wait: Double = 5

    /// Opens the store; read-only unless the command writes. A store whose
    /// file holds schema objects ModelStore did not make (a trigger, a view,
    /// …) opens read-only with a warning, and refuses every write.
    func open(readOnly: Bool = true) throws -> DynamicStore {
        let opened = try DynamicStore(path: store, readOnly: readOnly, busyTimeout: .milliseconds(NumericOption.milliseconds(wait)))
        let foreign = opened.foreignSchemaObjects
        if !foreign.isEmpty {
            let shown = foreign.prefix(3).map(\.description).joined(separator: ", ") + (foreign.count > 3 ? ", …" : "")
            Terminal.note(
                "store-tool: warning: \(store) holds \(foreign.count) schema object\(foreign.count == 1 ? "" : "s") that ModelStore did not make "
                    + "(\(shown)); opened read-only, and writes are refused until they are removed (see: store-tool check)")
        }
        if let reason = opened.immutableReason {
            Terminal.note("store-tool: note: \(store) opened \(Self.immutableNote(reason))")
        }
        return opened
    }
}

extension StoreOptions {
    /// How a command states that it reads the store immutable (SQLite's
    /// `immutable=1`), and the risk that comes with it.
    static func immutableNote(_ reason: String) -> String {
        "read-only (immutable: \(reason)); this assumes no other process writes the store meanwhile"
    }
}

extension DynamicStore {
    /// Runs `body`, adding "did you mean" to an unknown property.
    func explained<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch ModelStoreError.unknownProperty(let entityName, let property) {
            let candidates = schema.entity(named: entityName).map { suggestions(forProperty: property, of: $0) } ?? []
            throw ToolError.badInput(
                ModelStoreError.unknownProperty(entity: entityName, property: property).description
                    + ProblemText.didYouMean(candidates))
        }
    }

    /// The identifier in `text`, checked against the schema.
    func objectID(_ text: String) throws -> ObjectID {
        guard let id = ObjectID(text) else { throw DynamicStoreError.invalidIdentifier(text) }
        _ = try entity(named: id.entity)
        return id
    }

    /// The property names of an entity in schema order (attributes, then relationships).
    func fieldNames(_ entity: Schema.Entity) -> [String] {
        entity.attributes.map(\.name) + entity.relationships.map(\.name)
    }
}
