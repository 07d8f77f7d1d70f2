import Foundation
import ModelStore
import ModelStorePostgres
import Testing

/// The library's `Connection` and `Statement` running on PostgreSQL through
/// the backend seam (`PostgresForeignDatabase`): SQL with SQLite's
/// placeholders, values by storage class both ways, transactions and
/// errors with SQLite's codes.
@Suite("PostgreSQL through the backend seam", .enabled(if: PostgresTestDatabase.isEnabled, PostgresTestDatabase.disabledReason))
struct PostgresSeamTests {
    private func withConnection(_ body: (Connection, PostgresExecutor) throws -> Void) throws {
        try PostgresTestDatabase.withSchema { schema in
            let executor = try schema.executor()
            let connection = try Connection(foreign: PostgresForeignDatabase(executor: executor))
            try body(connection, executor)
        }
    }

    @Test("values bound through a Statement reach PostgreSQL and read back unchanged")
    func valuesBothWays() throws {
        try withConnection { connection, _ in
            try connection.execute(#"CREATE TABLE "t" ("i" bigint, "r" double precision, "s" text, "b" bytea, "n" bigint)"#)
            let insert = try connection.prepare(#"INSERT INTO "t" VALUES (?, ?, ?, ?, ?)"#)
            try insert.bind(Int64.min, at: 1)
            try insert.bind(-1.5, at: 2)
            try insert.bind("", at: 3)
            try insert.bind(Data([0, 1, 255]), at: 4)
            try insert.bind(SQLiteValue.null, at: 5)
            try insert.run()
            try insert.bind(Int64.max, at: 1)
            try insert.bind(Double.infinity, at: 2)
            try insert.bind("héllo 東京 🎉", at: 3)
            try insert.bind(Data(), at: 4)
            try insert.bind(Int64(7), at: 5)
            try insert.run()
            #expect(connection.changes == 1)

            let select = try connection.prepare(#"SELECT "i", "r", "s", "b", "n" FROM "t" ORDER BY "i""#)
            var rows: [[SQLiteValue]] = []
            while try select.step() { rows.append((0..<5).map { select.value(at: $0) }) }
            #expect(select.columnName(2) == "s")
            #expect(
                rows == [
                    [.integer(.min), .real(-1.5), .text(""), .blob(Data([0, 1, 255])), .null],
                    [.integer(.max), .real(.infinity), .text("héllo 東京 🎉"), .blob(Data()), .integer(7)],
                ])
        }
    }

    @Test("numbered placeholders keep their numbers, and a placeholder inside a literal is text")
    func placeholders() throws {
        try withConnection { connection, _ in
            let select = try connection.prepare("SELECT ?2::bigint - ?1::bigint, '?' || ?3::text")
            try select.bind(Int64(2), at: 1)
            try select.bind(Int64(10), at: 2)
            try select.bind("!", at: 3)
            #expect(try select.step())
            #expect(select.value(at: 0) == .integer(8) && select.value(at: 1) == .text("?!"))
        }
    }

    @Test("the library's transactions commit and roll back on the server")
    func transactions() throws {
        try withConnection { connection, executor in
            try connection.execute(#"CREATE TABLE "t" ("x" bigint)"#)
            try connection.transaction { try connection.execute(#"INSERT INTO "t" VALUES (1)"#) }
            struct Failure: Error {}
            #expect(throws: Failure.self) {
                try connection.transaction {
                    try connection.execute(#"INSERT INTO "t" VALUES (2)"#)
                    #expect(executor.isInTransaction)
                    throw Failure()
                }
            }
            #expect(!executor.isInTransaction)
            let count = try connection.prepare(#"SELECT count(*) FROM "t""#)
            #expect(try count.step() && count.value(at: 0) == .integer(1))
        }
    }

    @Test("a unique violation is SQLite's SQLITE_CONSTRAINT_UNIQUE naming the constraint, and the statement runs again")
    func uniqueViolation() throws {
        try withConnection { connection, _ in
            try connection.execute(#"CREATE TABLE "t" ("x" bigint CONSTRAINT "t_x_unique" UNIQUE)"#)
            let insert = try connection.prepare(#"INSERT INTO "t" VALUES (?)"#)
            try insert.bind(Int64(1), at: 1)
            try insert.run()
            #expect {
                try insert.bind(Int64(1), at: 1)
                try insert.run()
            } throws: { error in
                guard let error = error as? SQLiteError else { return false }
                return error.extendedCode == 2067 && error.message.contains("t_x_unique")
                    && error.sql == #"INSERT INTO "t" VALUES (?)"#
            }
            insert.reset()
            try insert.bind(Int64(2), at: 1)
            try insert.run()
        }
    }

    @Test("NOT NULL, CHECK and the other integrity violations are SQLite's constraint codes, and still say PostgreSQL refused them")
    func notNullAndCheckViolations() throws {
        try withConnection { connection, executor in
            try connection.execute(#"CREATE TABLE "t" ("x" bigint NOT NULL CONSTRAINT "t_x_positive" CHECK ("x" > 0))"#)
            func expectRefused(
                _ sql: String, binding value: SQLiteValue?, extendedCode: Int32, sqlState: String,
                sourceLocation: SourceLocation = #_sourceLocation
            ) {
                #expect(sourceLocation: sourceLocation) {
                    let insert = try connection.prepare(sql)
                    if let value { try insert.bind(value, at: 1) }
                    try insert.run()
                } throws: { error in
                    guard let error = error as? SQLiteError else { return false }
                    return error.extendedCode == extendedCode && error.primaryCode == SQLiteError.constraint
                        && error.origin?.code == sqlState && "\(error)".contains("PostgreSQL error \(sqlState)")
                }
            }
            expectRefused(#"INSERT INTO "t" VALUES (?)"#, binding: .null, extendedCode: 1299, sqlState: "23502")
            expectRefused(#"INSERT INTO "t" VALUES (?)"#, binding: .integer(-1), extendedCode: 275, sqlState: "23514")
            // An exclusion constraint (23P01) has no SQLite counterpart: the
            // general constraint code.
            try executor.execute(#"CREATE TABLE "e" ("c" circle, EXCLUDE USING gist ("c" WITH &&))"#)
            try executor.execute(#"INSERT INTO "e" VALUES ('<(0,0),1>')"#)
            expectRefused(
                #"INSERT INTO "e" VALUES ('<(0,0),2>')"#, binding: nil, extendedCode: SQLiteError.constraint, sqlState: "23P01")
        }
    }
}
