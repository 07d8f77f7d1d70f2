import Foundation
import Testing
@testable import ModelStore

@Model final class Journal {
    var title: String
    var pages: Int = 0
    @Attribute(.preserveValueOnDeletion) var code: String = ""
    @Attribute(.preserveValueOnDeletion) var due: Date?
    @Relationship(deleteRule: .cascade, inverse: \JournalEntry.journal) var entries: [JournalEntry] = []

    init(title: String, code: String = "", due: Date? = nil) {
        self.title = title
        self.code = code
        self.due = due
    }
}

@Model final class JournalEntry {
    var text: String
    var journal: Journal?

    init(text: String) { self.text = text }
}

/// Two containers on one store: what two processes of one app, or two
/// servers, see.
private struct SharedFile {
    /// The store, held so that its folder or PostgreSQL schema lives as
    /// long as the containers.
    let store: TestStore
    let configuration: ModelConfiguration
    var url: URL { configuration.url }

    /// A store of `kind`; with no kind, a SQLite file whatever the run's
    /// environment says (for checks that read or edit the file itself).
    init(on kind: StoreKind? = nil) throws {
        let store = try TestStore(kind ?? .inMemory)
        self.store = store
        configuration = kind == nil ? ModelConfiguration(url: store.directory.file()) : store.configuration
    }

    /// A container of its own; a read-only one (`allowsSave: false`) on
    /// the SQLite file.
    func container(allowsSave: Bool = true) throws -> ModelContainer {
        let configuration = allowsSave ? configuration : ModelConfiguration(url: url, allowsSave: false)
        return try ModelContainer(for: Schema([Journal.self, JournalEntry.self]), configurations: [configuration])
    }

    func context(author: String? = nil) throws -> ModelContext {
        let context = ModelContext(try container())
        context.author = author
        return context
    }
}

private func all() -> HistoryDescriptor<DefaultHistoryTransaction> { HistoryDescriptor<DefaultHistoryTransaction>() }

@Suite("Persistent history: fetchHistory, deleteHistory, tokens")
struct HistoryAPITests {
    @Test("Saves of two containers on one file are transactions in order, with author, process, store and changes", arguments: StoreKind.backends)
    func twoContainers(kind: StoreKind) throws {
        let file = try SharedFile(on: kind)
        let app = try file.context(author: "app")
        let sync = try file.context(author: "sync")
        let journal = Journal(title: "Travel")
        app.insert(journal)
        try app.save()
        let fetched = try #require(try sync.fetch(FetchDescriptor<Journal>()).first)
        fetched.title = "Trips"
        try sync.save()

        let transactions = try app.fetchHistory(all())
        #expect(transactions.map(\.author) == ["app", "sync"])
        #expect(transactions.map(\.token.id) == [1, 2])
        #expect(transactions[0].token < transactions[1].token)
        #expect(transactions.allSatisfy { $0.processIdentifier == String(ProcessInfo.processInfo.processIdentifier) })
        #expect(transactions.allSatisfy { !$0.bundleIdentifier.isEmpty })
        #expect(transactions.allSatisfy { $0.storeIdentifier == journal.persistentModelID.storeIdentifier })
        #expect(transactions[0].changes.map(\.changedPersistentIdentifier) == [journal.persistentModelID])
        guard case .insert(let insert) = transactions[0].changes[0] else {
            Issue.record("expected an insert, found \(transactions[0].changes[0])")
            return
        }
        #expect(insert is DefaultHistoryInsert<Journal>)
        #expect(insert.transactionIdentifier as? Int64 == transactions[0].transactionIdentifier)

        // Catching up after a token, the token saved as JSON in between.
        let saved = try JSONEncoder().encode(transactions[0].token)
        let token = try JSONDecoder().decode(DefaultHistoryToken.self, from: saved)
        #expect(token == transactions[0].token)
        #expect(token.tokenValue == [transactions[0].storeIdentifier: 1])
        let after = try sync.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.token > token }))
        #expect(after.map(\.author) == ["sync"])
    }

    @Test("A save inserting objects of two entities in turn records every insert under its own entity", arguments: StoreKind.backends)
    func interleavedInserts(kind: StoreKind) throws {
        let context = try SharedFile(on: kind).context()
        let journal = Journal(title: "J3")
        let entry = JournalEntry(text: "E3")
        let second = Journal(title: "J4")
        context.insert(journal)
        context.insert(entry)
        context.insert(second)
        try context.save()
        let last = try #require(try context.fetchHistory(all()).last)
        let changed = Set(last.changes.map(\.changedPersistentIdentifier))
        #expect(changed == [journal.persistentModelID, entry.persistentModelID, second.persistentModelID])
        #expect(last.changes.count == 3)
        for change in last.changes {
            guard case .insert(let insert) = change else {
                Issue.record("expected an insert, found \(change)")
                continue
            }
            let expected = insert.changedPersistentIdentifier == entry.persistentModelID ? "JournalEntry" : "Journal"
            #expect(insert.changedPersistentIdentifier.entityName == expected)
        }
    }

    @Test("Author and timestamp filters, limits and order give what the predicate says, narrowed in SQL or not", arguments: StoreKind.backends)
    func filters(kind: StoreKind) throws {
        let file = try SharedFile(on: kind)
        let app = try file.context(author: "app")
        let tool = try file.context()
        for title in ["a", "b", "c"] {
            app.insert(Journal(title: title))
            try app.save()
            tool.insert(Journal(title: title.uppercased()))
            try tool.save()
        }
        let everything = try app.fetchHistory(all())
        #expect(everything.count == 6)
        let third = everything[2]
        let thirdTime = third.timestamp
        let thirdToken = third.token
        let predicates: [Predicate<DefaultHistoryTransaction>] = [
            #Predicate { $0.author == "app" },
            #Predicate { $0.author != "app" },
            #Predicate { $0.author == nil },
            #Predicate { $0.timestamp >= thirdTime },
            #Predicate { $0.timestamp <= thirdTime && $0.author == "app" },
            #Predicate { $0.timestamp > thirdTime },
            #Predicate { $0.token >= thirdToken && $0.author == "app" },
            #Predicate { thirdToken > $0.token },
            #Predicate { $0.token == thirdToken },
            #Predicate { $0.token > thirdToken || $0.author == "app" },
            #Predicate { $0.transactionIdentifier <= 4 && $0.changes.count == 1 },
        ]
        for (index, predicate) in predicates.enumerated() {
            let expected = try everything.filter { try predicate.evaluate($0) }.map(\.token)
            let fetched = try app.fetchHistory(HistoryDescriptor(predicate: predicate)).map(\.token)
            #expect(fetched == expected, "predicate \(index)")
        }
        #expect(try app.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.timestamp >= thirdTime })).first == third)

        var newestFirst = HistoryDescriptor<DefaultHistoryTransaction>(sortBy: [SortDescriptor(\.transactionIdentifier, order: .reverse)])
        newestFirst.fetchLimit = 2
        #expect(try app.fetchHistory(newestFirst).map(\.transactionIdentifier) == [6, 5])
        var firstTwo = HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.token > thirdToken })
        firstTwo.fetchLimit = 2
        #expect(try app.fetchHistory(firstTwo).map(\.transactionIdentifier) == [4, 5])
    }

    @Test("A predicate's top-level token and ASCII author comparisons become SQL; the rest is evaluated on what is read")
    func narrowing() throws {
        let token = DefaultHistoryToken(storeIdentifier: "S", value: 7)
        let exact = HistoryNarrowing(#Predicate<DefaultHistoryTransaction> { $0.token > token && $0.author == "sync" }, storeIdentifier: "S")
        #expect(exact.range == HistoryRange(after: 7, author: "sync"))
        #expect(exact.isExact && exact.catchUpAfter == 7)
        let bounded = HistoryNarrowing(#Predicate<DefaultHistoryTransaction> { $0.token >= token && $0.token < token }, storeIdentifier: "S")
        #expect(bounded.range == HistoryRange(after: 6, before: 7))
        let either = HistoryNarrowing(#Predicate<DefaultHistoryTransaction> { $0.token > token || $0.author == "x" }, storeIdentifier: "S")
        #expect(either.range == HistoryRange() && !either.isExact && either.catchUpAfter == nil)
        let accented = HistoryNarrowing(#Predicate<DefaultHistoryTransaction> { $0.author == "Jos\u{E9}" }, storeIdentifier: "S")
        #expect(accented.range.author == nil && !accented.isExact)
        let date = Date(timeIntervalSince1970: 1000)
        let recent = HistoryNarrowing(#Predicate<DefaultHistoryTransaction> { $0.timestamp > date }, storeIdentifier: "S")
        #expect(recent.range.earliest == 1000 && !recent.isExact)
        let foreign = HistoryNarrowing(#Predicate<DefaultHistoryTransaction> { $0.token > token }, storeIdentifier: "T")
        #expect(foreign.foreignToken == token)
    }

    @Test("updatedAttributes are the key paths of the properties a save changed, relationships included", arguments: StoreKind.backends)
    func updatedKeyPaths(kind: StoreKind) throws {
        let file = try SharedFile(on: kind)
        let context = try file.context()
        let journal = Journal(title: "Travel")
        context.insert(journal)
        try context.save()
        journal.title = "Trips"
        journal.entries.append(JournalEntry(text: "day one"))
        try context.save()
        let transaction = try #require(try context.fetchHistory(all()).last)
        let updates = transaction.changes.compactMap { change -> DefaultHistoryUpdate<Journal>? in
            if case .update(let update) = change { return update as? DefaultHistoryUpdate<Journal> }
            return nil
        }
        let update = try #require(updates.first)
        #expect(update.changedPersistentIdentifier == journal.persistentModelID)
        #expect(Set(update.updatedAttributes.map { $0 as AnyKeyPath }) == [\Journal.title, \Journal.entries])
        #expect(transaction.changes.contains { change in
            if case .insert(let insert) = change { return insert is DefaultHistoryInsert<JournalEntry> }
            return false
        })
    }

    @Test("A delete's tombstone holds the preserved attributes' values, typed; others read nil", arguments: StoreKind.backends)
    func tombstones(kind: StoreKind) throws {
        let file = try SharedFile(on: kind)
        let context = try file.context()
        let due = Date(timeIntervalSince1970: 1_750_000_000.25)
        let journal = Journal(title: "Travel", code: "J-1", due: due)
        context.insert(journal)
        let undated = Journal(title: "Notes", code: "J-2")
        context.insert(undated)
        try context.save()
        let identifier = journal.persistentModelID
        context.delete(journal)
        context.delete(undated)
        try context.save()
        let deletes = try #require(try context.fetchHistory(all()).last).changes.compactMap { change in
            if case .delete(let delete) = change { return delete as? DefaultHistoryDelete<Journal> }
            return nil
        }
        #expect(deletes.count == 2)
        let dated = try #require(deletes.first { $0.changedPersistentIdentifier == identifier })
        #expect(dated.tombstone[\.code] as? String == "J-1")
        #expect(dated.tombstone[\.due] as? Date == due)
        #expect(dated.tombstone[\.title] == nil)
        #expect(Array(dated.tombstone).count == 2)
        let other = try #require(deletes.first { $0.changedPersistentIdentifier != identifier })
        #expect(other.tombstone[\.code] as? String == "J-2")
        #expect(other.tombstone[\.due] == nil)
    }

    @Test("deleteHistory prunes; a token before a pruned transaction has expired, one after it has not")
    func pruningAndExpiry() throws {
        let file = try SharedFile()
        let context = try file.context()
        for title in ["a", "b", "c", "d"] {
            context.insert(Journal(title: title))
            try context.save()
        }
        let tokens = try context.fetchHistory(all()).map(\.token)
        let (first, second, third) = (tokens[0], tokens[1], tokens[2])
        try context.deleteHistory(HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.token <= second }))
        #expect(try context.fetchHistory(all()).map(\.token) == [tokens[2], tokens[3]])
        #expect(try StoreFile(url: file.url).rows("SELECT DISTINCT token FROM _modelstore_changes ORDER BY token") == [[.integer(3)], [.integer(4)]])
        // Caught up to the second: nothing it needs was pruned.
        #expect(try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.token > second })).count == 2)
        // Caught up to the first only: the second is gone.
        #expect(throws: SwiftDataError.historyTokenExpired) {
            try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.token > first }))
        }
        do {
            _ = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.token >= second }))
            Issue.record("expected historyTokenExpired")
        } catch let error as SwiftDataError {
            #expect(error == .historyTokenExpired)
            #expect(error.description.contains(file.url.path(percentEncoded: false)) && error.description.contains("token 1"))
        }
        // Not a catch-up: no expiry.
        #expect(try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.token < third })).isEmpty)
        // Pruning everything, the latest token still works, and the next save follows it.
        try context.deleteHistory(all())
        #expect(try context.fetchHistory(all()).isEmpty)
        let last = tokens[3]
        #expect(try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.token > last })).isEmpty)
        context.insert(Journal(title: "e"))
        try context.save()
        #expect(try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.token > last })).map(\.token.id) == [5])
    }

    @Test("A token of another store, or later than any the store issued, has expired", arguments: StoreKind.backends)
    func foreignTokens(kind: StoreKind) throws {
        let file = try SharedFile(on: kind)
        let context = try file.context()
        context.insert(Journal(title: "a"))
        try context.save()
        let storeIdentifier = try #require(try context.fetchHistory(all()).first).storeIdentifier
        let other = DefaultHistoryToken(storeIdentifier: UUID().uuidString, value: 0)
        #expect(throws: SwiftDataError.historyTokenExpired) {
            try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.token > other }))
        }
        let future = DefaultHistoryToken(storeIdentifier: storeIdentifier, value: 9)
        #expect(throws: SwiftDataError.historyTokenExpired) {
            try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.token > future }))
        }
    }

    @Test("A read-only store cannot delete history; a read-only store of format 2 has none")
    func readOnlyAndFormatTwo() throws {
        let file = try SharedFile()
        do {
            let context = try file.context()
            context.insert(Journal(title: "kept"))
            try context.save()
        }
        let reader = ModelContext(try file.container(allowsSave: false))
        #expect(try reader.fetchHistory(all()).count == 1)
        #expect(throws: ModelStoreError.readOnlyStore(path: file.url.path(percentEncoded: false))) {
            try reader.deleteHistory(all())
        }
        // Back to format 2, as the previous ModelStore wrote it.
        try StoreFile(url: file.url).execute(
            """
            ALTER TABLE "Journal" DROP COLUMN "_version"; ALTER TABLE "JournalEntry" DROP COLUMN "_version";
            ALTER TABLE "_modelstore_migrations" DROP COLUMN "baseline";
            DROP TABLE "_modelstore_changes"; DROP TABLE "_modelstore_transactions";
            UPDATE "_modelstore_metadata" SET "value" = 2 WHERE "key" = 'formatVersion';
            """)
        #expect(try ModelContext(try file.container(allowsSave: false)).fetchHistory(all()).isEmpty)
        // Upgraded by a writable open: the history starts empty, with token 1 next.
        let context = try file.context()
        #expect(try context.fetchHistory(all()).isEmpty)
        try #require(try context.fetch(FetchDescriptor<Journal>()).first).pages = 3
        try context.save()
        #expect(try context.fetchHistory(all()).map(\.token.id) == [1])
    }

    @Test("The library's reader: the changes after a token, flattened, or nil once expired", arguments: StoreKind.backends)
    func changesAfter(kind: StoreKind) throws {
        let file = try SharedFile(on: kind)
        let context = try file.context()
        let journal = Journal(title: "a")
        context.insert(journal)
        try context.save()
        journal.pages = 2
        try context.save()
        let connection = try context.connection()
        let read = try #require(try ChangeHistory.changes(after: 1, connection: connection, path: "test"))
        #expect(read.latest == 2)
        #expect(read.changes.map { "\($0.entity):\($0.row) \($0.kind) \($0.properties ?? [])" } == ["Journal:1 update [\"pages\"]"])
        try context.deleteHistory(HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.transactionIdentifier == 2 }))
        #expect(try ChangeHistory.changes(after: 1, connection: connection, path: "test") == nil)
        #expect(try ChangeHistory.changes(after: 2, connection: connection, path: "test")?.changes.isEmpty == true)
    }
}
