import Foundation
import Testing
@testable import ModelStore

/// A context that goes gives its connection back to the store, which keeps a
/// few idle ones for the next contexts (`Store.recycle(_:)`), so that a
/// context made for one task and dropped neither opens nor closes the file.
@Suite("Connections kept for the next context")
struct ConnectionReuseTests {
    /// Makes a context of `container`, fetches every book with it and
    /// returns the context's connection; the context and the books it
    /// fetched are gone when this returns.
    private func connectionOfDroppedContext(_ container: ModelContainer) throws -> Connection {
        let context = ModelContext(container)
        _ = try context.fetch(FetchDescriptor<MergeBook>())
        return try context.connection()
    }

    /// A container on `store` and a context of it that saved one book per
    /// title; the context stays with the caller, and so does its connection.
    private func seeded(_ store: TestStore, _ titles: String...) throws -> (container: ModelContainer, seed: ModelContext) {
        let container = try mergeContainer(store)
        let seed = ModelContext(container)
        for title in titles { seed.insert(MergeBook(title: title, pages: 400)) }
        try seed.save()
        return (container, seed)
    }

    @Test("A context that goes leaves its connection to the next one, which still notices another process's commits")
    func nextContextTakesTheConnection() throws {
        let store = try TestStore()
        let seed = try seeded(store, "Emma").seed

        let container = try mergeContainer(at: store.url)
        let first = try connectionOfDroppedContext(container)
        #expect(container.store.spareConnectionCount == 1, "the gone context's connection waits for the next")

        let context = ModelContext(container)
        let book = try #require(try context.fetch(FetchDescriptor<MergeBook>()).first)
        #expect(try context.connection() === first)
        #expect(container.store.spareConnectionCount == 0)

        // The connection's new context set its own baseline: a commit of
        // another container (another process) after it is noticed and merged.
        let theirs = try #require(try seed.fetch(FetchDescriptor<MergeBook>()).first)
        theirs.pages = 401
        try seed.save()
        _ = try context.fetch(FetchDescriptor<MergeBook>(predicate: #Predicate { $0.title == "nothing" }))
        #expect(book.pages == 401)
    }

    @Test("A context whose objects outlive it keeps its connection for them")
    func successorKeepsTheConnection() throws {
        let (container, seed) = try seeded(try TestStore(), "Emma")
        let spares = container.store.spareConnectionCount

        var books: [MergeBook] = []
        do {
            let context = ModelContext(container)
            books = try context.fetch(FetchDescriptor<MergeBook>())
        }
        // The objects still read through the gone context's connection.
        #expect(container.store.spareConnectionCount == spares)
        #expect(books.first?.title == "Emma")
        withExtendedLifetime(seed) {}
    }

    @Test("At most a few idle connections are kept; the others are closed")
    func sparesAreBounded() throws {
        let store = try TestStore()
        let container = try mergeContainer(store)
        do {
            let contexts = (0..<(Store.maximumSpareConnections + 2)).map { _ in ModelContext(container) }
            for context in contexts { _ = try context.fetch(FetchDescriptor<MergeBook>()) }
            withExtendedLifetime(contexts) {
                #expect(container.store.spareConnectionCount == 0)
            }
        }
        #expect(container.store.spareConnectionCount == Store.maximumSpareConnections)
    }

    @Test("A connection inside a statement, or carrying a statement observer, is not handed on as it is")
    func onlyIdleConnectionsAreKept() throws {
        let (container, seed) = try seeded(try TestStore(), "Emma", "Persuasion")
        let spares = container.store.spareConnectionCount

        let busy = try container.store.openConnection()
        let statement = try busy.prepare(#"SELECT "title" FROM "MergeBook""#)
        #expect(try statement.step())
        container.store.recycle(busy)
        #expect(container.store.spareConnectionCount == spares, "a connection in a statement reads an old snapshot")
        statement.reset()

        let observed = Collected<String>()
        busy.statementObserver = { observed.append($0) }
        container.store.recycle(busy)
        #expect(container.store.spareConnectionCount == spares + 1)
        let next = ModelContext(container)
        _ = try next.fetch(FetchDescriptor<MergeBook>())
        #expect(try next.connection() === busy)
        #expect(observed.elements.isEmpty, "the first user's observer does not see the next one's statements")
        withExtendedLifetime(seed) {}
    }

    @Test("An in-memory store keeps no idle connection")
    func inMemoryStoreKeepsNone() throws {
        let container = try ModelContainer(
            for: MergeBook.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        _ = try connectionOfDroppedContext(container)
        #expect(container.store.spareConnectionCount == 0)
    }
}
