#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif
import ArgumentParser
import Foundation
import ModelStore
import ModelStoreDynamic

/// `export STORE [ENTITY …] --format json|jsonl|csv [--output FILE]`.
struct Export: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Export the store (json: schema and every object, relationships included) or one entity (jsonl, csv).",
        discussion: """
            json is lossless and is what import reads: the schema record, then per entity every object \
            with its key (Entity:ID), typed attribute values (dates as seconds since 1970, Data as base64, \
            decimals as strings, Codable values as JSON) and relationships (to-one as a key, to-many as an \
            ordered list of keys). jsonl and csv export the rows of one entity, streaming (csv: attributes \
            and to-ones as Entity:ID).

            --output is never the store, its -wal or its -shm (under any name); the file is written \
            under a temporary name beside it and renamed into place when complete, so a failed export \
            leaves an existing file as it was.

            Examples:
              store-tool export trips.store --format json --output trips.json
              store-tool export trips.store Stop --format csv > stops.csv
            """)

    enum Format: String, ExpressibleByArgument, CaseIterable { case json, jsonl, csv }

    @OptionGroup var options: StoreOptions
    @Argument(help: "Only these entities (jsonl and csv: exactly one).") var entities: [String] = []
    @Option(help: "json, jsonl or csv.") var format: Format = .json
    @Option(help: "Write to this file instead of standard output.") var output: String?

    func run() throws {
        try reporting {
            // Checked before the store is opened: truncating the store's own
            // file (or its -wal) under the open connection would destroy it.
            if let output { try OutputFile.refuseStore(output, store: options.store, option: "--output") }
            let store = try options.open()
            let chosen = try entities.map { try store.entity(named: $0) }
            let selected = chosen.isEmpty ? store.schema.entities : chosen
            if format != .json && selected.count != 1 {
                throw ToolError.badInput("--format \(format.rawValue) exports one entity; name it, such as: export STORE Trip --format \(format.rawValue)")
            }
            guard let output else {
                try write(store, selected, to: STDOUT_FILENO, showsProgress: false)
                return
            }
            try OutputFile.write(output) { descriptor in
                try write(store, selected, to: descriptor, showsProgress: true)
            }
        }
    }

    /// Streams the export to `descriptor`.
    /// - Throws: `ToolError` (cannot write the output file) when a write fails.
    private func write(_ store: DynamicStore, _ selected: [Schema.Entity], to descriptor: Int32, showsProgress: Bool) throws {
        let sink = Output(fileDescriptor: descriptor)
        // Progress only when the rows do not go to the terminal too.
        let progress = ProgressLine(whenOutputIsTerminal: showsProgress)
        // Stored values that do not fit their types are exported as
        // `$unreadable` markers (which an import refuses), and counted.
        var unreadable = 0
        switch format {
        case .json: unreadable = try exportJSON(store, selected, sink, progress)
        case .jsonl:
            let entity = selected[0]
            let total = try store.count(entity.name)
            var done = 0
            var query = DynamicQuery(entity: entity.name, sort: ["id"], includesToManyMembers: true)
            query.toleratesUnreadableValues = true
            try store.forEach(query) { object in
                unreadable += object.unreadable.count
                sink.line(DynamicExchange.record(object, entity: entity))
                done += 1
                progress.update("export: \(entity.name)", done, total: total)
            }
        case .csv:
            let entity = selected[0]
            let total = try store.count(entity.name)
            var done = 0
            let fields = entity.attributes.map(\.name) + entity.relationships.filter { !$0.isToMany }.map(\.name)
            let writer = ObjectWriter(format: .csv, fields: fields, output: sink)
            var query = DynamicQuery(entity: entity.name, sort: ["id"])
            query.toleratesUnreadableValues = true
            try store.forEach(query) { object in
                writer.write(object)
                done += 1
                progress.update("export: \(entity.name)", done, total: total)
            }
            writer.finish()
            unreadable = writer.unreadableCount
        }
        sink.flush()
        progress.finish()
        if let failure = sink.failure {
            throw OutputFile.cannotWrite(output ?? "standard output", failure)
        }
        if unreadable > 0 { Terminal.note(UnreadableText.note(unreadable)) }
    }

    /// The schema record, then every object of each entity, streamed.
    /// Returns how many stored values did not fit their types (exported as
    /// `$unreadable` markers).
    private func exportJSON(
        _ store: DynamicStore, _ entities: [Schema.Entity], _ sink: Output, _ progress: ProgressLine
    ) throws -> Int {
        var unreadable = 0
        sink.line(try DynamicExchange.header(schema: store.schema))
        for (index, entity) in entities.enumerated() {
            sink.line((index == 0 ? "" : ",") + ValueJSON.quote(entity.name) + ":[")
            var first = true
            var done = 0
            let total = try store.count(entity.name)
            // Each row once, under its own entity: import writes it back there.
            var query = DynamicQuery(entity: entity.name, sort: ["id"], includesToManyMembers: true, includesSubentities: false)
            query.toleratesUnreadableValues = true
            try store.forEach(query) { object in
                unreadable += object.unreadable.count
                sink.line((first ? "" : ",") + DynamicExchange.record(object, entity: entity))
                first = false
                done += 1
                progress.update("export: \(entity.name)", done, total: total)
            }
            sink.line("]")
        }
        sink.line("}}")
        return unreadable
    }
}

/// `import STORE FILE [--dry-run]`.
struct Import: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Import a JSON export or a JSONL file of records into a store.",
        discussion: """
            FILE is a json export (what export writes by default; a STORE that does not exist is created \
            from its schema) or a jsonl file of records, one per line, as export --format jsonl writes \
            them (read line by line; its records may be of any entities, and a relationship key that is \
            not a record of the file names an object of STORE). The format is told from the first line. \
            Progress (checking, inserting, linking) shows on stderr when it is a terminal, or with \
            --progress as lines.

            Every record is checked against the store's schema first (unknown entities and properties, \
            values of the wrong type or not a case of their enum, missing required values, dangling \
            relationship keys, repeated unique values); every problem is printed, one line each, and \
            nothing is written. Attributes a record leaves out take the default the schema records. Then \
            all objects are inserted in one transaction with new keys, relationships and their order kept.

            --upsert: a record whose unique values (.unique, #Unique) an object of STORE holds updates \
            that object (the attributes and to-ones it gives; a to-many it gives replaces the members) \
            instead of being refused; an entity without unique attributes is refused.

            A csv file (FILE.csv, or any FILE with --entity) holds one entity's objects: a header of \
            property names (id, attributes, to-ones as Entity:ID), an empty unquoted field for nil and \
            "" for the empty string, as export --format csv writes it. Its entity is --entity or the file \
            name's stem (Stop.csv).

            Examples:
              store-tool import copy.store trips.json
              store-tool import trips.store more-trips.json --dry-run
              store-tool import trips.store stops.jsonl
              store-tool import trips.store trips.jsonl --upsert
              store-tool import trips.store Stop.csv
            """)

    @OptionGroup var options: StoreOptions
    @Argument(help: "The json export, jsonl or csv file to read.") var file: String
    @Option(help: "The entity of a csv file's rows (default: the file name's stem, as in Stop.csv); makes FILE csv.")
    var entity: String?
    @Flag(help: "Check and run the import, then roll it back.") var dryRun = false
    @Flag(help: "A record whose unique attributes match an object of STORE updates that object instead of being refused.")
    var upsert = false
    @Flag(
        name: .customLong("progress"),
        help: "Show progress on stderr even when it is not a terminal (as lines; on a terminal it always shows).")
    var showsProgress = false

    func run() throws {
        try reporting {
            do {
                try importFile()
            } catch DynamicStoreError.invalidImport(let problems) {
                for problem in problems { Terminal.error(problem) }
                throw refusal(count: problems.count)
            } catch DynamicStoreError.importProblems(let problems) {
                for problem in problems.listed { Terminal.error(ProblemText.line(problem, labeled: false)) }
                if problems.unlisted > 0 { Terminal.error("… and \(problems.unlisted) more problems") }
                if !upsert && problems.listed.contains(where: { $0.kind == .duplicateUniqueValue }) {
                    Terminal.note("store-tool: note: import --upsert updates an object of the store whose unique values a record holds, instead of refusing the record")
                }
                throw refusal(count: problems.count)
            }
        }
    }

    /// Writes the last line of a refused import; the exit code to throw.
    private func refusal(count: Int) -> ExitCode {
        Terminal.error("\(count) problem\(count == 1 ? "" : "s") in \(file); nothing was imported")
        return ExitCode(ExitStatus.badInput.rawValue)
    }

    private func importFile() throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: file, isDirectory: &isDirectory), !isDirectory.boolValue,
            FileManager.default.isReadableFile(atPath: file)
        else {
            throw ToolError.badInput("cannot read the import file \(file)")
        }
        let source = try DynamicImportSource.open(path: file, entity: entity)
        let progress = ProgressLine(forced: showsProgress)
        defer { progress.finish() }
        let report: (DynamicImportProgress) -> Void = { step in
            progress.update("import: \(step.phase)", step.done, total: step.total)
        }
        let result: DynamicImportResult
        var created = false
        if FileManager.default.fileExists(atPath: options.store) {
            let store = try options.open(readOnly: false)
            result = try store.importObjects(from: source, dryRun: dryRun, upsert: upsert, progress: report)
        } else {
            guard let schema = source.schema else {
                let kind = if case .csv = source { "csv" } else { "jsonl" }
                throw ToolError.badInput(
                    "\(file) is a \(kind) file, which records no schema, and \(options.store) does not exist; import it into an existing store, or import a json export to create one")
            }
            // A new store from the export's schema; a dry run builds it in a
            // temporary folder, and a failed import leaves no file behind.
            let folder = FileManager.default.temporaryDirectory.appending(path: "store-tool-import-\(UUID().uuidString)")
            let path = dryRun ? folder.appending(path: "dry-run.store").path(percentEncoded: false) : options.store
            if dryRun { try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true) }
            defer { if dryRun { try? FileManager.default.removeItem(at: folder) } }
            do {
                let store = try DynamicStore.create(path: path, schema: schema)
                result = try store.importObjects(from: source, dryRun: dryRun, progress: report)
            } catch {
                if !dryRun { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
                throw error
            }
            created = true
        }
        progress.finish()
        let summary = Self.summary(result.counts, noun: "object")
        // Only an upsert updates; the line then says how many.
        let updates = result.updated.isEmpty ? "" : " and update " + Self.summary(result.updated, noun: "existing object")
        if dryRun {
            print("dry run: would import \(summary)\(updates)\(created ? " into a new store" : ""); nothing was written")
        } else {
            let updated = updates.isEmpty ? "" : ", updated " + Self.summary(result.updated, noun: "existing object")
            print("imported \(summary)\(updated)\(created ? " into the new store \(options.store)" : "")")
        }
    }

    /// `7 objects (Trip 3, Stop 4)`: the total, then the count per entity that has any.
    private static func summary(_ counts: [(entity: String, count: Int)], noun: String) -> String {
        let total = counts.reduce(0) { $0 + $1.count }
        let details = counts.filter { $0.count > 0 }.map { "\($0.entity) \($0.count)" }.joined(separator: ", ")
        return "\(total) \(noun)\(total == 1 ? "" : "s")" + (details.isEmpty ? "" : " (\(details))")
    }
}
