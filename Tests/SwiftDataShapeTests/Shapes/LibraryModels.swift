// A SwiftData data-layer file in SwiftData's exact spelling: the only line
// changed from the app's original is the import (`import SwiftData`).
import Foundation
import ModelStore

enum Genre: String, Codable, CaseIterable {
    case fiction, history, science
}

struct Dimensions: Codable, Hashable {
    var width: Double
    var height: Double
}

@Model
final class Author {
    #Unique<Author>([\.name])

    var name: String
    var born: Date?
    @Relationship(deleteRule: .cascade, inverse: \Book.author)
    var books: [Book]? = []

    init(name: String, born: Date? = nil) {
        self.name = name
        self.born = born
    }
}

@Model
final class Book {
    @Attribute(.unique) var isbn: String
    var title: String
    var genre: Genre
    var pages: Int
    var rating: Double?
    var dimensions: Dimensions?
    var keywords: [String] = []
    @Attribute(.externalStorage) var cover: Data?
    var author: Author?
    @Relationship(deleteRule: .nullify, inverse: \Shelf.books)
    var shelves: [Shelf] = []

    init(isbn: String, title: String, genre: Genre, pages: Int, author: Author? = nil) {
        self.isbn = isbn
        self.title = title
        self.genre = genre
        self.pages = pages
        self.author = author
    }
}

@Model
final class Shelf {
    var name: String
    @Relationship(maximumModelCount: 100) var books: [Book] = []
    var createdAt = Date()

    init(name: String) {
        self.name = name
    }
}
