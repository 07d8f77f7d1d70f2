import CSQLite
import Foundation
import Testing
@testable import ModelStore

@Suite("A conflict whose comparison fails")
struct ConflictComparisonFailureTests {
    /// A save that finds a conflict reads the row and compares each
    /// property's loaded value with the stored one, on SQLite itself. When
    /// that comparison cannot run, the save must fail with SQLite's reason:
    /// taking the property as changed in the store would let a policy that
    /// prefers the store drop the context's change without a word.
    @Test("A comparison that cannot run fails the save with its reason; nothing is merged, written or lost")
    func failedComparisonThrows() throws {
        let directory = try TemporaryDirectory()
        let configuration = ModelConfiguration(url: directory.file())
        let container = try ModelContainer(for: Schema([Counter.self]), configurations: [configuration])
        let setup = ModelContext(container)
        let long = String(repeating: "n", count: 100_000)
        let counter = Counter(name: "visits")
        counter.note = long
        setup.insert(counter)
        try setup.save()

        let second = ModelContext(container)
        let mine = try #require(try second.fetch(FetchDescriptor<Counter>()).first)
        let first = ModelContext(container)
        let theirs = try #require(try first.fetch(FetchDescriptor<Counter>()).first)
        theirs.value = 10
        theirs.note = "short"
        try first.save()

        // The note this context loaded is now longer than its connection
        // lets SQLite hold: binding it for the comparison fails (SQLITE_TOOBIG),
        // while the row as stored now, and the save's own writes, fit.
        sqlite3_limit(try second.connection().handle, SQLITE_LIMIT_LENGTH, 50_000)
        mine.note = "mine"
        second.mergePolicy = .mergeByProperty(winner: .store)
        #expect {
            try second.save()
        } throws: { error in
            (error as? SQLiteError)?.primaryCode == SQLITE_TOOBIG
        }
        #expect(mine.note == "mine")
        #expect(second.hasChanges)
        let reader = ModelContext(try ModelContainer(for: Schema([Counter.self]), configurations: [configuration]))
        let stored = try #require(try reader.fetch(FetchDescriptor<Counter>()).first)
        #expect(stored.value == 10 && stored.note == "short")
    }
}
