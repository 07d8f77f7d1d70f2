import Foundation
import ModelStore
import ModelStorePostgres
import PostgresNIO
import Testing

@Suite("PostgreSQL executor", .enabled(if: PostgresTestDatabase.isEnabled, PostgresTestDatabase.disabledReason))
struct PostgresExecutorTests {
    struct Failure: Error {}

    /// Runs `body` with an executor on a fresh schema that holds a table
    /// "T" with these columns.
    static func withTable(_ columns: String, _ body: (PostgresExecutor) throws -> Void) throws {
        try PostgresTestDatabase.withSchema { database in
            let executor = try database.executor()
            try executor.execute(#"CREATE TABLE "T" ("# + columns + ")")
            try body(executor)
        }
    }

    @Test("Bound values go in as $1, $2 and come back in rows, with the affected row count")
    func boundValuesAndRows() throws {
        try Self.withTable(#""id" bigint, "name" text"#) { executor in
            var binds = PostgresBindings()
            binds.append(Int64(7))
            binds.append("it's \"quoted\"; DROP TABLE T")
            let insert = try executor.execute(#"INSERT INTO "T" VALUES ($1, $2), ($1 + 1, $2)"#, binds)
            #expect(insert.affectedRows == 2)
            let rows = try executor.execute(#"SELECT "id", "name" FROM "T" ORDER BY "id""#).rows
            let values = try rows.map { try $0.decode((Int64, String).self) }
            #expect(values.map(\.0) == [7, 8])
            #expect(values.allSatisfy { $0.1 == "it's \"quoted\"; DROP TABLE T" })
        }
    }

    @Test("A transaction commits when its body returns and rolls back when it throws, at the isolation level asked")
    func transactions() throws {
        try Self.withTable(#""id" bigint"#) { executor in
            for level in PostgresExecutor.IsolationLevel.allCases {
                let shown = try executor.transaction(isolation: level) {
                    try executor.execute("SHOW transaction_isolation").rows.first?.decode(String.self)
                }
                #expect(shown?.uppercased() == level.rawValue)
            }
            try executor.transaction { try executor.execute(#"INSERT INTO "T" VALUES (1)"#) }
            #expect(throws: Failure.self) {
                try executor.transaction {
                    try executor.execute(#"INSERT INTO "T" VALUES (2)"#)
                    throw Failure()
                }
            }
            let ids = try executor.execute(#"SELECT "id" FROM "T""#).rows.map { try $0.decode(Int64.self) }
            #expect(ids == [1])
        }
    }

    @Test("A savepoint that throws undoes only its own work; the transaction goes on")
    func savepoints() throws {
        try Self.withTable(#""id" bigint PRIMARY KEY"#) { executor in
            try executor.transaction {
                try executor.execute(#"INSERT INTO "T" VALUES (1)"#)
                // A failed statement aborts a PostgreSQL transaction; the
                // savepoint's rollback makes it usable again.
                #expect(throws: PostgresStoreError.self) {
                    try executor.savepoint {
                        try executor.execute(#"INSERT INTO "T" VALUES (2)"#)
                        try executor.execute(#"INSERT INTO "T" VALUES (1)"#)
                    }
                }
                try executor.savepoint { try executor.execute(#"INSERT INTO "T" VALUES (3)"#) }
            }
            let ids = try executor.execute(#"SELECT "id" FROM "T" ORDER BY 1"#).rows.map { try $0.decode(Int64.self) }
            #expect(ids == [1, 3])
        }
    }

    @Test("A transaction inside a transaction, and a savepoint outside one, are errors, not crashes; the outer transaction goes on")
    func misuseIsAnError() throws {
        try Self.withTable(#""id" bigint"#) { executor in
            #expect(throws: PostgresStoreError.server(sqlState: "25P01", message: "a savepoint needs a transaction", statement: "SAVEPOINT")) {
                try executor.savepoint { try executor.execute(#"INSERT INTO "T" VALUES (1)"#) }
            }
            try executor.transaction {
                try executor.execute(#"INSERT INTO "T" VALUES (2)"#)
                #expect(throws: PostgresStoreError.self) { try executor.transaction {} }
                #expect(executor.isInTransaction)
            }
            let ids = try executor.execute(#"SELECT "id" FROM "T""#).rows.map { try $0.decode(Int64.self) }
            #expect(ids == [2])
        }
    }

    @Test("A unique violation names its constraint and the statement")
    func uniqueViolation() throws {
        try Self.withTable(#""code" text, CONSTRAINT "T.unique(code)" UNIQUE ("code")"#) { executor in
            let insert = #"INSERT INTO "T" VALUES ('a')"#
            try executor.execute(insert)
            let error = #expect(throws: PostgresStoreError.self) { try executor.execute(insert) }
            #expect(
                error == .uniqueViolation(
                    constraint: "T.unique(code)", message: #"duplicate key value violates unique constraint "T.unique(code)""#,
                    statement: insert))
        }
    }

    @Test("A deferred foreign key fails the COMMIT and names the constraint")
    func foreignKeyViolation() throws {
        try PostgresTestDatabase.withSchema { database in
            let executor = try database.executor()
            try executor.execute(#"CREATE TABLE "P" ("id" bigint PRIMARY KEY)"#)
            try executor.execute(
                #"CREATE TABLE "C" ("p" bigint CONSTRAINT "C.p.fkey" REFERENCES "P" DEFERRABLE INITIALLY DEFERRED)"#)
            let error = #expect(throws: PostgresStoreError.self) {
                try executor.transaction { try executor.execute(#"INSERT INTO "C" VALUES (99)"#) }
            }
            #expect(
                error == .foreignKeyViolation(
                    constraint: "C.p.fkey", message: #"insert or update on table "C" violates foreign key constraint "C.p.fkey""#,
                    statement: "COMMIT"))
            #expect(try executor.execute(#"SELECT count(*) FROM "C""#).rows.first?.decode(Int64.self) == 0)
        }
    }

    @Test("Two serializable transactions that depend on each other's rows: one fails as a serialization failure")
    func serializationFailure() throws {
        try PostgresTestDatabase.withTwoExecutors { first, second, _ in
            try first.execute(#"CREATE TABLE "T" ("id" bigint)"#)
            try first.execute("BEGIN ISOLATION LEVEL SERIALIZABLE")
            try second.execute("BEGIN ISOLATION LEVEL SERIALIZABLE")
            try first.execute(#"SELECT count(*) FROM "T""#)
            try second.execute(#"SELECT count(*) FROM "T""#)
            try first.execute(#"INSERT INTO "T" VALUES (1)"#)
            try second.execute(#"INSERT INTO "T" VALUES (2)"#)
            try first.execute("COMMIT")
            let error = #expect(throws: PostgresStoreError.self) { try second.execute("COMMIT") }
            guard case .serializationFailure(isDeadlock: false, let statement)? = error else {
                Issue.record("expected a serialization failure, got \(String(describing: error))")
                return
            }
            #expect(statement == "COMMIT")
        }
    }

    @Test("A lock not granted within lock_timeout is reported as busy")
    func lockTimeout() throws {
        try PostgresTestDatabase.withTwoExecutors { holder, waiter, _ in
            try holder.execute(#"CREATE TABLE "T" ("id" bigint)"#)
            try holder.execute("BEGIN")
            try holder.execute(#"LOCK TABLE "T" IN ACCESS EXCLUSIVE MODE"#)
            try waiter.execute("SET lock_timeout = '50ms'")
            let select = #"SELECT * FROM "T""#
            let error = #expect(throws: PostgresStoreError.self) { try waiter.execute(select) }
            #expect(error == .busy(sqlState: "55P03", statement: select))
            try holder.execute("ROLLBACK")
        }
    }

    @Test("Any other server error keeps its SQLSTATE, message and statement")
    func otherErrors() throws {
        try PostgresTestDatabase.withSchema { database in
            let executor = try database.executor()
            let error = #expect(throws: PostgresStoreError.self) { try executor.execute(#"SELECT * FROM "Missing""#) }
            guard case .server(let state, let message, let statement)? = error else {
                Issue.record("expected a server error, got \(String(describing: error))")
                return
            }
            #expect(state == "42P01")
            #expect(message.contains("Missing"))
            #expect(statement == #"SELECT * FROM "Missing""#)
            // The connection is still usable.
            #expect(try executor.execute("SELECT 1").rows.count == 1)
        }
    }

    @Test("After the server ends the session, the executor connects again at its next use")
    func reconnectAfterLostConnection() throws {
        try PostgresTestDatabase.withTwoExecutors { executor, killer, database in
            let pid = try executor.execute("SELECT pg_backend_pid()").rows.first?.decode(Int32.self)
            var binds = PostgresBindings()
            binds.append(pid)
            #expect(try killer.execute("SELECT pg_terminate_backend($1)", binds).rows.first?.decode(Bool.self) == true)
            // Whether the first use after the kill notices it before or
            // while sending depends on when the client reads the server's
            // goodbye; it either reconnects or reports the lost connection.
            do {
                try executor.execute("SELECT 1")
            } catch let error as PostgresStoreError {
                guard case .connectionLost = error else {
                    Issue.record("expected a lost connection, got \(error)")
                    return
                }
            }
            let newPID = try executor.execute("SELECT pg_backend_pid()").rows.first?.decode(Int32.self)
            #expect(newPID != pid)
            #expect(executor.connectionsOpened == 2)
            // The new session has the executor's schema as its search path.
            try executor.execute(#"CREATE TABLE "AfterReconnect" ("id" bigint)"#)
            var schemaBinds = PostgresBindings()
            schemaBinds.append(database.name)
            let found = try killer.execute(
                "SELECT count(*) FROM pg_tables WHERE schemaname = $1 AND tablename = 'AfterReconnect'", schemaBinds)
            #expect(try found.rows.first?.decode(Int64.self) == 1)
        }
    }

    @Test("A transaction whose connection is lost fails; nothing more runs in it, and the next use reconnects")
    func lostConnectionInTransaction() throws {
        try PostgresTestDatabase.withTwoExecutors { executor, killer, _ in
            try executor.execute(#"CREATE TABLE "T" ("id" bigint)"#)
            let pid = try executor.execute("SELECT pg_backend_pid()").rows.first?.decode(Int32.self)
            #expect(throws: PostgresStoreError.self) {
                try executor.transaction {
                    try executor.execute(#"INSERT INTO "T" VALUES (1)"#)
                    var binds = PostgresBindings()
                    binds.append(pid)
                    try killer.execute("SELECT pg_terminate_backend($1)", binds)
                    // Wait until the server has ended the session, so that
                    // the next statement surely meets a closed connection.
                    while try killer.execute("SELECT 1 FROM pg_stat_activity WHERE pid = $1", binds).rows.count > 0 {}
                    try executor.execute(#"INSERT INTO "T" VALUES (2)"#)
                }
            }
            #expect(try executor.execute(#"SELECT count(*) FROM "T""#).rows.first?.decode(Int64.self) == 0)
        }
    }

    @Test("Called on an event loop thread, the executor throws instead of waiting for itself")
    func eventLoopThreadIsRefused() throws {
        try PostgresTestDatabase.withSchema { database in
            let box = ExecutorBox(executor: try database.executor())
            let loop = MultiThreadedEventLoopGroup.singleton.any()
            let error = try loop.submit { () -> PostgresStoreError? in
                do throws(PostgresStoreError) {
                    try box.executor.execute("SELECT 1")
                    return nil
                } catch {
                    return error
                }
            }.wait()
            #expect(error == .calledOnEventLoop(statement: "SELECT 1"))
        }
    }
}

