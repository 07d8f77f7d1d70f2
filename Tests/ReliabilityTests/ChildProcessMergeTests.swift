import Foundation
import Observation
import Testing
@testable import ModelStore
import ReliabilitySupport

/// A child process (the worker's `cards`, `cards-tool` and `prune-history`
/// commands) commits to the store this test holds open; the test's
/// context merges what the child changed, read from the change history.
/// The merge counters (`ModelContext.merging`) tell a narrow merge (the
/// changed rows read again) from a full refresh (every object held).
@Suite("Merges and history between two processes", .timeLimit(.minutes(2)))
struct ChildProcessMergeTests {
    /// A store of cards a…d held by one context, which has read them all.
    private struct Parent {
        let url: URL
        let container: ModelContainer
        let context: ModelContext
        let cards: [String: Shared.Card]

        init() throws {
            url = try temporaryFolder().appending(path: "cards.store")
            container = try Shared.container(url)
            context = ModelContext(container)
            for key in ["a", "b", "c", "d"] { context.insert(Shared.Card(key: key, text: key.uppercased())) }
            try context.save()
            cards = Dictionary(uniqueKeysWithValues: try context.fetch(FetchDescriptor<Shared.Card>()).map { ($0.key, $0) })
        }

        func card(_ key: String) throws -> Shared.Card { try #require(cards[key]) }

        /// Runs the worker's `command` on the store to its end.
        func child(_ command: String, _ arguments: String...) throws {
            let lines = try WorkerProcess.run([command, "--store", url.path(percentEncoded: false)] + arguments)
            #expect(lines.last == "saved" || lines.last == "pruned", "\(lines)")
        }

        /// The keys of the cards a fetch returns.
        func fetchedKeys() throws -> [String] {
            try context.fetch(FetchDescriptor<Shared.Card>(sortBy: [SortDescriptor(\.key)])).map(\.key)
        }

        func latestToken() throws -> DefaultHistoryToken {
            try #require(try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).last).token
        }
    }

    @Test(
        "A clean object takes the child's value at the next fetch, save or processPendingChanges(); a deleted one leaves fetches",
        arguments: ["fetch", "save", "processPendingChanges"])
    func childSaveMerged(at entryPoint: String) throws {
        let parent = try Parent()
        let observed = Collected<String>()
        withObservationTracking {
            _ = try? parent.card("a").text
        } onChange: {
            observed.append("text")
        }
        try parent.child("cards", "--author", "child", "--edits", "set a text=Alpha|delete b|insert e Echo")

        switch entryPoint {
        case "fetch": _ = try parent.fetchedKeys()
        case "save":
            try parent.card("c").count = 3
            try parent.context.save()
        default: parent.context.processPendingChanges()
        }
        #expect(try parent.card("a").text == "Alpha")
        #expect(observed.elements == ["text"])
        #expect(try parent.card("b").isDeleted)
        #expect(try parent.fetchedKeys() == ["a", "c", "d", "e"])
        #expect(parent.context.merging.fullRefreshes == 0, "merged from the history")
        #expect(parent.context.merging.rowsReread == 1, "the one updated row the context holds")
    }

    @Test("Unsaved changes are kept; the save conflicts, and storeWins or objectWins resolve it", arguments: ["error", "storeWins", "objectWins"])
    func unsavedChangesConflict(policy: String) throws {
        let parent = try Parent()
        let card = try parent.card("a")
        card.text = "mine"
        try parent.child("cards", "--edits", "set a text=theirs|set a count=5")
        parent.context.processPendingChanges()
        #expect(card.text == "mine", "unsaved changes are kept")
        #expect(card.count == 5, "a property without unsaved changes takes the stored value")
        #expect(parent.context.merging.fullRefreshes == 0)

        switch policy {
        case "storeWins": parent.context.mergePolicy = .storeWins
        case "objectWins": parent.context.mergePolicy = .objectWins
        default: break
        }
        if policy == "error" {
            do {
                try parent.context.save()
                Issue.record("the save did not throw")
            } catch ModelStoreError.saveConflicts(_, let conflicts) {
                let conflict = try #require(conflicts.first)
                #expect(conflicts.count == 1)
                #expect(conflict.identifier == card.persistentModelID)
                #expect(conflict.entity == "Card")
                #expect(conflict.propertiesChangedOnBothSides == ["text"])
            }
            #expect(parent.context.hasChanges)
            return
        }
        try parent.context.save()
        let expected = policy == "storeWins" ? "theirs" : "mine"
        #expect(card.text == expected)
        let fresh = ModelContext(try Shared.container(parent.url))
        let stored = try #require(try fresh.fetch(FetchDescriptor<Shared.Card>(predicate: #Predicate { $0.key == "a" })).first)
        #expect(stored.text == expected)
        #expect(stored.count == 5)
    }

    @Test("fetchHistory after a token lists the child's transaction with its author and key paths")
    func historyOfTheChild() throws {
        let parent = try Parent()
        let token = try parent.latestToken()
        try parent.child("cards", "--author", "importer", "--edits", "set b count=2|insert f Fox")
        let transactions = try parent.context.fetchHistory(
            HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.token > token }))
        let transaction = try #require(transactions.first)
        #expect(transactions.count == 1)
        #expect(transaction.author == "importer")
        #expect(transaction.processIdentifier != String(ProcessInfo.processInfo.processIdentifier))
        var updated: [AnyKeyPath] = []
        var inserted = 0
        for change in transaction.changes {
            switch change {
            case .update(let update):
                let update = try #require(update as? DefaultHistoryUpdate<Shared.Card>)
                #expect(update.changedPersistentIdentifier == (try parent.card("b").persistentModelID))
                updated += update.updatedAttributes.map { $0 as AnyKeyPath }
            case .insert: inserted += 1
            default: Issue.record("unexpected change \(change)")
            }
        }
        #expect(updated == [\Shared.Card.count])
        #expect(inserted == 1)
    }

    @Test("The child prunes the history: the parent's token expires, and the merge falls back to a full refresh")
    func pruningByTheChild() throws {
        let parent = try Parent()
        let token = try parent.latestToken()
        try parent.child("cards", "--edits", "set a text=Pruned")
        try parent.child("prune-history")
        try parent.child("cards", "--edits", "set b text=After|delete c")
        #expect(throws: SwiftDataError.historyTokenExpired) {
            try parent.context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.token > token }))
        }
        parent.context.processPendingChanges()
        #expect(parent.context.merging.fullRefreshes == 1)
        #expect(try parent.card("a").text == "Pruned", "a change whose history was pruned")
        #expect(try parent.card("b").text == "After")
        #expect(try parent.card("c").isDeleted)
        #expect(try parent.fetchedKeys() == ["a", "b", "d"])
        // From there on, narrow again.
        try parent.child("cards", "--edits", "set d text=Narrow")
        let reread = parent.context.merging.rowsReread
        parent.context.processPendingChanges()
        #expect(parent.context.merging.fullRefreshes == 1)
        #expect(parent.context.merging.rowsReread - reread == 1)
        #expect(try parent.card("d").text == "Narrow")
    }

    @Test("store-tool's edits (the dynamic layer) in the child are merged narrowly")
    func storeToolEditsMerged() throws {
        let parent = try Parent()
        let seen = Collected<StoreChanges>()
        let observation = parent.container.observeChanges { seen.append($0) }
        try parent.child("cards-tool", "--edits", "set a text=Tool|delete c")
        _ = try parent.fetchedKeys()
        #expect(try parent.card("a").text == "Tool")
        #expect(try parent.card("c").isDeleted)
        #expect(parent.context.merging.fullRefreshes == 0)
        #expect(parent.context.merging.rowsReread == 1)
        #expect(seen.elements.map(\.author) == ["store-tool", "store-tool"])
        observation.cancel()
    }
}

/// Collects what an observer delivers, from any thread.
private final class Collected<Element: Sendable>: @unchecked Sendable {
    // Guarded by `lock`; @unchecked Sendable because of it.
    private let lock = NSLock()
    private var storage: [Element] = []

    func append(_ element: Element) {
        lock.withLock { storage.append(element) }
    }

    var elements: [Element] { lock.withLock { storage } }
}
