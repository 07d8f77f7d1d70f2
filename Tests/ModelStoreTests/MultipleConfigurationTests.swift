import Foundation
import Testing
@testable import ModelStore
@testable import ModelStoreDynamic

/// Models for containers of several configurations, in a namespace of their
/// own so that their entity names do not clash with TestModels.swift.
enum Split {
    @Model final class Journey {
        @Attribute(.unique) var name: String
        @Relationship(deleteRule: .cascade, inverse: \Item.journey) var items: [Item] = []
        init(name: String) { self.name = name }
    }

    @Model final class Item {
        var title: String
        var journey: Journey?
        init(title: String) { self.title = title }
    }

    @Model final class Memo {
        var text: String
        init(text: String) { self.text = text }
    }

    @Model final class Label {
        var name: String
        init(name: String) { self.name = name }
    }

    /// Relates to a Memo without an inverse: Schema([Memo.self]) does not reach it.
    @Model final class Pin {
        var memo: Memo?
        init() {}
    }
}

@Suite struct MultipleConfigurationTests {
    let directory: TemporaryDirectory
    let full = Schema([Split.Journey.self, Split.Item.self, Split.Memo.self])

    init() throws { directory = try TemporaryDirectory() }

    var journeysURL: URL { directory.file("journeys.store") }
    var memosURL: URL { directory.file("memos.store") }

    func journeys(allowsSave: Bool = true) -> ModelConfiguration {
        ModelConfiguration("journeys", schema: Schema([Split.Journey.self]), url: journeysURL, allowsSave: allowsSave)
    }

    func memos(allowsSave: Bool = true, inMemory: Bool = false) -> ModelConfiguration {
        inMemory
            ? ModelConfiguration("memos", schema: Schema([Split.Memo.self]), isStoredInMemoryOnly: true)
            : ModelConfiguration("memos", schema: Schema([Split.Memo.self]), url: memosURL, allowsSave: allowsSave)
    }

    func container(journeysAllowSave: Bool = true, memosAllowSave: Bool = true) throws -> ModelContainer {
        try ModelContainer(
            for: full, configurations: journeys(allowsSave: journeysAllowSave), memos(allowsSave: memosAllowSave))
    }

    /// The entities a store file records, read without the app's code.
    func entities(in url: URL) throws -> [String] {
        try DynamicStore(path: url.path(percentEncoded: false)).schema.entities.map(\.name).sorted()
    }

    func seed() throws {
        let context = ModelContext(try container())
        let journey = Split.Journey(name: "Lisbon")
        journey.items = [Split.Item(title: "tickets"), Split.Item(title: "map")]
        context.insert(journey)
        context.insert(Split.Memo(text: "call the hotel"))
        try context.save()
    }

    @Test func eachConfigurationStoresItsEntitiesInItsOwnFile() throws {
        try seed()
        // Schema([Journey.self]) reaches Item through Journey.items.
        #expect(try entities(in: journeysURL) == ["Item", "Journey"])
        #expect(try entities(in: memosURL) == ["Memo"])
        #expect(try DynamicStore(path: journeysURL.path(percentEncoded: false)).count("Item") == 2)
        #expect(try DynamicStore(path: memosURL.path(percentEncoded: false)).count("Memo") == 1)

        let context = ModelContext(try container())
        let journey = try #require(try context.fetch(FetchDescriptor<Split.Journey>()).first)
        #expect(journey.items.map(\.title).sorted() == ["map", "tickets"])
        #expect(try context.fetch(FetchDescriptor<Split.Memo>()).map(\.text) == ["call the hotel"])
        let memo = try #require(try context.fetch(FetchDescriptor<Split.Memo>()).first)
        #expect(memo.persistentModelID.storeIdentifier != journey.persistentModelID.storeIdentifier)
        // An identifier finds its row in its own store.
        let other = ModelContext(try container())
        #expect((other.model(for: memo.persistentModelID) as? Split.Memo)?.text == "call the hotel")
        #expect(try other.fetchCount(FetchDescriptor<Split.Item>()) == 2)
    }

    @Test func updatesAndDeletesInOneSaveReachEachStore() throws {
        try seed()
        let context = ModelContext(try container())
        let journey = try #require(try context.fetch(FetchDescriptor<Split.Journey>()).first)
        let memo = try #require(try context.fetch(FetchDescriptor<Split.Memo>()).first)
        journey.name = "Porto"
        context.delete(memo)
        context.insert(Split.Memo(text: "pack"))
        try context.save()

        let reopened = ModelContext(try container())
        #expect(try reopened.fetch(FetchDescriptor<Split.Journey>()).map(\.name) == ["Porto"])
        #expect(try reopened.fetch(FetchDescriptor<Split.Memo>()).map(\.text) == ["pack"])
        try reopened.delete(model: Split.Journey.self)
        try reopened.save()
        #expect(try DynamicStore(path: journeysURL.path(percentEncoded: false)).count("Item") == 0)
        #expect(try DynamicStore(path: memosURL.path(percentEncoded: false)).count("Memo") == 1)
    }

    @Test func aConfigurationInMemoryBesideAFile() throws {
        let container = try ModelContainer(for: full, configurations: journeys(), memos(inMemory: true))
        let context = ModelContext(container)
        context.insert(Split.Journey(name: "Lisbon"))
        context.insert(Split.Memo(text: "gone with the container"))
        try context.save()
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Split.Memo>()) == 1)

        let next = try ModelContainer(for: full, configurations: journeys(), memos(inMemory: true))
        #expect(try ModelContext(next).fetchCount(FetchDescriptor<Split.Journey>()) == 1)
        #expect(try ModelContext(next).fetchCount(FetchDescriptor<Split.Memo>()) == 0)
    }

    @Test func aRelationshipReachingAnotherConfigurationIsRefused() throws {
        // Schema([Journey.self]) holds Item, which the second configuration claims.
        let items = ModelConfiguration("items", schema: Schema([Split.Item.self]), url: memosURL)
        #expect {
            try ModelContainer(for: full, configurations: journeys(), items)
        } throws: { error in
            guard case ModelStoreError.invalidSchema(let reason) = error else { return false }
            return reason.contains("Journey is in the schemas of configurations journeys and items")
                && reason.contains("through Journey.items")
        }
        // Pin relates to Memo without an inverse: Schema([Pin.self]) reaches Memo.
        let pins = ModelConfiguration("pins", schema: Schema([Split.Pin.self]), url: journeysURL)
        let memoOnly = ModelConfiguration("memos", schema: Schema([Split.Memo.self]), url: memosURL)
        #expect {
            try ModelContainer(for: Schema([Split.Pin.self, Split.Memo.self]), configurations: memoOnly, pins)
        } throws: { error in
            guard case ModelStoreError.invalidSchema(let reason) = error else { return false }
            return reason.contains("Pin.memo relates Pin (configuration pins) to Memo (configuration memos)")
        }
        // Nothing was created.
        #expect(!FileManager.default.fileExists(atPath: journeysURL.path(percentEncoded: false)))
        #expect(!FileManager.default.fileExists(atPath: memosURL.path(percentEncoded: false)))
    }

    @Test func entitiesNoConfigurationListsGoToTheOneWithoutASchema() throws {
        let schema = Schema([Split.Journey.self, Split.Memo.self, Split.Label.self])
        let rest = ModelConfiguration("rest", url: memosURL)
        let container = try ModelContainer(for: schema, configurations: journeys(), rest)
        let context = ModelContext(container)
        context.insert(Split.Label(name: "red"))
        context.insert(Split.Memo(text: "m"))
        try context.save()
        #expect(try entities(in: memosURL) == ["Label", "Memo"])
        #expect(try entities(in: journeysURL) == ["Item", "Journey"])
    }

    @Test func entitiesNoConfigurationListsGoToTheFirstWhenAllHaveSchemas() throws {
        let schema = Schema([Split.Journey.self, Split.Memo.self, Split.Label.self])
        _ = try ModelContainer(for: schema, configurations: memos(), journeys())
        #expect(try entities(in: memosURL) == ["Label", "Memo"])
    }

    @Test func aReadOnlyConfigurationIsReadOnlyAlone() throws {
        try seed()
        let container = try container(memosAllowSave: false)
        let context = ModelContext(container)
        #expect(try context.fetch(FetchDescriptor<Split.Memo>()).map(\.text) == ["call the hotel"])
        context.insert(Split.Journey(name: "Faro"))
        try context.save()
        context.insert(Split.Journey(name: "Braga"))
        context.insert(Split.Memo(text: "refused"))
        #expect(throws: ModelStoreError.readOnlyStore(path: memosURL.path(percentEncoded: false))) {
            try context.save()
        }
        #expect(context.hasChanges)
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Split.Journey>()) == 2)
        #expect(throws: ModelStoreError.readOnlyStore(path: memosURL.path(percentEncoded: false))) {
            try container.erase()
        }
    }

    @Test func aFailedSaveAcrossStoresLeavesBothAsTheyWere() throws {
        try seed()
        let container = try container()
        let context = ModelContext(container)
        let journey = try #require(try context.fetch(FetchDescriptor<Split.Journey>()).first)
        let memo = try #require(try context.fetch(FetchDescriptor<Split.Memo>()).first)
        // Another context deletes the memo's row.
        let other = ModelContext(container)
        try other.delete(model: Split.Memo.self)
        try other.save()
        // The journey's update is written first; the memo's fails.
        journey.name = "Porto"
        memo.text = "changed"
        context.insert(Split.Memo(text: "new"))
        #expect {
            try context.save()
        } throws: { error in
            guard case ModelStoreError.saveConflicts(_, let conflicts) = error else { return false }
            return conflicts.count == 1 && "\(error)".contains("Memo:1 was deleted")
        }
        let fresh = ModelContext(container)
        #expect(try fresh.fetch(FetchDescriptor<Split.Journey>()).map(\.name) == ["Lisbon"])
        #expect(try fresh.fetchCount(FetchDescriptor<Split.Memo>()) == 0)
        #expect(context.hasChanges)
        #expect(context.changedModelsArray.count == 2)
        #expect(context.insertedModelsArray.count == 1)
    }

    @Test func theFilesOfSeveralConfigurationsUseTheRollbackJournal() throws {
        // SQLite commits a transaction over attached files atomically only
        // outside WAL mode.
        try seed()
        for url in [journeysURL, memosURL] {
            let connection = try Connection(location: url.path(percentEncoded: false), mode: .readOnly)
            let statement = try connection.prepare("PRAGMA journal_mode")
            #expect(try statement.step())
            #expect(statement.string(at: 0) == "delete")
        }
    }

    @Test func eraseEmptiesEveryStore() throws {
        try seed()
        let container = try container()
        try container.erase()
        let context = ModelContext(container)
        #expect(try context.fetchCount(FetchDescriptor<Split.Journey>()) == 0)
        #expect(try context.fetchCount(FetchDescriptor<Split.Item>()) == 0)
        #expect(try context.fetchCount(FetchDescriptor<Split.Memo>()) == 0)
    }

    @Test func eachStoreMigratesOnItsOwn() throws {
        try seed()
        // The memos store gains an entity; the journeys store is opened as it was.
        let memosAndLabels = ModelConfiguration(
            "memos", schema: Schema([Split.Memo.self, Split.Label.self]), url: memosURL)
        let container = try ModelContainer(
            for: Schema([Split.Journey.self, Split.Memo.self, Split.Label.self]), configurations: journeys(),
            memosAndLabels)
        #expect(try entities(in: memosURL) == ["Label", "Memo"])
        #expect(try entities(in: journeysURL) == ["Item", "Journey"])
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Split.Memo>()) == 1)
    }
}
