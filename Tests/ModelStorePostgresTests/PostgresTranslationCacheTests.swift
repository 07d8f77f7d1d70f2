import Foundation
import ModelStore
import ModelStorePostgres
import Testing

/// The store's translations are made once and shared by every session of
/// its container, and the cache stays bounded.
@Suite("PostgreSQL store: shared translations")
struct PostgresTranslationCacheTests {
    @Test("a full cache starts again empty, and still answers every text")
    func boundedCache() throws {
        let cache = PostgresTranslationCache(translator: PostgresSQLTranslator(keyColumns: [:]), capacity: 2)
        let texts = [#"SELECT 1 FROM "T" WHERE "a" = ?"#, #"SELECT 2 FROM "T" WHERE "a" = ?"#, #"SELECT 3 FROM "T" WHERE "a" = ?"#]
        for text in texts + texts {
            #expect(try cache.translation(of: text).sql == text.replacingOccurrences(of: "?", with: "$1"))
            #expect(cache.count <= 2)
        }
        #expect(cache.count >= 1)
    }

    @Test("a refused text is not cached, and is refused again")
    func refusalNotCached() {
        let cache = PostgresTranslationCache(translator: PostgresSQLTranslator(keyColumns: [:]))
        for _ in 0..<2 {
            #expect(throws: SQLiteError.self) { try cache.translation(of: "PRAGMA foreign_keys = ON") }
        }
        #expect(cache.count == 0)
    }

    @Test("every session of a container translates through one cache: a statement translated on one is known to the next",
          .enabled(if: PostgresTestDatabase.isEnabled, PostgresTestDatabase.disabledReason))
    func sessionsShareTranslations() throws {
        try PostgresTestDatabase.withSchema { database in
            let configuration = try PostgresConfiguration(
                url: try #require(PostgresTestDatabase.url), databaseSchema: database.name
            ).modelConfiguration()
            let opener = try #require(configuration.foreignDatabase)
            let first = try Connection(foreign: try opener.open())
            let bootstrap = try #require(opener.bootstrap)
            _ = try bootstrap(first, Schema([PGAuthor.self, PGBook.self, PGShelf.self]), configuration)
            let second = try Connection(foreign: try opener.open())
            let translations = try #require((first.foreign as? PostgresForeignDatabase)?.translations)
            #expect((second.foreign as? PostgresForeignDatabase)?.translations === translations)

            let sql = #"SELECT count(*) FROM "PGShelf" WHERE "label" = ?"#
            let before = translations.count
            for connection in [first, second] {
                let statement = try connection.prepare(sql)
                try statement.bind("Science", at: 1)
                #expect(try statement.step())
                #expect(translations.count == before + 1)
            }
        }
    }
}
