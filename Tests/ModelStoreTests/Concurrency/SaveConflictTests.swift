import Foundation
import Testing
@testable import ModelStore
@testable import ModelStoreDynamic

@Model final class Counter {
    var name: String
    var value: Int = 0
    var note: String = ""
    @Attribute(.preserveValueOnDeletion) var code: String = ""

    init(name: String, code: String = "") {
        self.name = name
        self.code = code
    }
}

/// Two writers on one store: two contexts of one container, or two
/// containers on one store (as two processes or two servers would be).
private struct TwoWriters {
    /// The store, held so that its folder or PostgreSQL schema lives as
    /// long as the writers.
    let store: TestStore
    let configuration: ModelConfiguration
    let first: ModelContext
    let second: ModelContext

    var url: URL { configuration.url }

    /// Writers on a store of `kind`; with no kind, on a SQLite file whatever
    /// the run's environment says (for checks that read the file itself).
    init(separateContainers: Bool, on kind: StoreKind? = nil) throws {
        let store = try TestStore(kind ?? .inMemory)
        self.store = store
        configuration = kind == nil ? ModelConfiguration(url: store.directory.file()) : store.configuration
        let container = try ModelContainer(for: Schema([Counter.self]), configurations: [configuration])
        let other = separateContainers ? try ModelContainer(for: Schema([Counter.self]), configurations: [configuration]) : container
        let setup = ModelContext(container)
        setup.insert(Counter(name: "visits", code: "V-1"))
        try setup.save()
        first = ModelContext(container)
        second = ModelContext(other)
    }

    func counter(_ context: ModelContext) throws -> Counter {
        try #require(try context.fetch(FetchDescriptor<Counter>()).first)
    }

    /// The stored counters as a container opened afresh reads them: name,
    /// value and note of each, by name.
    func storedRows() throws -> [[String]] {
        let reader = ModelContext(try ModelContainer(for: Schema([Counter.self]), configurations: [configuration]))
        return try reader.fetch(FetchDescriptor<Counter>(sortBy: [SortDescriptor(\.name)])).map {
            [$0.name, String($0.value), $0.note]
        }
    }

    func storedValue() throws -> Int? {
        guard let row = try storedRows().first else { return nil }
        return Int(row[1])
    }
}

@Suite("Save conflicts and merge policies")
struct SaveConflictTests {
    @Test(
        "The lost update is a conflict: the second save throws naming the object and property, nothing written, changes kept",
        arguments: StoreKind.backends, [false, true])
    func lostUpdateThrows(kind: StoreKind, separateContainers: Bool) throws {
        let writers = try TwoWriters(separateContainers: separateContainers, on: kind)
        let a = try writers.counter(writers.first)
        let b = try writers.counter(writers.second)
        a.value += 1
        b.value += 1
        try writers.first.save()
        let before = try writers.storedRows()
        do {
            try writers.second.save()
            Issue.record("the second save did not throw")
        } catch ModelStoreError.saveConflicts(_, let conflicts) {
            let conflict = try #require(conflicts.first)
            #expect(conflicts.count == 1)
            #expect(conflict.entity == "Counter")
            #expect(conflict.kind == .changed)
            #expect(conflict.properties.map(\.name) == ["value"])
            #expect(conflict.properties.first?.storedValue == "1")
            #expect(conflict.properties.first?.unsavedValue == "1")
            #expect(conflict.propertiesChangedOnBothSides == ["value"])
        }
        #expect(try writers.storedRows() == before)
        #expect(writers.second.hasChanges)
        #expect(writers.second.changedPropertyNames(of: b) == ["value"])
        // The app rolls back, takes the stored value and tries again. With
        // one container, the other context's save reached this one (at the
        // save), so the rollback reads the row again: the value is the
        // stored one. With two, the other process's commit is noticed at
        // this context's next entry point: the save did too.
        writers.second.rollback()
        #expect(b.value == 1)
        let fresh = ModelContext(writers.second.container)
        let again = try writers.counter(fresh)
        again.value += 1
        try fresh.save()
        #expect(try writers.storedValue() == 2)
    }

    @Test("Every conflicting object of a save is named, not only the first", arguments: StoreKind.backends)
    func everyConflictNamed(kind: StoreKind) throws {
        let writers = try TwoWriters(separateContainers: false, on: kind)
        writers.first.insert(Counter(name: "second"))
        try writers.first.save()
        let firstSide = try writers.first.fetch(FetchDescriptor<Counter>(sortBy: [SortDescriptor(\.name)]))
        let secondSide = try writers.second.fetch(FetchDescriptor<Counter>(sortBy: [SortDescriptor(\.name)]))
        for counter in firstSide { counter.note = "first" }
        for counter in secondSide { counter.note = "second" }
        try writers.first.save()
        #expect {
            try writers.second.save()
        } throws: { error in
            guard case ModelStoreError.saveConflicts(_, let conflicts) = error else { return false }
            return conflicts.count == 2
        }
    }

    @Test(
        "mergeByProperty merges properties changed on one side each; a property changed on both follows the winner",
        arguments: StoreKind.backends)
    func mergeByProperty(kind: StoreKind) throws {
        for winner in [MergeWinner.store, .object] {
            let writers = try TwoWriters(separateContainers: true, on: kind)
            let a = try writers.counter(writers.first)
            let b = try writers.counter(writers.second)
            a.value = 10
            a.name = "store side"
            b.note = "object side"
            b.name = "object name"
            try writers.first.save()
            writers.second.mergePolicy = .mergeByProperty(winner: winner)
            try writers.second.save()
            let name = winner == .store ? "store side" : "object name"
            #expect(try writers.storedRows() == [[name, "10", "object side"]])
            #expect(b.value == 10 && b.name == name && b.note == "object side")
            #expect(!writers.second.hasChanges)
            // The versions now agree: the next save of either side is a plain one (or a conflict for the stale one).
            b.note = "again"
            try writers.second.save()
        }
    }

    @Test(
        "storeWins drops the object's changes and takes the stored values; objectWins writes the object over the row",
        arguments: StoreKind.backends)
    func storeAndObjectWins(kind: StoreKind) throws {
        let writers = try TwoWriters(separateContainers: false, on: kind)
        let a = try writers.counter(writers.first)
        let b = try writers.counter(writers.second)
        a.value = 5
        b.note = "mine"
        try writers.first.save()
        writers.second.mergePolicy = .storeWins
        try writers.second.save()
        #expect(b.value == 5 && b.note == "")
        #expect(!writers.second.hasChanges)

        a.value = 6
        try writers.first.save()
        b.note = "overwrite"
        writers.second.mergePolicy = .objectWins
        try writers.second.save()
        // The save first merged the other context's value 6 into the
        // unchanged property, then the object's values overwrote the row.
        #expect(try writers.storedRows() == [["visits", "6", "overwrite"]])
    }

    @Test("A row deleted underneath is a conflict: .error throws; the other policies accept the delete", arguments: StoreKind.backends)
    func deletedUnderneath(kind: StoreKind) throws {
        let writers = try TwoWriters(separateContainers: true, on: kind)
        let a = try writers.counter(writers.first)
        let b = try writers.counter(writers.second)
        writers.first.delete(a)
        try writers.first.save()
        b.value = 3
        #expect {
            try writers.second.save()
        } throws: { error in
            guard case ModelStoreError.saveConflicts(_, let conflicts) = error else { return false }
            return conflicts.first?.kind == .deleted && conflicts.first?.storedVersion == nil
        }
        #expect(writers.second.hasChanges)
        writers.second.mergePolicy = .mergeByProperty(winner: .object)
        try writers.second.save()
        #expect(b.isDeleted)
        #expect(try writers.second.fetch(FetchDescriptor<Counter>()).isEmpty)
        #expect(try writers.storedRows().isEmpty)
    }

    @Test("Deleting a row changed underneath is a conflict; a custom policy decides per object", arguments: StoreKind.backends)
    func deleteOfChangedRowAndCustomPolicy(kind: StoreKind) throws {
        let writers = try TwoWriters(separateContainers: false, on: kind)
        let a = try writers.counter(writers.first)
        let b = try writers.counter(writers.second)
        a.value = 9
        try writers.first.save()
        writers.second.delete(b)
        var seen: [SaveConflict] = []
        writers.second.mergePolicy = .custom { conflict in
            seen.append(conflict)
            return .storeWins
        }
        try writers.second.save()
        #expect(seen.count == 1 && seen.first?.isDeleteInContext == true)
        // The store won: the delete was undone and the object has the stored value.
        #expect(!b.isDeleted && b.value == 9)
        #expect(try writers.storedValue() == 9)
    }

    @Test("store-tool's writes bump the version, and a context that read before them has a conflict")
    func storeToolWritesConflict() throws {
        let writers = try TwoWriters(separateContainers: false)
        let b = try writers.counter(writers.second)
        let tool = try DynamicStore(path: writers.url.path(percentEncoded: false), readOnly: false)
        _ = try tool.update(ObjectID(entity: "Counter", key: 1), [DynamicEdit(property: "value", operation: .set, value: "7")])
        #expect(try StoreFile(url: writers.url).rows("SELECT _version FROM Counter") == [[.integer(3)]])
        b.value = 1
        #expect(throws: ModelStoreError.self) { try writers.second.save() }
        #expect(try writers.storedValue() == 7)
        let authors = try StoreFile(url: writers.url).rows("SELECT author FROM _modelstore_transactions ORDER BY token")
        #expect(authors.last == [.text("store-tool")])
    }
}
