// A SwiftData data-layer file in SwiftData's exact spelling: the only line
// changed from the app's original is the import (`import SwiftData`).
import Foundation
import ModelStore

/// Background work as SwiftData apps write it since `@ModelActor`.
@ModelActor
actor LibraryActor {
    func addBooks(_ titles: [String], by authorName: String) throws -> [PersistentIdentifier] {
        let author = try modelContext.fetch(FetchDescriptor<Author>(predicate: #Predicate { $0.name == authorName })).first
            ?? Author(name: authorName)
        modelContext.insert(author)
        var books: [Book] = []
        for (index, title) in titles.enumerated() {
            let book = Book(isbn: "\(authorName)-\(index)", title: title, genre: .fiction, pages: 100 + index)
            book.author = author
            modelContext.insert(book)
            books.append(book)
        }
        try modelContext.save()
        return books.map(\.persistentModelID)
    }

    func rename(_ id: PersistentIdentifier, to title: String) throws {
        guard let book = self[id, as: Book.self] else { return }
        book.title = title
        try modelContext.save()
    }

    func pageCount(of ids: [PersistentIdentifier]) -> Int {
        ids.compactMap { self[$0, as: Book.self]?.pages }.reduce(0, +)
    }

    func countBooks() throws -> Int {
        try modelContext.fetchCount(FetchDescriptor<Book>())
    }
}
