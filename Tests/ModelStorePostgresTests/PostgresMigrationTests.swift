import Foundation
import ModelStore
import ModelStorePostgres
import Testing

/// Inferred migrations on PostgreSQL: a schema that only adds is migrated
/// at open, in one transaction with its record; anything else is refused
/// and leaves the store as it was.
@Suite("PostgreSQL additive migrations", .enabled(if: PostgresTestDatabase.isEnabled, PostgresTestDatabase.disabledReason))
struct PostgresMigrationTests {
    typealias Attribute = Schema.Attribute

    static let version1 = Schema(entities: [
        Schema.Entity(name: "Trip", attributes: [Attribute(name: "name", kind: .string, swiftType: "String", isOptional: false)])
    ])

    static func version2(newAttributeIsOptional: Bool = true) -> Schema {
        Schema(entities: [
            Schema.Entity(
                name: "Trip",
                attributes: [
                    Attribute(name: "name", kind: .string, swiftType: "String", isOptional: false),
                    Attribute(name: "nights", kind: .int, swiftType: "Int", isOptional: newAttributeIsOptional),
                ],
                relationships: [Schema.Relationship(name: "guide", destination: "Guide", isToMany: false, isOptional: true)],
                indexes: [["name"]]),
            Schema.Entity(name: "Guide", attributes: [Attribute(name: "name", kind: .string, swiftType: "String", isOptional: false)]),
        ])
    }

    static func columns(_ table: String, _ executor: PostgresExecutor) throws -> Set<String> {
        let rows = try executor.execute(
            "SELECT column_name::text FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = '\(table)'"
        ).rows
        return Set(try rows.map { try $0.decode(String.self) })
    }

    @Test("new entities, optional attributes, to-one relationships and indexes are added, rows kept, the record updated")
    func additionsAreMigrated() throws {
        try PostgresTestDatabase.withSchema { database in
            let executor = try database.executor()
            let created = try PostgresBootstrap(executor: executor, schema: Self.version1).run()
            try executor.execute(#"INSERT INTO "Trip" ("name") VALUES ('Lisbon')"#)
            let migrated = try PostgresBootstrap(executor: try database.executor(), schema: Self.version2()).run()
            #expect(migrated == PostgresBootstrap.Outcome(identifier: created.identifier, created: false))
            #expect(try Self.columns("Trip", executor).isSuperset(of: ["name", "nights", "guide"]))
            #expect(try Self.columns("Guide", executor).contains("name"))
            let names = try executor.execute(#"SELECT "name" FROM "Trip""#).rows.map { try $0.decode(String.self) }
            #expect(names == ["Lisbon"])
            let fingerprint = try executor.execute(#"SELECT "value" FROM "_modelstore_metadata" WHERE "key" = 'schemaFingerprint'"#)
                .rows.first?.decode(String.self)
            let resolved = try Self.version2().resolvingRelationships()
            #expect(fingerprint == resolved.fingerprint)
            // Opening again finds nothing to do.
            #expect(try PostgresBootstrap(executor: try database.executor(), schema: Self.version2()).run().created == false)
        }
    }

    @Test("a removal, or a new non-optional attribute of a table with rows, is refused naming it, and nothing changes")
    func otherChangesAreRefused() throws {
        try PostgresTestDatabase.withSchema { database in
            let executor = try database.executor()
            _ = try PostgresBootstrap(executor: executor, schema: Self.version2()).run()
            try executor.execute(#"INSERT INTO "Trip" ("name", "nights") VALUES ('Lisbon', 3)"#)
            #expect {
                try PostgresBootstrap(executor: try database.executor(), schema: Self.version1).run()
            } throws: { error in
                guard case .schemaMismatch(_, let differences)? = error as? ModelStoreError else { return false }
                return differences.contains(.attributeRemoved(entity: "Trip", attribute: "nights"))
            }
            #expect(try Self.columns("Trip", executor).contains("nights"))
            try executor.execute(#"DROP TABLE "Trip" CASCADE"#)
            try executor.execute(#"DROP TABLE "Guide" CASCADE"#)
            try executor.execute(#"DROP TABLE "_modelstore_metadata""#)
            try executor.execute(#"DROP TABLE "_modelstore_transactions", "_modelstore_changes", "_modelstore_sequence""#)
            try executor.execute(#"DROP FUNCTION "_modelstore_next_token""#)
            _ = try PostgresBootstrap(executor: executor, schema: Self.version1).run()
            try executor.execute(#"INSERT INTO "Trip" ("name") VALUES ('Lisbon')"#)
            #expect {
                try PostgresBootstrap(executor: try database.executor(), schema: Self.version2(newAttributeIsOptional: false)).run()
            } throws: { error in
                guard case .schemaMismatch(_, let differences)? = error as? ModelStoreError else { return false }
                return differences == [.attributeAdded(entity: "Trip", attribute: "nights")]
            }
            #expect(try !Self.columns("Trip", executor).contains("nights"))
            #expect(try !Self.columns("Trip", executor).contains("guide"))
        }
    }

    @Test("a read-only configuration neither creates nor migrates a store: it is refused, and nothing is written")
    func readOnlyWritesNothing() throws {
        try PostgresTestDatabase.withSchema { database in
            let executor = try database.executor()
            let configuration = PostgresConfiguration(
                url: try #require(PostgresTestDatabase.url), databaseSchema: database.name, allowsSave: false)
            #expect(throws: ModelStoreError.self) {
                try ModelContainer(for: Schema([PGAuthor.self, PGBook.self, PGShelf.self]), configurations: [configuration])
            }
            let tables = try executor.execute("SELECT count(*) FROM pg_catalog.pg_tables WHERE schemaname = current_schema()")
            #expect(try tables.rows.first?.decode(Int64.self) == 0)
            _ = try PostgresBootstrap(executor: executor, schema: Self.version1).run()
            #expect {
                try PostgresBootstrap(executor: try database.executor(), schema: Self.version2(), allowsWriting: false).run()
            } throws: { error in
                guard case .schemaMismatch? = error as? ModelStoreError else { return false }
                return true
            }
            #expect(try !Self.columns("Trip", executor).contains("nights"))
        }
    }
}
