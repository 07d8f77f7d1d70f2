import Foundation
import ModelStore
import Synchronization
import Testing

/// Models isolated to the main actor by the module's default isolation work
/// with every part of the library: saving, fetching, relationships, delete
/// rules, Observation and change forwarding. The tests themselves are
/// main-actor-isolated, as the app code that uses such models is.
@Suite("Main-actor models")
struct MainActorModelsTests {
    private func container() throws -> (ModelContainer, URL) {
        let folder = FileManager.default.temporaryDirectory.appending(path: "modelstore-mainactor-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let url = folder.appending(path: "notes.store")
        return (try ModelContainer(for: Notebook.self, Page.self, Label.self, configurations: ModelConfiguration(url: url)), folder)
    }

    @Test func insertSaveAndFetch() throws {
        let (container, folder) = try container()
        defer { try? FileManager.default.removeItem(at: folder) }
        let context = container.mainContext
        let notebook = Notebook(title: "Journal")
        let first = Page(text: "one", number: 1)
        let second = Page(text: "two", number: 2)
        second.status = .published
        second.tags = ["a", "b"]
        notebook.pages = [first, second]
        context.insert(notebook)
        try context.save()

        let fresh = ModelContext(container)
        // No #Predicate or SortDescriptor on a main-actor-isolated property:
        // both need a Sendable key path, which Swift does not form for one
        // (see `Label` for the way around).
        let published = try fresh.fetch(FetchDescriptor<Page>()).filter { $0.status == .published }
        #expect(published.map(\.text) == ["two"])
        #expect(published.first?.tags == ["a", "b"])
        #expect(published.first?.notebook?.title == "Journal")
        let notebooks = try fresh.fetch(FetchDescriptor<Notebook>())
        #expect(notebooks.first?.pages.count == 2)
        #expect(notebooks.first?.created == Date(timeIntervalSince1970: 1_700_000_000))
    }

    @Test func changesAndCascadeDeleteAreSaved() throws {
        let (container, folder) = try container()
        defer { try? FileManager.default.removeItem(at: folder) }
        let context = container.mainContext
        let notebook = Notebook(title: "Journal")
        notebook.pages = [Page(text: "one", number: 1)]
        context.insert(notebook)
        try context.save()

        notebook.pages[0].text = "changed"
        #expect(context.hasChanges)
        try context.save()
        #expect(try ModelContext(container).fetch(FetchDescriptor<Page>()).map(\.text) == ["changed"])

        context.delete(notebook)
        try context.save()
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Page>()) == 0)
    }

    @Test func aUniqueAttributeUpserts() throws {
        let (container, folder) = try container()
        defer { try? FileManager.default.removeItem(at: folder) }
        let context = container.mainContext
        context.insert(Notebook(title: "Journal"))
        try context.save()
        context.insert(Notebook(title: "Journal"))
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<Notebook>()) == 1)
    }

    @Test func observationReportsAChange() {
        let page = Page(text: "one", number: 1)
        let changed = Flag()
        withObservationTracking {
            _ = page.text
        } onChange: {
            changed.set()
        }
        page.text = "two"
        #expect(changed.isSet)
    }

    @Test func changesAreForwardedToTheHolder() {
        let notebook = Notebook(title: "Journal")
        let page = Page(text: "one", number: 1)
        notebook.pages = [page]
        var keyPaths: [AnyKeyPath] = []
        let subscription = notebook.objectWillChange.sink { keyPaths.append($0.keyPath) }
        page.number = 7
        subscription.cancel()
        #expect(keyPaths == [\Page.number])
    }

    @Test func aNonisolatedModelIsFilteredAndSortedInSQL() throws {
        let (container, folder) = try container()
        defer { try? FileManager.default.removeItem(at: folder) }
        let context = container.mainContext
        for (name, rank) in [("b", 2), ("a", 1), ("c", 3)] { context.insert(Label(name: name, rank: rank)) }
        try context.save()
        let descriptor = FetchDescriptor<Label>(
            predicate: #Predicate { $0.rank > 1 }, sortBy: [SortDescriptor(\.name, order: .reverse)])
        #expect(try context.fetch(descriptor).map(\.name) == ["c", "b"])
    }

    /// The schema, and so the property table with its key paths, is built
    /// wherever a container is made, also off the main actor.
    @Test func theSchemaIsBuiltOffTheMainActor() async {
        let names = await Task.detached { Schema([Notebook.self, Page.self]).entities.map(\.name) }.value
        #expect(names.sorted() == ["Notebook", "Page"])
    }
}

/// Set once from Observation's `onChange`, which may run on any thread.
nonisolated final class Flag: Sendable {
    private let value = Mutex(false)
    func set() { value.withLock { $0 = true } }
    var isSet: Bool { value.withLock { $0 } }
}
