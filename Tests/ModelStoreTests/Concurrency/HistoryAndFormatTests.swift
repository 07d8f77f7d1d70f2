import Foundation
import Testing
@testable import ModelStore

@Suite("Change history and store format 3")
struct HistoryAndFormatTests {
    private func container(_ url: URL) throws -> ModelContainer {
        try ModelContainer(for: Schema([Counter.self]), configurations: [ModelConfiguration(url: url)])
    }

    @Test("Each save records one transaction with its inserts, updates (with property names) and deletes (with preserved values)")
    func historyOfSaves() throws {
        let directory = try TemporaryDirectory()
        let file = StoreFile(url: directory.file())
        let context = ModelContext(try container(directory.file()))
        context.author = "importer"
        let counter = Counter(name: "visits", code: "V-1")
        context.insert(counter)
        try context.save()
        counter.value = 2
        counter.note = "n"
        try context.save()
        context.delete(counter)
        try context.save()
        #expect(
            try file.rows("SELECT token, author FROM _modelstore_transactions ORDER BY token")
                == [[.integer(1), .text("importer")], [.integer(2), .text("importer")], [.integer(3), .text("importer")]])
        #expect(
            try file.rows("SELECT token, entity, rows, kind, properties, tombstone FROM _modelstore_changes ORDER BY id") == [
                [.integer(1), .text("Counter"), .text("[1]"), .text("insert"), .null, .null],
                [.integer(2), .text("Counter"), .text("[1]"), .text("update"), .text(#"["value","note"]"#), .null],
                [.integer(3), .text("Counter"), .text("[1]"), .text("delete"), .null, .text(#"{"code":"V-1"}"#)],
            ])
        #expect(try file.rows("SELECT _version FROM Counter") == [])
    }

    @Test("A row inserted at version 1 (earlier writers, plain SQL) that an upsert takes is an update: version 3, no conflict after")
    func upsertOntoARowAtVersionOne() throws {
        let store = try TestStore()
        let container = try store.container()
        let context = ModelContext(container)
        context.insert(makeTrip("Lisbon"))
        try context.save()
        let file = StoreFile(url: store.url)
        // As a store written before rows started at 2 holds it.
        try file.execute(#"UPDATE "Trip" SET "_version" = 1"#)
        let other = ModelContext(container)
        let duplicate = makeTrip("Lisbon", destination: "Portugal again")
        other.insert(duplicate)
        try other.save()
        #expect(try file.rows(#"SELECT "_version" FROM "Trip""#) == [[.integer(3)]])
        #expect(try file.rows("SELECT kind FROM _modelstore_changes ORDER BY id") == [[.text("insert")], [.text("update")]])
        duplicate.notes = "after the upsert"
        try other.save()
        #expect(try file.rows(#"SELECT "_version", "notes" FROM "Trip""#) == [[.integer(4), .text("after the upsert")]])
    }

    @Test("A failed save records no history")
    func noHistoryForFailedSave() throws {
        let directory = try TemporaryDirectory()
        let configuration = ModelConfiguration(url: directory.file())
        let container = try ModelContainer(for: Schema([Counter.self]), configurations: [configuration])
        let setup = ModelContext(container)
        setup.insert(Counter(name: "c"))
        try setup.save()
        let first = ModelContext(container)
        let second = ModelContext(container)
        let a = try #require(try first.fetch(FetchDescriptor<Counter>()).first)
        let b = try #require(try second.fetch(FetchDescriptor<Counter>()).first)
        a.value = 1
        b.value = 2
        try first.save()
        let before = try StoreFile(url: directory.file()).rows("SELECT count(*) FROM _modelstore_changes")
        #expect(throws: ModelStoreError.self) { try second.save() }
        #expect(try StoreFile(url: directory.file()).rows("SELECT count(*) FROM _modelstore_changes") == before)
    }

    @Test("Versions: 2 on insert (a one-byte integer from the start), one more per saved update")
    func versionsCount() throws {
        let directory = try TemporaryDirectory()
        let context = ModelContext(try container(directory.file()))
        let counter = Counter(name: "c")
        context.insert(counter)
        try context.save()
        for step in 1...3 {
            counter.value = step
            try context.save()
        }
        #expect(try StoreFile(url: directory.file()).rows("SELECT _version FROM Counter") == [[.integer(5)]])
    }

    @Test("A format 2 store is upgraded: its rows are kept, every entity table gets _version = 1, the history tables are added")
    func formatTwoUpgrade() throws {
        let directory = try TemporaryDirectory()
        let file = StoreFile(url: directory.file())
        do {
            let context = ModelContext(try container(directory.file()))
            context.insert(Counter(name: "kept", code: "K"))
            try context.save()
        }
        let formatThreeSQL = SchemaSQL.createTable(Schema([Counter.self]).entities[0])
        let formatTwoSQL = formatThreeSQL.replacingOccurrences(of: ", " + SchemaSQL.versionColumnDefinition, with: "")
        // Back to format 2, as the previous ModelStore wrote it.
        try file.execute(
            """
            ALTER TABLE "Counter" DROP COLUMN "_version"; ALTER TABLE "_modelstore_migrations" DROP COLUMN "baseline";
            DROP TABLE "_modelstore_changes"; DROP TABLE "_modelstore_transactions";
            UPDATE "_modelstore_metadata" SET "value" = 2 WHERE "key" = 'formatVersion';
            """)
        #expect(try file.rows("SELECT sql FROM sqlite_schema WHERE name = 'Counter'") == [[.text(formatTwoSQL)]])
        // Read-only, a format 2 store opens as it is, and reads.
        let reader = try ModelContainer(
            for: Schema([Counter.self]), configurations: [ModelConfiguration(url: directory.file(), allowsSave: false)])
        #expect(try ModelContext(reader).fetch(FetchDescriptor<Counter>()).map(\.name) == ["kept"])
        let context = ModelContext(try container(directory.file()))
        #expect(try file.metadata("formatVersion") == .integer(Int64(StoreFormat.current)))
        #expect(try file.rows("SELECT name, _version FROM Counter") == [[.text("kept"), .integer(1)]])
        #expect(try file.rows("SELECT kind, name FROM _modelstore_migrations").last == [.text("format"), .text("store format 2 → \(StoreFormat.current)")])
        // The upgraded table's SQL is exactly what a new store has.
        #expect(try file.rows("SELECT sql FROM sqlite_schema WHERE name = 'Counter'") == [[.text(formatThreeSQL)]])
        let counter = try #require(try context.fetch(FetchDescriptor<Counter>()).first)
        counter.value = 1
        try context.save()
        #expect(try file.rows("SELECT _version FROM Counter") == [[.integer(2)]])
        #expect(try file.rows("SELECT kind FROM _modelstore_changes") == [[.text("update")]])
    }

    @Test("A property may not be named _version")
    func reservedName() {
        let entity = Schema.Entity(name: "Thing", attributes: [attribute("_version", .int)])
        #expect(throws: ModelStoreError.self) { try Schema(entities: [entity]).validate() }
    }
}
