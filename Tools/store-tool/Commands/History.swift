import ArgumentParser
import Foundation
import ModelStore
import ModelStoreDynamic

/// `history STORE`: the store's change history (`DynamicStore.history`), and
/// its pruning (`DynamicStore.pruneHistory`).
struct History: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the store's change history (one transaction per save), or prune it.",
        discussion: """
            Every save of an app's context and every store-tool edit is one transaction of the history: \
            its token (a number that only grows), time, author (the context's author; store-tool for \
            store-tool's edits), app and process, and the rows it inserted, updated (with the properties \
            changed) and deleted (with the values of attributes marked .preserveValueOnDeletion). \
            Transactions are listed oldest first, each with its changes:
              token 4  2025-06-10T10:00:00.125Z  author store-tool  process store-tool (pid 4242)  0 inserted, 1 updated, 1 deleted
                update Trip:1 name, stops
                delete Stop:2 {"title":"Belém"}

            --since TOKEN lists the transactions after TOKEN, as an app catching up does; when some of them \
            were pruned (or the store never issued TOKEN), a warning says so: an app holding TOKEN gets \
            historyTokenExpired. --prune-before TOKEN deletes the transactions before TOKEN (the objects are \
            not changed), holding the store's write lock, and takes --dry-run. A store of a format before 3 \
            has no history.

            Examples:
              store-tool history trips.store --since 120 --limit 20
              store-tool history trips.store --author store-tool --json
              store-tool history trips.store --prune-before 100 --dry-run
            """)

    @OptionGroup var options: StoreOptions
    @Option(help: "Only the transactions after this token.", transform: NumericOption.count) var since: Int?
    @Option(help: "At most this many transactions (0 or more), the oldest first.", transform: NumericOption.count)
    var limit: Int?
    @Option(help: "Only the transactions of this author.") var author: String?
    @Option(help: "Output format: text or json.") var format: String = "text"
    @Flag(help: "The same as --format json.") var json = false
    @Option(help: "Delete the transactions before this token instead of listing.", transform: NumericOption.count)
    var pruneBefore: Int?
    @Flag(help: "With --prune-before: count what would be deleted; delete nothing.") var dryRun = false

    func validate() throws {
        guard ["text", "json"].contains(format) else { throw ValidationError("--format must be text or json") }
        if pruneBefore != nil && (since != nil || limit != nil || author != nil) {
            throw ValidationError("--prune-before cannot be combined with --since, --limit or --author")
        }
        if dryRun && pruneBefore == nil { throw ValidationError("--dry-run goes with --prune-before") }
    }

    func run() throws {
        try reporting {
            if let pruneBefore {
                let store = try options.open(readOnly: false)
                let count = try store.pruneHistory(before: Int64(pruneBefore), dryRun: dryRun)
                let what = "\(count) transaction\(count == 1 ? "" : "s") before token \(pruneBefore)"
                print(dryRun ? "dry run: would delete \(what); nothing was deleted" : "deleted \(what)")
                return
            }
            let store = try options.open()
            let history = try store.history(since: since.map(Int64.init), author: author, limit: limit)
            if !history.isRecorded {
                Terminal.note("store-tool: \(options.store) is of format \(store.formatVersion), which records no history")
            }
            if let problem = history.sinceProblem {
                Terminal.note("store-tool: warning: the history after token \(since ?? 0) is incomplete: \(problem)")
            }
            let output = Output()
            if json || format == "json" {
                output.line("[" + history.transactions.map(jsonText).joined(separator: ",\n") + "]")
            } else {
                for transaction in history.transactions { write(transaction, to: output) }
            }
            output.flush()
        }
    }

    private func write(_ transaction: DynamicHistoryTransaction, to output: Output) {
        let counts = transaction.counts
        output.line(
            "token \(transaction.token)  \(timestampText(transaction.timestamp))  author \(printable(transaction.author ?? "-"))  "
                + "process \(printable(transaction.bundleIdentifier)) (pid \(transaction.processIdentifier))  "
                + "\(counts.inserted) inserted, \(counts.updated) updated, \(counts.deleted) deleted")
        for change in transaction.changes {
            var line = "  \(change.kind) \(change.id)"
            if let properties = change.properties { line += " " + properties.joined(separator: ", ") }
            if let tombstone = change.tombstone { line += " " + tombstone }
            output.line(printable(line))
        }
    }

    private func jsonText(_ transaction: DynamicHistoryTransaction) -> String {
        let counts = transaction.counts
        let changes = transaction.changes.map { change in
            var members = ["\"id\":" + JSONText.string(change.id.description), "\"kind\":" + JSONText.string(change.kind)]
            if let properties = change.properties {
                members.append("\"properties\":[" + properties.map(JSONText.string).joined(separator: ",") + "]")
            }
            // Stored as a JSON object by the library: passed through as one.
            if let tombstone = change.tombstone { members.append("\"tombstone\":" + tombstone) }
            return "{" + members.joined(separator: ",") + "}"
        }
        let members = [
            "\"token\":\(transaction.token)",
            "\"timestamp\":" + JSONText.string(timestampText(transaction.timestamp)),
            "\"author\":" + (transaction.author.map(JSONText.string) ?? "null"),
            "\"bundleIdentifier\":" + JSONText.string(transaction.bundleIdentifier),
            "\"processIdentifier\":" + JSONText.string(transaction.processIdentifier),
            "\"inserted\":\(counts.inserted)", "\"updated\":\(counts.updated)", "\"deleted\":\(counts.deleted)",
            "\"changes\":[" + changes.joined(separator: ",") + "]",
        ]
        return "{" + members.joined(separator: ",") + "}"
    }

    private func timestampText(_ date: Date) -> String { ValueText.formatISO8601(date) }

    /// `text` with control characters escaped: authors and process names
    /// come from apps, and must not move the terminal's cursor.
    private func printable(_ text: String) -> String {
        var result = ""
        for scalar in text.unicodeScalars {
            if scalar.value < 0x20 || scalar.value == 0x7f {
                result += "\\u{" + String(scalar.value, radix: 16) + "}"
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}
