// A SwiftData data-layer file in SwiftData's exact spelling: the only line
// changed from the app's original is the import (`import SwiftData`).
import Foundation
import ModelStore

/// A data manager of the shape many apps write: it owns one context and
/// offers the queries the app's screens need.
final class LibraryStore {
    let container: ModelContainer
    let context: ModelContext

    init(inMemory: Bool = false, url: URL? = nil) throws {
        let schema = Schema([Author.self, Book.self, Shelf.self])
        let configuration: ModelConfiguration
        if let url {
            configuration = ModelConfiguration(schema: schema, url: url, allowsSave: true)
        } else {
            configuration = ModelConfiguration(schema: schema, isStoredInMemoryOnly: inMemory)
        }
        container = try ModelContainer(for: schema, configurations: [configuration])
        context = ModelContext(container)
        context.autosaveEnabled = false
    }

    func books(by authorName: String) throws -> [Book] {
        let descriptor = FetchDescriptor<Book>(
            predicate: #Predicate { $0.author?.name == authorName },
            sortBy: [.init(\.title)]
        )
        return try context.fetch(descriptor)
    }

    func books(withKeyword keyword: String) throws -> [Book] {
        try context.fetch(FetchDescriptor<Book>(predicate: #Predicate { $0.keywords.contains(keyword) }))
    }

    func longBooks(minimumPages: Int, genre: Genre) throws -> [Book] {
        let genreValue = genre
        var descriptor = FetchDescriptor<Book>()
        descriptor.predicate = #Predicate { book in
            book.pages >= minimumPages && book.genre == genreValue
        }
        descriptor.sortBy = [SortDescriptor(\.pages, order: .reverse)]
        return try context.fetch(descriptor)
    }

    func wellRatedBooks() throws -> [Book] {
        try context.fetch(FetchDescriptor<Book>(
            predicate: #Predicate { ($0.rating ?? 0) >= 4.0 },
            sortBy: [SortDescriptor(\.rating, order: .reverse)]
        ))
    }

    func authorsWithBooks(onShelf shelfName: String) throws -> [Author] {
        let descriptor = FetchDescriptor<Author>(
            predicate: #Predicate { author in
                author.books?.contains { book in
                    book.shelves.contains { $0.name == shelfName }
                } ?? false
            },
            sortBy: [SortDescriptor(\.name)]
        )
        return try context.fetch(descriptor)
    }

    func prolificAuthors(minimumBooks: Int) throws -> [Author] {
        try context.fetch(FetchDescriptor<Author>(predicate: #Predicate { ($0.books?.count ?? 0) >= minimumBooks }))
    }

    func page(_ number: Int, size: Int) throws -> [Book] {
        var descriptor = FetchDescriptor<Book>(sortBy: [SortDescriptor(\.isbn)])
        descriptor.fetchLimit = size
        descriptor.fetchOffset = number * size
        descriptor.relationshipKeyPathsForPrefetching = [\.author]
        descriptor.propertiesToFetch = [\.title, \.isbn]
        return try context.fetch(descriptor)
    }

    func titles(from date: Date, to end: Date) throws -> [String] {
        let descriptor = FetchDescriptor<Shelf>(predicate: #Predicate { $0.createdAt >= date && $0.createdAt < end })
        return try context.fetch(descriptor).flatMap { $0.books.map(\.title) }.sorted()
    }

    func unsavedCount() -> Int {
        var descriptor = FetchDescriptor<Book>()
        descriptor.includePendingChanges = true
        return (try? context.fetchCount(descriptor)) ?? 0
    }

    func savedCount() -> Int {
        var descriptor = FetchDescriptor<Book>()
        descriptor.includePendingChanges = false
        return (try? context.fetchCount(descriptor)) ?? 0
    }

    func remove(_ book: Book) {
        context.delete(book)
    }

    func removeAllBooks() throws {
        try context.delete(model: Book.self)
    }

    func saveIfNeeded() throws {
        guard context.hasChanges else { return }
        try context.save()
    }

    func identifier(of book: Book) throws -> Data {
        try JSONEncoder().encode(book.persistentModelID)
    }

    func book(from data: Data) throws -> Book? {
        let id = try JSONDecoder().decode(PersistentIdentifier.self, from: data)
        return context.model(for: id) as? Book
    }
}
