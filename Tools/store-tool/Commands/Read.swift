import ArgumentParser
import Foundation
import ModelStore
import ModelStoreDynamic

/// `list STORE ENTITY`.
struct List: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the objects of an entity, streaming.",
        discussion: """
            Example:
              store-tool list trips.store Trip --where 'status == "booked" and stops.count > 1' --sort startDate:desc --limit 10

            \(FilterHelp.grammar)
            """)

    @OptionGroup var options: StoreOptions
    @Argument(help: "The entity.") var entity: String
    @Option(name: .customLong("where"), help: "A filter, such as 'age > 30 and name contains \"x\"'.") var filter: String?
    @Option(help: "Sort keys: KEY[:desc],… (a property, a.b through to-ones, or id).") var sort: String?
    @Option(help: "At most this many objects (0 or more).", transform: NumericOption.count) var limit: Int?
    @Option(help: "Skip this many objects first (0 or more).", transform: NumericOption.count) var offset: Int?
    @Option(help: "The properties to show: a,b,… (all by default).") var fields: String?
    @Option(help: "table, json, jsonl or csv (default: table on a terminal, jsonl when piped).") var format: OutputFormat?

    func run() throws {
        try reporting {
            let store = try options.open()
            let entity = try store.entity(named: self.entity)
            let fields = try selectedFields(fields, of: entity, in: store)
            var query = DynamicQuery(
                entity: entity.name, filter: filter, sort: sort.map(splitList) ?? [], limit: limit, offset: offset)
            query.toleratesUnreadableValues = true
            let output = Output()
            let writer = ObjectWriter(format: OutputFormat.resolved(format), fields: fields, output: output)
            // Progress when the rows go to a file or a pipe and stderr is a terminal.
            let progress = ProgressLine(whenOutputIsTerminal: false)
            var done = 0
            try store.explained {
                try store.forEach(query) { object in
                    writer.write(object)
                    done += 1
                    progress.update("list: \(entity.name)", done)
                }
            }
            writer.finish()
            progress.finish()
            if writer.unreadableCount > 0 { Terminal.note(UnreadableText.note(writer.unreadableCount)) }
        }
    }
}

/// `count STORE ENTITY`.
struct Count: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Count the objects of an entity.",
        discussion: "Example:\n  store-tool count trips.store Trip --where 'budget != nil'")

    @OptionGroup var options: StoreOptions
    @Argument(help: "The entity.") var entity: String
    @Option(name: .customLong("where"), help: "A filter.") var filter: String?

    func run() throws {
        try reporting {
            let store = try options.open()
            let count = try store.explained { try store.count(entity, filter: filter) }
            print(count)
        }
    }
}

/// `show STORE Entity:ID`.
struct Show: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show one object with its relationships followed to a depth.",
        discussion: "Example:\n  store-tool show trips.store Trip:1 --depth 1")

    @OptionGroup var options: StoreOptions
    @Argument(help: "The object, Entity:ID.") var object: String
    @Option(help: "How many relationship levels to follow (0 to 100).", transform: NumericOption.depth) var depth: Int = 0
    @Option(help: "table or json.") var format: OutputFormat?

    func validate() throws {
        try OutputFormat.require(format, in: [.table, .json], for: "show")
    }

    func run() throws {
        try reporting {
            let store = try options.open()
            let id = try store.objectID(object)
            guard let root = try store.object(id, toleratingUnreadable: true) else { throw DynamicStoreError.objectNotFound(id) }
            let output = Output()
            var walk = Walk()
            if OutputFormat.resolved(format) == .table {
                try printTree(root, store: store, depth: depth, indent: "", walk: &walk, output: output)
            } else {
                output.line(try jsonTree(root, store: store, depth: depth, walk: &walk))
            }
            output.flush()
            if walk.unreadable > 0 { Terminal.note(UnreadableText.note(walk.unreadable)) }
        }
    }

    /// What a walk of the relationships has met: the objects shown (each
    /// once), and the stored values that did not fit their types.
    private struct Walk {
        var shown: Set<ObjectID> = []
        var unreadable = 0
    }

    private func printTree(
        _ object: DynamicObject, store: DynamicStore, depth: Int, indent: String, walk: inout Walk, output: Output
    ) throws {
        walk.shown.insert(object.id)
        walk.unreadable += object.unreadable.count
        let entity = try store.entity(named: object.id.entity)
        output.line(indent + object.id.description)
        let names = store.fieldNames(entity)
        let width = names.map(\.count).max() ?? 0
        for name in names {
            let value = object[name] ?? .null
            output.line(indent + "  " + name.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + ObjectWriter.text(object, name))
            guard depth > 0 else { continue }
            for related in relatedIDs(value) where !walk.shown.contains(related) {
                guard let child = try store.object(related, toleratingUnreadable: true) else { continue }
                try printTree(child, store: store, depth: depth - 1, indent: indent + "    ", walk: &walk, output: output)
            }
        }
    }

    private func jsonTree(_ object: DynamicObject, store: DynamicStore, depth: Int, walk: inout Walk) throws -> String {
        walk.shown.insert(object.id)
        walk.unreadable += object.unreadable.count
        let entity = try store.entity(named: object.id.entity)
        var parts = ["\"id\":" + JSONText.string(object.id.description)]
        for name in store.fieldNames(entity) {
            let value = object[name] ?? .null
            var text = object.unreadable[name].map(UnreadableText.json) ?? JSONText.value(value)
            if depth > 0 {
                let ids = relatedIDs(value)
                if !ids.isEmpty {
                    var children: [String] = []
                    for related in ids {
                        if !walk.shown.contains(related), let child = try store.object(related, toleratingUnreadable: true) {
                            children.append(try jsonTree(child, store: store, depth: depth - 1, walk: &walk))
                        } else {
                            children.append(JSONText.string(related.description))
                        }
                    }
                    if case .objects = value { text = "[" + children.joined(separator: ",") + "]" } else { text = children[0] }
                }
            }
            parts.append(JSONText.string(name) + ":" + text)
        }
        return "{" + parts.joined(separator: ",") + "}"
    }

    private func relatedIDs(_ value: DynamicValue) -> [ObjectID] {
        switch value {
        case .object(let id): [id]
        case .objects(let ids): ids
        default: []
        }
    }
}

/// Splits `a,b, c` into names.
func splitList(_ text: String) -> [String] {
    text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
}

/// The fields `--fields` names, checked against the entity.
func selectedFields(_ text: String?, of entity: Schema.Entity, in store: DynamicStore) throws -> [String] {
    let all = store.fieldNames(entity)
    guard let text else { return all }
    return try splitList(text).filter { $0 != "id" }.map { name in
        guard all.contains(name) else {
            throw ToolError.badInput(
                ModelStoreError.unknownProperty(entity: entity.name, property: name).description
                    + ProblemText.didYouMean(store.suggestions(forProperty: name, of: entity)))
        }
        return name
    }
}
