import Foundation
import ModelStore
import Testing

/// Runs `Shapes/LibraryStore.swift`: a data manager that owns one context,
/// with the predicates, sorts and paging real apps write.
@Suite struct LibraryShapeTests {
    private func filled(_ store: LibraryStore) throws {
        let tolkien = Author(name: "Tolkien")
        let sagan = Author(name: "Sagan")
        let hobbit = Book(isbn: "1", title: "The Hobbit", genre: .fiction, pages: 310, author: tolkien)
        hobbit.rating = 4.8
        hobbit.keywords = ["dragon", "journey"]
        hobbit.dimensions = Dimensions(width: 13, height: 20)
        let rings = Book(isbn: "2", title: "The Lord of the Rings", genre: .fiction, pages: 1178, author: tolkien)
        rings.keywords = ["journey"]
        let cosmos = Book(isbn: "3", title: "Cosmos", genre: .science, pages: 365, author: sagan)
        cosmos.rating = 4.5
        let favourites = Shelf(name: "Favourites")
        favourites.createdAt = Date(timeIntervalSince1970: 1_000)
        favourites.books = [hobbit, cosmos]
        for model in [tolkien, sagan] as [any PersistentModel] { store.context.insert(model) }
        store.context.insert(favourites)
        try store.saveIfNeeded()
        store.context.insert(rings)
        try store.saveIfNeeded()
    }

    @Test func queriesAnswerAsOnSwiftData() throws {
        let store = try LibraryStore(inMemory: true)
        try filled(store)
        #expect(try store.books(by: "Tolkien").map(\.title) == ["The Hobbit", "The Lord of the Rings"])
        #expect(Set(try store.books(withKeyword: "journey").map(\.isbn)) == ["1", "2"])
        #expect(try store.longBooks(minimumPages: 300, genre: .fiction).map(\.isbn) == ["2", "1"])
        #expect(try store.wellRatedBooks().map(\.isbn) == ["1", "3"])
        #expect(try store.authorsWithBooks(onShelf: "Favourites").map(\.name) == ["Sagan", "Tolkien"])
        #expect(try store.prolificAuthors(minimumBooks: 2).map(\.name) == ["Tolkien"])
        #expect(try store.page(1, size: 2).map(\.isbn) == ["3"])
        #expect(try store.page(0, size: 2).first?.author?.name == "Tolkien")
        #expect(
            try store.titles(from: Date(timeIntervalSince1970: 0), to: Date(timeIntervalSince1970: 2_000))
                == ["Cosmos", "The Hobbit"])
    }

    @Test func pendingChangesCountOnlyWhenAsked() throws {
        let store = try LibraryStore(inMemory: true)
        try filled(store)
        store.context.insert(Book(isbn: "4", title: "Dune", genre: .fiction, pages: 412))
        #expect(store.unsavedCount() == 4)
        #expect(store.savedCount() == 3)
    }

    @Test func uniqueAttributeUpsertsAndDeleteRulesApply() throws {
        let store = try LibraryStore(inMemory: true)
        try filled(store)
        let again = Book(isbn: "3", title: "Cosmos (2nd edition)", genre: .science, pages: 400)
        store.context.insert(again)
        try store.saveIfNeeded()
        #expect(store.savedCount() == 3, "an insert with an existing unique value updates that row")
        let shelf = try #require(try store.context.fetch(FetchDescriptor<Shelf>()).first)
        #expect(Set(shelf.books.map(\.title)) == ["The Hobbit", "Cosmos (2nd edition)"])

        let tolkien = try #require(try store.context.fetch(FetchDescriptor<Author>(predicate: #Predicate { $0.name == "Tolkien" })).first)
        store.context.delete(tolkien)
        try store.saveIfNeeded()
        #expect(store.savedCount() == 1, "an author's books go with them (cascade)")
        #expect(shelf.books.map(\.title) == ["Cosmos (2nd edition)"], "a deleted book leaves its shelves (nullify)")
    }

    @Test func identifiersRoundTripThroughCodable() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("Library.store")
        let data: Data
        do {
            let store = try LibraryStore(url: url)
            try filled(store)
            let hobbit = try #require(try store.books(by: "Tolkien").first)
            data = try store.identifier(of: hobbit)
        }
        let reopened = try LibraryStore(url: url)
        let book = try #require(try reopened.book(from: data))
        #expect(book.title == "The Hobbit")
        #expect(book.dimensions == Dimensions(width: 13, height: 20))
        #expect(book.shelves.map(\.name) == ["Favourites"])
    }

    @Test func removingEverything() throws {
        let store = try LibraryStore(inMemory: true)
        try filled(store)
        try store.removeAllBooks()
        try store.saveIfNeeded()
        #expect(store.savedCount() == 0)
        #expect(try store.context.fetch(FetchDescriptor<Shelf>()).first?.books.isEmpty == true)
    }
}

/// Runs `Shapes/BackgroundImport.swift`: contexts made in detached tasks
/// from a container and identifiers that crossed into them.
@Suite struct BackgroundImportShapeTests {
    @Test func importInABackgroundTaskAndReadBackByIdentifier() async throws {
        let folder = try TemporaryFolder()
        let store = try LibraryStore(url: folder.file("Library.store"))
        let importer = BookImporter(container: store.container)
        let records = [
            BookImporter.Record(isbn: "10", title: "Emma", pages: 474, author: "Austen"),
            BookImporter.Record(isbn: "11", title: "Persuasion", pages: 249, author: "Austen"),
        ]
        let ids = try await importer.importBooks(try JSONEncoder().encode(records))
        #expect(await importer.titles(of: ids) == ["Emma", "Persuasion"])
        #expect(try store.books(by: "Austen").map(\.isbn) == ["10", "11"])
    }
}

/// Runs `Shapes/LibraryActor.swift`: a `@ModelActor` doing background work,
/// identifiers crossing to the caller's context.
@Suite struct ModelActorShapeTests {
    @Test func actorSavesAndCallerReadsByIdentifier() async throws {
        let folder = try TemporaryFolder()
        let store = try LibraryStore(url: folder.file("Library.store"))
        let actor = LibraryActor(modelContainer: store.container)
        let ids = try await actor.addBooks(["Emma", "Persuasion"], by: "Austen")
        try await actor.rename(ids[1], to: "Persuasion (1817)")
        #expect(await actor.pageCount(of: ids) == 201)
        let titles = ids.compactMap { (store.context.model(for: $0) as? Book)?.title }
        #expect(titles == ["Emma", "Persuasion (1817)"])
        #expect(try store.books(by: "Austen").count == 2)
    }

    /// Several actors on one container, each saving in its own context at the
    /// same time: every save lands.
    @Test func actorsSaveConcurrently() async throws {
        let folder = try TemporaryFolder()
        let store = try LibraryStore(url: folder.file("Library.store"))
        let container = store.container
        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 0..<4 {
                group.addTask {
                    let actor = LibraryActor(modelContainer: container)
                    for batch in 0..<5 {
                        _ = try await actor.addBooks(["A", "B"], by: "Writer \(writer) batch \(batch)")
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(try await LibraryActor(modelContainer: container).countBooks() == 40)
    }
}
