import Foundation
import Testing
@testable import ModelStore

private struct SaveEvent: Sendable {
    let name: Notification.Name
    let identifiers: [String: [PersistentIdentifier]]
    let hasUserInfo: Bool
    let countAtTheTime: Int
}

@Suite("Save notifications and change observers", .timeLimit(.minutes(10)))
struct SaveNotificationTests {
    @Test("NotificationKey has SwiftData's cases; their raw values are the user info keys")
    func notificationKeys() {
        #expect(ModelContext.NotificationKey.insertedIdentifiers.rawValue == "inserted")
        #expect(ModelContext.NotificationKey.updatedIdentifiers.rawValue == "updated")
        #expect(ModelContext.NotificationKey.deletedIdentifiers.rawValue == "deleted")
        #expect(ModelContext.NotificationKey.invalidatedAllIdentifiers.rawValue == "invalidatedAll")
        #expect(ModelContext.NotificationKey.queryGeneration.rawValue == "queryGeneration")
        #expect(ModelContext.willSave != ModelContext.didSave)
    }

    @Test("willSave comes before the write, didSave after it with the inserted, updated and deleted identifiers", arguments: StoreKind.allCases)
    func willSaveAndDidSave(kind: StoreKind) throws {
        let container = try mergeContainer(TestStore(kind))
        let context = ModelContext(container)
        let shelf = MergeShelf(name: "Fiction")
        let kept = MergeBook(title: "Emma", pages: 400, shelf: shelf)
        let doomed = MergeBook(title: "Draft", pages: 10, shelf: shelf)
        context.insert(shelf)
        try context.save()

        let events = Collected<SaveEvent>()
        let center = NotificationCenter.default
        let observers = [ModelContext.willSave, ModelContext.didSave].map { name in
            center.addObserver(forName: name, object: context, queue: nil) { note in
                let count = (try? ModelContext(container).fetchCount(FetchDescriptor<MergeBook>())) ?? -1
                var identifiers: [String: [PersistentIdentifier]] = [:]
                for (key, value) in note.userInfo ?? [:] {
                    if let key = key as? String, let value = value as? [PersistentIdentifier] { identifiers[key] = value }
                }
                events.append(SaveEvent(name: note.name, identifiers: identifiers, hasUserInfo: note.userInfo != nil, countAtTheTime: count))
            }
        }
        defer { observers.forEach(center.removeObserver) }

        kept.pages = 410
        context.delete(doomed)
        let added = MergeBook(title: "Persuasion", pages: 300, shelf: shelf)
        context.insert(added)
        try context.save()

        let seen = events.elements
        try #require(seen.count == 2)
        #expect(seen[0].name == ModelContext.willSave)
        #expect(!seen[0].hasUserInfo)
        #expect(seen[0].countAtTheTime == 2, "willSave comes before anything is written")
        #expect(seen[1].name == ModelContext.didSave)
        #expect(seen[1].countAtTheTime == 2, "didSave comes after the commit: one book deleted, one inserted")
        func ids(_ key: ModelContext.NotificationKey) -> [PersistentIdentifier] { seen[1].identifiers[key.rawValue] ?? [] }
        #expect(ids(.insertedIdentifiers) == [added.persistentModelID])
        #expect(Set(ids(.updatedIdentifiers)).contains(kept.persistentModelID))
        #expect(ids(.deletedIdentifiers) == [doomed.persistentModelID])

        // Nothing to save: no notification.
        try context.save()
        #expect(events.elements.count == 2)
    }

    @Test("A cascade's deletes are in didSave's deleted identifiers")
    func cascadeInDidSave() throws {
        let container = try mergeContainer(TestStore())
        let context = ModelContext(container)
        let shelf = MergeShelf(name: "Poetry")
        let book = MergeBook(title: "Odes", pages: 80, shelf: shelf)
        context.insert(shelf)
        try context.save()
        let deleted = Collected<PersistentIdentifier>()
        let observer = NotificationCenter.default.addObserver(forName: ModelContext.didSave, object: context, queue: nil) {
            for id in $0.userInfo?[ModelContext.NotificationKey.deletedIdentifiers.rawValue] as? [PersistentIdentifier] ?? [] {
                deleted.append(id)
            }
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        context.delete(shelf)
        try context.save()
        #expect(Set(deleted.elements) == [shelf.persistentModelID, book.persistentModelID])
    }

    @Test("container.changes delivers every save with the properties written and the author, and ends when its task is cancelled")
    func asyncSequence() async throws {
        let container = try mergeContainer(TestStore())
        let stream = container.changes
        let context = ModelContext(container)
        context.author = "importer"
        let book = MergeBook(title: "Emma", pages: 400)
        context.insert(book)
        try context.save()
        book.pages = 401
        try context.save()

        var iterator = stream.makeAsyncIterator()
        let first = try #require(await iterator.next())
        #expect(first.insertedIdentifiers == [book.persistentModelID])
        #expect(first.author == "importer")
        #expect(!first.invalidatedAll)
        let second = try #require(await iterator.next())
        #expect(second.updatedIdentifiers == [book.persistentModelID])
        #expect(second.updatedPropertyNames[book.persistentModelID] == ["pages"])
        #expect(second.insertedIdentifiers.isEmpty && second.deletedIdentifiers.isEmpty)

        // A consumer task that is cancelled ends its iteration.
        let consumer = Task {
            var count = 0
            for await _ in container.changes { count += 1 }
            return count
        }
        consumer.cancel()
        _ = await consumer.value
    }

    @Test("observeChanges calls its observer for every save of every context until cancelled")
    func closureObserver() throws {
        let container = try mergeContainer(TestStore())
        let seen = Collected<StoreChanges>()
        let observation = container.observeChanges { seen.append($0) }
        let first = ModelContext(container)
        let second = ModelContext(container)
        second.author = "second"
        first.insert(MergeBook(title: "A", pages: 1))
        try first.save()
        second.insert(MergeBook(title: "B", pages: 2))
        try second.save()
        #expect(seen.elements.count == 2)
        #expect(seen.elements.map(\.author) == [nil, "second"])

        observation.cancel()
        first.insert(MergeBook(title: "C", pages: 3))
        try first.save()
        #expect(seen.elements.count == 2, "not called after cancel()")
    }

    @Test("An observation that is freed stops")
    func freedObservationStops() throws {
        let container = try mergeContainer(TestStore())
        let seen = Collected<StoreChanges>()
        var observation: ChangeObservation? = container.observeChanges { seen.append($0) }
        let context = ModelContext(container)
        context.insert(MergeBook(title: "A", pages: 1))
        try context.save()
        _ = observation
        observation = nil
        context.insert(MergeBook(title: "B", pages: 2))
        try context.save()
        #expect(seen.elements.count == 1)
    }

    @Test("author is nil by default and settable, as SwiftData's")
    func author() throws {
        let context = ModelContext(try mergeContainer(TestStore(.inMemory)))
        #expect(context.author == nil)
        context.author = "sync"
        #expect(context.author == "sync")
    }
}
