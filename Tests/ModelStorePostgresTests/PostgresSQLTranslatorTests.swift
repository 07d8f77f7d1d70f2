import ModelStore
import Testing

@testable import ModelStorePostgres

/// Each rewrite of the library's SQLite SQL into PostgreSQL's, and the
/// refusals of what PostgreSQL cannot do exactly. Pure text: no server.
@Suite("PostgreSQL SQL translation")
struct PostgresSQLTranslatorTests {
    let translator = PostgresSQLTranslator(
        keyColumns: ["Trip": "_pk", "_modelstore_transactions": "token"], conflictTargets: ["Trip": ["name"]])

    @Test("placeholders become $1…, numbered ones keep their number")
    func placeholders() throws {
        #expect(try translator.translate(#"SELECT 1 FROM "T" WHERE "a" = ? AND "b" = ?"#).sql == #"SELECT 1 FROM "T" WHERE "a" = $1 AND "b" = $2"#)
        #expect(try translator.translate("SELECT ?2, ?1, '?'").sql == "SELECT $2, $1, '?'")
    }

    @Test("a key list bound as JSON becomes json_array_elements_text, each key a bigint")
    func keyLists() throws {
        let sql = try translator.translate(#"DELETE FROM "Trip" WHERE "_pk" IN (SELECT value FROM json_each(?))"#).sql
        #expect(sql == #"DELETE FROM "Trip" WHERE "_pk" IN (SELECT CAST(k."value" AS bigint) FROM json_array_elements_text(CAST($1 AS json)) AS k("value"))"#)
        let numbered = try translator.translate(#"DELETE FROM "X" WHERE "token" IN (SELECT value FROM json_each(?1))"#).sql
        #expect(numbered.hasSuffix(#"json_array_elements_text(CAST($1 AS json)) AS k("value"))"#))
    }

    @Test("an INSERT into a sequence-keyed table returns its key; other tables' do not")
    func returningKeys() throws {
        let trip = try translator.translate(#"INSERT INTO "Trip" ("name") VALUES (?)"#)
        #expect(trip.sql == #"INSERT INTO "Trip" ("name") VALUES ($1) RETURNING "_pk""#)
        #expect(trip.returnedKey == "_pk")
        let join = try translator.translate(#"INSERT INTO "Trip_tags" ("a", "b") VALUES (?, ?)"#)
        #expect(join.returnedKey == nil)
        #expect(!join.sql.contains("RETURNING"))
        #expect(PostgresSQLTranslator.insertTable(#"INSERT INTO "say ""hi""" (x) VALUES (1)"#) == #"say "hi""#)
    }

    @Test("SQLite's targetless upsert names the table's unique columns, and the row's own version")
    func upsert() throws {
        let sql = try translator.translate(
            #"INSERT INTO "Trip" ("name", "_version") VALUES (?, 2) ON CONFLICT DO UPDATE SET "name" = excluded."name", "_version" = max("_version" + 1, 3) RETURNING "_pk", "_version""#
        ).sql
        #expect(sql.contains(#"ON CONFLICT ("name") DO UPDATE SET"#))
        #expect(sql.contains(#""_version" = GREATEST("Trip"."_version" + 1, 3)"#))
        #expect(sql.hasSuffix(#"RETURNING "_pk", "_version""#))
        #expect(throws: SQLiteError.self) {
            try translator.translate(#"INSERT INTO "Other" ("a") VALUES (?) ON CONFLICT DO UPDATE SET "a" = excluded."a""#)
        }
    }

    @Test("an upsert into a table with several unique constraints carries the statement targeting each other one")
    func upsertRetargets() throws {
        let translator = PostgresSQLTranslator(
            keyColumns: ["M": "_pk"], conflictTargets: ["M": ["email"]], otherUniqueConstraints: ["M": ["M.unique(team,number)"]])
        let translation = try translator.translate(
            #"INSERT INTO "M" ("email", "team", "number", "_version") VALUES (?, ?, ?, 2) ON CONFLICT DO UPDATE SET "email" = excluded."email", "_version" = max("_version" + 1, 3) RETURNING "_pk", "_version""#)
        #expect(translation.sql.contains(#"VALUES ($1, $2, $3, 2) ON CONFLICT ("email") DO UPDATE SET"#))
        let other = try #require(translation.upsertRetargets["M.unique(team,number)"])
        #expect(translation.upsertRetargets.count == 1)
        #expect(other == translation.sql.replacingOccurrences(
            of: #"ON CONFLICT ("email")"#, with: #"ON CONFLICT ON CONSTRAINT "M.unique(team,number)""#))
        // One constraint: nothing to retarget.
        #expect(try self.translator.translate(
            #"INSERT INTO "Trip" ("name", "_version") VALUES (?, 2) ON CONFLICT DO UPDATE SET "name" = excluded."name" RETURNING "_pk", "_version""#
        ).upsertRetargets.isEmpty)
    }

    @Test("Swift's string order is COLLATE \"C\"; the decimal collation goes, numeric sorts by value")
    func collations() throws {
        #expect(try translator.translate(#"SELECT 1 FROM "T" ORDER BY "s" COLLATE MODELSTORE_STRING"#).sql.hasSuffix(#"ORDER BY "s" COLLATE "C""#))
        #expect(try translator.translate(#"SELECT 1 FROM "T" ORDER BY "d" COLLATE MODELSTORE_DECIMAL"#).sql.hasSuffix(#"ORDER BY "d""#))
    }

    @Test("what only Swift or SQLite can do is refused, naming it, never sent")
    func refusals() {
        let cases = [
            (#"SELECT 1 FROM "T" WHERE modelstore_contains("s", ?)"#, "modelstore_contains"),
            (#"SELECT 1 FROM "T" ORDER BY "s" COLLATE MODELSTORE_LOCALIZED"#, "MODELSTORE_LOCALIZED"),
            ("PRAGMA foreign_keys = ON", "PRAGMA"),
            ("SELECT name FROM sqlite_master", "SQLite"),
        ]
        for (sql, named) in cases {
            #expect {
                try translator.translate(sql)
            } throws: { error in
                (error as? SQLiteError)?.message.contains(named) == true
            }
        }
        // A table whose name holds the word is not a function call.
        #expect(throws: Never.self) { try translator.translate(#"SELECT 1 FROM "_modelstore_changes""#) }
    }

    @Test("data_version is answered by the database, and the history's table list asks pg_tables")
    func catalogQuestions() throws {
        #expect(try translator.translate("PRAGMA data_version").isDataVersion)
        let tables = try translator.translate("SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name IN (?1, ?2)").sql
        #expect(tables == "SELECT count(*) FROM pg_catalog.pg_tables WHERE schemaname = current_schema() AND tablename IN ($1, $2)")
    }
}
