import Foundation
import ModelStore

// Models whose schema has every table feature the PostgreSQL DDL makes: a
// unique attribute, a compound #Unique, an #Index, a to-one with its
// to-many inverse (key and order columns), a many-to-many (join table),
// and narrow and unsigned integers (CHECKs).

@Model final class PGAuthor {
    @Attribute(.unique) var email: String
    var name: String
    @Relationship(deleteRule: .cascade, inverse: \PGBook.author) var books: [PGBook] = []

    init(email: String, name: String) {
        self.email = email
        self.name = name
    }
}

@Model final class PGBook {
    #Unique<PGBook>([\.title, \.edition])
    #Index<PGBook>([\.title])
    var title: String
    var edition: Int8
    var pages: UInt16
    var price: Decimal?
    var author: PGAuthor?
    var shelves: [PGShelf] = []

    init(title: String, edition: Int8, pages: UInt16) {
        self.title = title
        self.edition = edition
        self.pages = pages
    }
}

@Model final class PGShelf {
    var label: String
    var books: [PGBook] = []

    init(label: String) { self.label = label }
}
