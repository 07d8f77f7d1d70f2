import Foundation
import ModelStore
import ModelStorePostgres
import Testing

/// An app's container on PostgreSQL through the public API only: the
/// `PostgresConfiguration` in place of a `ModelConfiguration`, and the same
/// contexts, saves, fetches and predicates.
@Suite("PostgreSQL containers", .enabled(if: PostgresTestDatabase.isEnabled, PostgresTestDatabase.disabledReason))
struct PostgresContainerTests {
    @Test("a graph saved by one container is read, edited and deleted by another, as on SQLite")
    func savedAndReadBack() throws {
        try PostgresTestDatabase.withSchema { database in
            let configuration = PostgresConfiguration(url: try #require(PostgresTestDatabase.url), databaseSchema: database.name)
            do {
                let container = try ModelContainer(for: PGAuthor.self, PGBook.self, PGShelf.self, configurations: configuration)
                let context = ModelContext(container)
                let author = PGAuthor(email: "ada@example.com", name: "Ada")
                let book = PGBook(title: "Notes", edition: 1, pages: 120)
                book.price = Decimal(string: "12.30")
                author.books.append(book)
                let shelf = PGShelf(label: "Science")
                shelf.books.append(book)
                context.insert(author)
                context.insert(shelf)
                try context.save()
            }
            let container = try ModelContainer(for: PGAuthor.self, PGBook.self, PGShelf.self, configurations: configuration)
            let context = ModelContext(container)
            let books = try context.fetch(FetchDescriptor<PGBook>(predicate: #Predicate { $0.pages > 100 && $0.edition == 1 }))
            let book = try #require(books.first)
            #expect(books.count == 1)
            #expect(book.author?.name == "Ada")
            #expect(book.price == Decimal(string: "12.3"))
            #expect(book.shelves.map(\.label) == ["Science"])
            book.pages = 99
            try context.save()
            #expect(try context.fetchCount(FetchDescriptor<PGBook>(predicate: #Predicate { $0.pages > 100 })) == 0)
            let author = try #require(book.author)
            context.delete(author)
            try context.save()
            // The cascade rule deleted the book; the shelf stays, empty.
            #expect(try context.fetchCount(FetchDescriptor<PGBook>()) == 0)
            #expect(try context.fetch(FetchDescriptor<PGShelf>()).first?.books.isEmpty == true)
        }
    }

    @Test("a unique attribute upserts on PostgreSQL as on SQLite")
    func uniqueUpsert() throws {
        try PostgresTestDatabase.withSchema { database in
            let configuration = PostgresConfiguration(url: try #require(PostgresTestDatabase.url), databaseSchema: database.name)
            let container = try ModelContainer(for: PGAuthor.self, PGBook.self, PGShelf.self, configurations: configuration)
            let first = ModelContext(container)
            first.insert(PGAuthor(email: "ada@example.com", name: "Ada"))
            try first.save()
            let second = ModelContext(container)
            second.insert(PGAuthor(email: "ada@example.com", name: "Ada Lovelace"))
            try second.save()
            let authors = try ModelContext(container).fetch(FetchDescriptor<PGAuthor>())
            #expect(authors.map(\.name) == ["Ada Lovelace"])
        }
    }

    @Test("a save the server refuses says that PostgreSQL refused it, with the SQLSTATE and the server's message")
    func serverErrorNamesPostgres() throws {
        try PostgresTestDatabase.withSchema { database in
            let configuration = PostgresConfiguration(url: try #require(PostgresTestDatabase.url), databaseSchema: database.name)
            let container = try ModelContainer(for: PGAuthor.self, PGBook.self, PGShelf.self, configurations: configuration)
            let context = ModelContext(container)
            context.insert(PGAuthor(email: "ada@example.com", name: "Ada"))
            let grace = PGAuthor(email: "grace@example.com", name: "Grace")
            context.insert(grace)
            try context.save()
            // An update is no upsert: a duplicate email is refused.
            grace.email = "ada@example.com"
            let error = #expect(throws: ModelStoreError.self) { try context.save() }
            guard case .saveFailed(_, _, let underlying)? = error else {
                Issue.record("expected saveFailed, got \(String(describing: error))")
                return
            }
            // Classified as SQLite's unique-constraint failure, as the library handles it…
            #expect(underlying.extendedCode == 2067)
            // …but described as what it is.
            let text = underlying.description
            #expect(text.hasPrefix(#"PostgreSQL error 23505 (unique_violation): duplicate key value violates unique constraint "PGAuthor.unique(email)""#))
            #expect(!text.contains("SQLite"))
            #expect("\(try #require(error))".contains("PostgreSQL error 23505"))
            context.rollback()
            #expect(try ModelContext(container).fetch(FetchDescriptor<PGAuthor>()).map(\.email).sorted() == ["ada@example.com", "grace@example.com"])
        }
    }

    @Test("two containers (two servers) on one database: a save of one reaches the other's objects, and a save over it is a conflict")
    func twoServers() throws {
        try PostgresTestDatabase.withSchema { database in
            let configuration = PostgresConfiguration(url: try #require(PostgresTestDatabase.url), databaseSchema: database.name)
            let types: [any PersistentModel.Type] = [PGAuthor.self, PGBook.self, PGShelf.self]
            let serverA = try ModelContainer(for: Schema(types), configurations: [configuration])
            let serverB = try ModelContainer(for: Schema(types), configurations: [configuration])
            let a = ModelContext(serverA)
            a.insert(PGAuthor(email: "ada@example.com", name: "Ada"))
            try a.save()

            // A conflict: B changes the object that A changes and saves first.
            let b = ModelContext(serverB)
            let seenByB = try #require(try b.fetch(FetchDescriptor<PGAuthor>()).first)
            let authorOfA = try #require(try a.fetch(FetchDescriptor<PGAuthor>()).first)
            authorOfA.name = "Ada Lovelace"
            try a.save()
            seenByB.name = "Ada King"
            #expect(throws: ModelStoreError.self) { try b.save() }
            b.rollback()

            // The change notification: B's registered object takes A's
            // value once B's listener heard of A's commit.
            authorOfA.name = "Augusta Ada"
            try a.save()
            let reader = ModelContext(serverB)
            let registered = try #require(try reader.fetch(FetchDescriptor<PGAuthor>()).first)
            authorOfA.name = "Countess of Lovelace"
            try a.save()
            let deadline = ContinuousClock.now + .seconds(10)
            while registered.name != "Countess of Lovelace" && ContinuousClock.now < deadline {
                reader.processPendingChanges()
                Thread.sleep(forTimeInterval: 0.005)
            }
            #expect(registered.name == "Countess of Lovelace")
        }
    }

    @Test("contexts hold a connection only during a transaction or statement; one past the limit fails naming it")
    func connectionsAreBorrowed() throws {
        try PostgresTestDatabase.withSchema { database in
            let configuration = PostgresConfiguration(
                url: try #require(PostgresTestDatabase.url), databaseSchema: database.name, maximumConnections: 2)
            let container = try ModelContainer(for: PGAuthor.self, PGBook.self, PGShelf.self, configurations: configuration)
            // Fifty contexts, each still holding its objects: none holds a connection.
            var kept: [(ModelContext, [PGAuthor])] = []
            for index in 0..<50 {
                let context = ModelContext(container)
                context.insert(PGAuthor(email: "\(index)@example.com", name: "Author \(index)"))
                try context.save()
                kept.append((context, try context.fetch(FetchDescriptor<PGAuthor>())))
            }
            #expect(kept.last?.1.count == 50)
            // Two snapshots (read transactions) hold both; a third context waits, then fails.
            let (first, second, third) = (ModelContext(container), ModelContext(container), ModelContext(container))
            try first.withSnapshot {
                let firstCount = try first.fetchCount(FetchDescriptor<PGAuthor>())
                #expect(firstCount == 50)
                try second.withSnapshot {
                    let secondCount = try second.fetchCount(FetchDescriptor<PGAuthor>())
                    #expect(secondCount == 50)
                    #expect {
                        try third.fetchCount(FetchDescriptor<PGAuthor>())
                    } throws: { error in
                        "\(error)".contains("all 2 connections")
                    }
                }
            }
            #expect(try third.fetchCount(FetchDescriptor<PGAuthor>()) == 50)
        }
    }

    @Test("a predicate only Swift can answer gives the same objects through fetch, fetchCount, fetchIdentifiers, enumerate, batched fetches and delete(model:where:)")
    func swiftOnlyPredicate() throws {
        try PostgresTestDatabase.withSchema { database in
            let configuration = PostgresConfiguration(url: try #require(PostgresTestDatabase.url), databaseSchema: database.name)
            let container = try ModelContainer(for: PGAuthor.self, PGBook.self, PGShelf.self, configurations: configuration)
            let writer = ModelContext(container)
            for (index, name) in ["Ada", "Grace", "Adele", "Hedy"].enumerated() {
                writer.insert(PGAuthor(email: "\(index)@example.com", name: name))
            }
            try writer.save()
            let context = ModelContext(container)
            var descriptor = FetchDescriptor<PGAuthor>(
                predicate: #Predicate { $0.name.contains("d") }, sortBy: [SortDescriptor(\.name, order: .reverse)])
            #expect(try context.fetch(descriptor).map(\.name) == ["Hedy", "Adele", "Ada"])
            #expect(try context.fetchCount(descriptor) == 3)
            #expect(try context.fetchIdentifiers(descriptor).count == 3)
            var enumerated: [String] = []
            try context.enumerate(descriptor, batchSize: 2) { enumerated.append($0.name) }
            #expect(enumerated == ["Hedy", "Adele", "Ada"])
            #expect(Array(try context.fetch(descriptor, batchSize: 2)).map(\.name) == ["Hedy", "Adele", "Ada"])
            #expect(Array(try context.fetchIdentifiers(descriptor, batchSize: 2)) == (try context.fetchIdentifiers(descriptor)))
            descriptor.fetchOffset = 1
            descriptor.fetchLimit = 1
            #expect(try context.fetch(descriptor).map(\.name) == ["Adele"])
            #expect(Array(try context.fetch(descriptor, batchSize: 2)).map(\.name) == ["Adele"])

            try context.delete(model: PGAuthor.self, where: #Predicate { $0.name.starts(with: "Ad") })
            try context.save()
            #expect(try ModelContext(container).fetch(FetchDescriptor<PGAuthor>(sortBy: [SortDescriptor(\.name)])).map(\.name)
                == ["Grace", "Hedy"])
        }
    }

    @Test("a URL that cannot be read is refused before any connection, naming what is wrong")
    func invalidURL() {
        #expect {
            try ModelContainer(for: PGAuthor.self, configurations: PostgresConfiguration(url: "mysql://db/x"))
        } throws: { error in
            "\(error)".contains("postgres://")
        }
    }

    @Test("a PostgreSQL configuration beside another one is refused: one connection cannot attach a server")
    func notBesideAnother() throws {
        let configurations: [any DataStoreConfiguration] = [
            ModelConfiguration(isStoredInMemoryOnly: true), PostgresConfiguration(url: "postgres://app@127.0.0.1/x"),
        ]
        #expect {
            try ModelContainer(for: Schema([PGAuthor.self, PGBook.self, PGShelf.self]), configurations: configurations)
        } throws: { error in
            guard case .invalidConfiguration(_, let reason)? = error as? ModelStoreError else { return false }
            return reason.contains("only configuration")
        }
    }

    enum LibraryV1: VersionedSchema {
        static var versionIdentifier: Schema.Version { Schema.Version(1, 0, 0) }
        static var models: [any PersistentModel.Type] { [PGAuthor.self, PGBook.self, PGShelf.self] }
    }

    enum LibraryPlan: SchemaMigrationPlan {
        static var schemas: [any VersionedSchema.Type] { [LibraryV1.self] }
        static var stages: [MigrationStage] { [] }
    }

    @Test("a migration plan on PostgreSQL is refused as not yet supported, before anything is created")
    func migrationPlanRefused() throws {
        try PostgresTestDatabase.withSchema { database in
            let configuration = PostgresConfiguration(url: try #require(PostgresTestDatabase.url), databaseSchema: database.name)
            #expect {
                try ModelContainer(for: PGAuthor.self, PGBook.self, PGShelf.self, migrationPlan: LibraryPlan.self, configurations: configuration)
            } throws: { error in
                guard case .invalidConfiguration(_, let reason)? = error as? ModelStoreError else { return false }
                return reason.contains("migration plans")
            }
            let tables = try database.executor().execute("SELECT count(*) FROM pg_catalog.pg_tables WHERE schemaname = current_schema()")
            #expect(try tables.rows.first?.decode(Int64.self) == 0)
        }
    }

    struct ElsewhereConfiguration: DataStoreConfiguration {
        var name = "elsewhere"
        var schema: Schema? = nil
        func validate() throws {}
    }

    @Test("a configuration type ModelStore has no store for is refused, naming the type")
    func unknownConfigurationType() {
        #expect {
            try ModelContainer(for: PGAuthor.self, configurations: ElsewhereConfiguration())
        } throws: { error in
            guard case .invalidConfiguration(let name, let reason)? = error as? ModelStoreError else { return false }
            return name == "elsewhere" && reason.contains("ElsewhereConfiguration")
        }
    }
}
