import Foundation
import ModelStore
import ModelStoreDynamic
import ReliabilitySupport

// The worker's side of the cross-process merge tests
// (Tests/ReliabilityTests/ChildProcessMergeTests.swift): it opens the store
// the test holds open and commits one change to it, as another process of
// the app (a context), as store-tool (the dynamic layer), or as a process
// that prunes the change history, then exits.

enum CardEdits {
    /// `cards --store PATH [--author NAME] --edits E|E|…`: makes the edits in
    /// one context with `author` and saves them in one save. An edit is
    /// `set KEY text=VALUE`, `set KEY count=N`, `delete KEY` or
    /// `insert KEY TEXT`. Prints "saved". `container`: the store's, when it
    /// is not the SQLite file `--store` names (`postgres-cards`).
    /// - Throws: `WorkerError` for an edit it cannot read or a card it cannot find.
    static func save(_ options: Options, in container: ModelContainer? = nil) throws {
        let context = ModelContext(try container ?? Shared.container(try options.url("store")))
        context.author = options.values["author"]
        for edit in try edits(options) {
            switch (edit.first, edit.count) {
            case ("set", 3):
                let card = try find(edit[1], in: context)
                let (name, value) = try assignment(edit[2])
                switch name {
                case "text": card.text = value
                case "count":
                    guard let count = Int(value) else { throw WorkerError("count=\(value) is not a number") }
                    card.count = count
                default: throw WorkerError("a card has no property \(name)")
                }
            case ("delete", 2): context.delete(try find(edit[1], in: context))
            case ("insert", 3): context.insert(Shared.Card(key: edit[1], text: edit[2]))
            default: throw WorkerError("cannot read the edit \(edit.joined(separator: " "))")
            }
        }
        try context.save()
        say("saved")
    }

    /// `cards-tool --store PATH --edits E|E|…`: the edits through the
    /// dynamic layer, as store-tool's `set` and `delete` make them, each its
    /// own transaction. An edit is `set KEY PROPERTY=VALUE` or `delete KEY`.
    /// Prints "saved".
    /// - Throws: `WorkerError` for an edit it cannot read or a card it cannot find.
    static func saveAsTool(_ options: Options) throws {
        let store = try DynamicStore(path: try options.string("store"), readOnly: false)
        for edit in try edits(options) {
            let ids = try store.objectIDs("Card", filter: "key == '\(edit.count > 1 ? edit[1] : "")'")
            guard let id = ids.first, ids.count == 1 else { throw WorkerError("no card \(edit.joined(separator: " "))") }
            switch (edit.first, edit.count) {
            case ("set", 3): _ = try store.update(id, [try DynamicEdit(parsing: edit[2])])
            case ("delete", 2): _ = try store.delete([id])
            default: throw WorkerError("cannot read the edit \(edit.joined(separator: " "))")
            }
        }
        say("saved")
    }

    /// `prune-history --store PATH`: deletes the whole change history, as
    /// `deleteHistory` with no predicate. Prints "pruned".
    /// - Throws: what `deleteHistory` throws.
    static func pruneHistory(_ options: Options) throws {
        let context = ModelContext(try Shared.container(try options.url("store")))
        try context.deleteHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        say("pruned")
    }

    /// The edits, each split into at most three words.
    private static func edits(_ options: Options) throws -> [[String]] {
        try options.string("edits").split(separator: "|").map {
            $0.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: true).map(String.init)
        }
    }

    private static func assignment(_ text: String) throws -> (String, String) {
        let parts = text.split(separator: "=", maxSplits: 1).map(String.init)
        guard parts.count == 2 else { throw WorkerError("expected PROPERTY=VALUE, found \(text)") }
        return (parts[0], parts[1])
    }

    private static func find(_ key: String, in context: ModelContext) throws -> Shared.Card {
        let cards = try context.fetch(FetchDescriptor<Shared.Card>(predicate: #Predicate { $0.key == key }))
        guard let card = cards.first else { throw WorkerError("no card \(key)") }
        return card
    }
}
