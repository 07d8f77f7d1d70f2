import Foundation
import ModelStore
import ModelStorePostgres
import PostgresNIO
import Testing

@Suite("PostgreSQL DDL", .enabled(if: PostgresTestDatabase.isEnabled, PostgresTestDatabase.disabledReason))
struct PostgresSchemaSQLTests {
    static let schema = Schema([PGAuthor.self, PGBook.self, PGShelf.self])

    /// Creates the test models' tables in a fresh schema and runs `body`.
    static func withTables(_ body: (PostgresExecutor, PostgresTestDatabase.TestSchema) throws -> Void) throws {
        try PostgresTestDatabase.withSchema { database in
            let executor = try database.executor()
            try executor.transaction {
                for statement in try PostgresSchemaSQL.createStatements(schema) { try executor.execute(statement) }
            }
            try body(executor, database)
        }
    }

    static func strings(_ executor: PostgresExecutor, _ sql: String, _ value: String) throws -> [String] {
        var binds = PostgresBindings()
        binds.append(value)
        return try executor.execute(sql, binds).rows.map { try $0.decode(String.self) }
    }

    @Test("The SELECT the SQLite store reads objects with runs unchanged on each entity's table")
    func sameTableAndColumnNames() throws {
        try Self.withTables { executor, _ in
            for entity in Self.schema.entities {
                let columns = SchemaSQL.selectColumns(entity.slots, qualifier: "t", version: .column)
                let result = try executor.execute("SELECT \(columns) FROM \(quoteIdentifier(entity.name)) AS t")
                #expect(result.rows.isEmpty)
            }
        }
    }

    @Test("Columns have the exact PostgreSQL types, NOT NULL where the property is not optional")
    func columnTypes() throws {
        try Self.withTables { executor, _ in
            let rows = try executor.execute(
                """
                SELECT column_name::text, data_type::text, is_nullable::text FROM information_schema.columns
                WHERE table_schema = current_schema() AND table_name = 'PGBook' ORDER BY ordinal_position
                """
            ).rows.map { try $0.decode((String, String, String).self) }
            let columns = Dictionary(uniqueKeysWithValues: rows.map { ($0.0, "\($0.1) \($0.2)") })
            #expect(columns["_pk"] == "bigint NO")
            #expect(columns["title"] == "text NO")
            #expect(columns["edition"] == "smallint NO")
            #expect(columns["pages"] == "integer NO")
            #expect(columns["price"] == "numeric YES")
            #expect(columns["author"] == "bigint YES")
            #expect(columns["_version"] == "bigint NO")
            #expect(rows.last?.0 == "_version")
        }
    }

    @Test("The database itself refuses an integer outside the Swift type's range")
    func rangeChecks() throws {
        try Self.withTables { executor, _ in
            let error = #expect(throws: PostgresStoreError.self) {
                try executor.execute(#"INSERT INTO "PGBook" ("title", "edition", "pages") VALUES ('x', 200, 1)"#)
            }
            guard case .server(let state, _, _)? = error else {
                Issue.record("expected a check violation, got \(String(describing: error))")
                return
            }
            #expect(state == "23514")
        }
    }

    @Test("Unique attributes and #Unique are named constraints, which a violation names")
    func uniqueConstraints() throws {
        try Self.withTables { executor, _ in
            let author = #"INSERT INTO "PGAuthor" ("email", "name") VALUES ('a@x', 'A')"#
            try executor.execute(author)
            let duplicateAuthor = #"duplicate key value violates unique constraint "PGAuthor.unique(email)""#
            #expect(throws: PostgresStoreError.uniqueViolation(constraint: "PGAuthor.unique(email)", message: duplicateAuthor, statement: author)) {
                try executor.execute(author)
            }
            let book = #"INSERT INTO "PGBook" ("title", "edition", "pages") VALUES ('T', 1, 10)"#
            try executor.execute(book)
            let duplicateBook = #"duplicate key value violates unique constraint "PGBook.unique(title,edition)""#
            #expect(throws: PostgresStoreError.uniqueViolation(constraint: "PGBook.unique(title,edition)", message: duplicateBook, statement: book)) {
                try executor.execute(book)
            }
        }
    }

    @Test("To-one keys are deferred foreign keys with an index; #Index and the join table have theirs")
    func foreignKeysAndIndexes() throws {
        try Self.withTables { executor, _ in
            let indexes = try Self.strings(
                executor, "SELECT indexname::text FROM pg_indexes WHERE schemaname = current_schema() AND indexname LIKE $1",
                "%.%")
            #expect(Set(indexes).isSuperset(of: ["PGBook.author", "PGBook.index(title)"]))
            #expect(indexes.contains { $0.hasSuffix(".target") })
            // A book may name its author before the author's row exists, as
            // long as it exists at COMMIT.
            try executor.transaction {
                try executor.execute(#"INSERT INTO "PGBook" ("title", "edition", "pages", "author") VALUES ('T', 1, 1, 1)"#)
                try executor.execute(#"INSERT INTO "PGAuthor" ("_pk", "email", "name") VALUES (1, 'a', 'A')"#)
            }
            let missingAuthor = #"insert or update on table "PGBook" violates foreign key constraint "PGBook.author.fkey""#
            #expect(throws: PostgresStoreError.foreignKeyViolation(constraint: "PGBook.author.fkey", message: missingAuthor, statement: "COMMIT")) {
                try executor.transaction {
                    try executor.execute(#"INSERT INTO "PGBook" ("title", "edition", "pages", "author") VALUES ('U', 1, 1, 99)"#)
                }
            }
        }
    }

    @Test("A many-to-many is a join table keyed by both sides, whose rows go with either object")
    func joinTable() throws {
        try Self.withTables { executor, database in
            let joinTables = try Self.strings(
                executor,
                "SELECT tablename::text FROM pg_tables WHERE schemaname = $1 AND tablename NOT IN ('PGAuthor', 'PGBook', 'PGShelf')",
                database.name)
            let joinTable = try #require(joinTables.first)
            #expect(joinTables.count == 1)
            try executor.execute(#"INSERT INTO "PGBook" ("_pk", "title", "edition", "pages") VALUES (1, 'T', 1, 1)"#)
            try executor.execute(#"INSERT INTO "PGShelf" ("_pk", "label") VALUES (1, 'S')"#)
            let table = quoteIdentifier(joinTable)
            try executor.execute(#"INSERT INTO \#(table) ("source", "target") VALUES (1, 1)"#)
            #expect(throws: PostgresStoreError.self) {
                try executor.execute(#"INSERT INTO \#(table) ("source", "target") VALUES (1, 1)"#)
            }
            try executor.execute(#"DELETE FROM "PGBook""#)
            #expect(try executor.execute("SELECT count(*) FROM \(table)").rows.first?.decode(Int64.self) == 0)
        }
    }

    @Test("A class hierarchy is one table with the discriminator, as in SQLite")
    func hierarchy() throws {
        let text = Schema.Attribute(name: "name", kind: .string, swiftType: "String", isOptional: false)
        let extra = Schema.Attribute(name: "wheels", kind: .int16, swiftType: "Int16", isOptional: false)
        let schema = Schema(entities: [
            Schema.Entity(name: "Vehicle", attributes: [text]),
            Schema.Entity(name: "Car", attributes: [text, extra], superentityName: "Vehicle"),
        ])
        try PostgresTestDatabase.withSchema { database in
            let executor = try database.executor()
            for statement in try PostgresSchemaSQL.createStatements(schema) { try executor.execute(statement) }
            let columns = try Self.strings(
                executor,
                "SELECT column_name::text FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'Vehicle' ORDER BY ordinal_position",
                database.name)
            #expect(columns == ["_pk", "_entity", "name", "wheels", "_version"])
        }
    }

    @Test("A name longer than PostgreSQL keeps is refused, not cut")
    func longNames() {
        let name = String(repeating: "L", count: 60)
        let schema = Schema(entities: [
            Schema.Entity(
                name: name, attributes: [Schema.Attribute(name: "code", kind: .string, swiftType: "String", isOptional: false)],
                uniqueConstraints: [["code"]])
        ])
        #expect {
            _ = try PostgresSchemaSQL.createStatements(schema)
        } throws: { error in
            guard case .invalidSchema(let reason)? = error as? ModelStoreError else { return false }
            return reason.contains("\(name).unique(code)") && reason.contains("63")
        }
    }

    @Test("An upsert on a unique attribute updates the row that holds the value and returns its key")
    func upsert() throws {
        try Self.withTables { executor, _ in
            let sql = try PostgresDialect().upsert(
                into: "PGAuthor", columns: ["email", "name"], conflictColumns: ["email"], update: ["name"],
                returning: [primaryKeyColumn])
            func run(_ name: String) throws -> Int64 {
                var binds = PostgresBindings()
                binds.append("a@x")
                binds.append(name)
                return try #require(try executor.execute(sql, binds).rows.first).decode(Int64.self)
            }
            let first = try run("First")
            let second = try run("Second")
            #expect(first == second)
            let names = try executor.execute(#"SELECT "name" FROM "PGAuthor""#).rows.map { try $0.decode(String.self) }
            #expect(names == ["Second"])
        }
    }
}
