// A SwiftData data-layer file in SwiftData's exact spelling: the only line
// changed from the app's original is the import (`import SwiftData`).
import Foundation
import ModelStore

/// Background work as apps wrote it before `@ModelActor`: the container and
/// identifiers cross into a task, each task makes its own context.
struct BookImporter: Sendable {
    let container: ModelContainer

    struct Record: Codable, Sendable {
        var isbn: String
        var title: String
        var pages: Int
        var author: String
    }

    func importBooks(_ json: Data) async throws -> [PersistentIdentifier] {
        let container = self.container
        return try await Task.detached(priority: .background) {
            let records = try JSONDecoder().decode([Record].self, from: json)
            let context = ModelContext(container)
            context.autosaveEnabled = false
            var authors: [String: Author] = [:]
            for author in try context.fetch(FetchDescriptor<Author>()) {
                authors[author.name] = author
            }
            var books: [Book] = []
            for record in records {
                let author = authors[record.author] ?? {
                    let author = Author(name: record.author)
                    context.insert(author)
                    authors[record.author] = author
                    return author
                }()
                let book = Book(isbn: record.isbn, title: record.title, genre: .fiction, pages: record.pages, author: author)
                context.insert(book)
                books.append(book)
            }
            try context.save()
            return books.map(\.persistentModelID)
        }.value
    }

    func titles(of identifiers: [PersistentIdentifier]) async -> [String] {
        let container = self.container
        return await Task.detached {
            let context = ModelContext(container)
            return identifiers.compactMap { (context.model(for: $0) as? Book)?.title }
        }.value
    }
}
