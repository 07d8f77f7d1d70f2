import Foundation
import ModelStore
import ModelStorePostgres
import PostgresNIO
import Synchronization
import Testing

@Suite("PostgreSQL connection pool", .enabled(if: PostgresTestDatabase.isEnabled, PostgresTestDatabase.disabledReason))
struct PostgresConnectionPoolTests {
    /// What another thread's checkout got: whether it was the executor
    /// expected, or its error.
    final class Outcome: Sendable {
        let value = Mutex<Result<Bool, PostgresStoreError>?>(nil)
    }

    /// Runs `body` with a pool on a fresh schema that holds a table "T",
    /// and an executor of its own on the schema, outside the pool.
    static func withPool(
        maximumConnections: Int = 2,
        checkoutTimeout: Duration = PostgresSessions.patience,
        pingAfterIdle: Duration = .seconds(1),
        _ body: (PostgresConnectionPool, PostgresExecutor) throws -> Void
    ) throws {
        try PostgresTestDatabase.withSchema { database in
            let outside = try database.executor()
            try outside.execute(#"CREATE TABLE "T" ("id" bigint)"#)
            let pool = PostgresConnectionPool(
                location: database.location, schema: database.name, maximumConnections: maximumConnections,
                checkoutTimeout: checkoutTimeout, pingAfterIdle: pingAfterIdle)
            defer { pool.close() }
            try body(pool, outside)
        }
    }

    @Test("An executor given back is handed out again, on the same session")
    func reuse() throws {
        try Self.withPool { pool, _ in
            let first = try pool.checkout()
            let pid = try first.backendPID()
            pool.checkin(first)
            let second = try pool.checkout()
            #expect(second === first)
            #expect(try second.backendPID() == pid)
            #expect(pool.statistics == .init(idle: 0, leased: 1, waiting: 0, replaced: 0))
            pool.checkin(second)
            #expect(pool.statistics == .init(idle: 1, leased: 0, waiting: 0, replaced: 0))
        }
    }

    @Test("Unqualified names resolve to the pool's schema")
    func schema() throws {
        try Self.withPool { pool, _ in
            let count = try pool.withExecutor { executor in
                try executor.execute(#"SELECT count(*) FROM "T""#).rows.first?.decode(Int64.self)
            }
            #expect(count == 0)
        }
    }

    @Test("Beyond the maximum, a checkout waits, and fails after the timeout naming the server and the limit")
    func limitAndTimeout() throws {
        try Self.withPool(maximumConnections: 2, checkoutTimeout: .milliseconds(100)) { pool, _ in
            let first = try pool.checkout()
            let second = try pool.checkout()
            #expect(first !== second)
            let error = #expect(throws: PostgresStoreError.self) { try pool.checkout() }
            #expect(
                error
                    == .connectionFailed(
                        location: pool.location.description,
                        reason: "all 2 connections of the pool are in use, and none was given back within 0.1 seconds"))
            #expect(pool.statistics == .init(idle: 0, leased: 2, waiting: 0, replaced: 0))
            pool.checkin(second)
            #expect(try pool.checkout() === second)
            pool.checkin(first)
            pool.checkin(second)
        }
    }

    @Test("A waiting checkout gets the executor given back")
    func waitingCheckoutGetsTheExecutorGivenBack() throws {
        try Self.withPool(maximumConnections: 1) { pool, _ in
            let executor = try pool.checkout()
            let expected = ObjectIdentifier(executor)
            let outcome = Outcome()
            let done = DispatchSemaphore(value: 0)
            Thread {
                outcome.value.withLock { outcome in
                    outcome = Result { () throws(PostgresStoreError) in
                        let got = try pool.checkout()
                        defer { pool.checkin(got) }
                        return ObjectIdentifier(got) == expected
                    }
                }
                done.signal()
            }.start()
            #expect(PostgresSessions.poll { pool.statistics.waiting == 1 })
            pool.checkin(executor)
            done.wait()
            #expect(try outcome.value.withLock { try $0?.get() } == true)
            #expect(pool.statistics == .init(idle: 1, leased: 0, waiting: 0, replaced: 0))
        }
    }

    @Test("An executor given back inside a transaction is rolled back before it is handed out again")
    func rollbackOnGiveBack() throws {
        try Self.withPool(maximumConnections: 1) { pool, outside in
            let executor = try pool.checkout()
            try executor.begin(isolation: .readCommitted)
            try executor.execute(#"INSERT INTO "T" VALUES (1)"#)
            pool.checkin(executor)
            let again = try pool.checkout()
            #expect(again === executor)
            #expect(!again.isInTransaction)
            #expect(try outside.execute(#"SELECT count(*) FROM "T""#).rows.first?.decode(Int64.self) == 0)
            try again.transaction { try again.execute(#"INSERT INTO "T" VALUES (2)"#) }
            #expect(try outside.execute(#"SELECT "id" FROM "T""#).rows.map { try $0.decode(Int64.self) } == [2])
            pool.checkin(again)
        }
    }

    @Test("On an event loop, a checkout throws, and an executor given back inside a transaction is dropped")
    func eventLoopThread() throws {
        try Self.withPool(maximumConnections: 1) { pool, _ in
            let loop = MultiThreadedEventLoopGroup.singleton.any()
            let error = try loop.submit { () -> PostgresStoreError? in
                do throws(PostgresStoreError) {
                    _ = try pool.checkout()
                    return nil
                } catch {
                    return error
                }
            }.wait()
            #expect(error == .calledOnEventLoop(statement: "a pool checkout"))

            let box = ExecutorBox(executor: try pool.checkout())
            try box.executor.begin(isolation: .readCommitted)
            try loop.submit { pool.checkin(box.executor) }.wait()
            #expect(pool.statistics == .init(idle: 0, leased: 0, waiting: 0, replaced: 0))
            let replacement = try pool.checkout()
            #expect(replacement !== box.executor)
            #expect(!replacement.isInTransaction)
            pool.checkin(replacement)
        }
    }

    @Test("An idle executor whose session the server ended is replaced at checkout")
    func lostConnectionIsReplaced() throws {
        try Self.withPool(maximumConnections: 1, pingAfterIdle: .zero) { pool, killer in
            let executor = try pool.checkout()
            let pid = try executor.backendPID()
            pool.checkin(executor)
            try PostgresSessions.terminate(pid, from: killer)
            #expect(try PostgresSessions.poll { try !PostgresSessions.exists(pid, from: killer) })
            let again = try pool.checkout()
            // The first statement works: the pool found the lost
            // connection and connected again.
            #expect(try again.backendPID() != pid)
            #expect(pool.statistics == .init(idle: 0, leased: 1, waiting: 0, replaced: 1))
            pool.checkin(again)
        }
    }

    @Test("A connection that cannot be made is an error, and frees its room in the pool")
    func failedConnectionFreesItsRoom() throws {
        // Port 1 on loopback: nothing listens, the connection is refused.
        let pool = PostgresConnectionPool(
            location: try PostgresLocation(url: "postgres://postgres@127.0.0.1:1/postgres"), maximumConnections: 1,
            checkoutTimeout: .milliseconds(100))
        for _ in 0..<2 {
            let error = #expect(throws: PostgresStoreError.self) { try pool.checkout() }
            guard case .connectionFailed(let location, let reason)? = error else {
                Issue.record("expected a connection failure, got \(String(describing: error))")
                return
            }
            #expect(location == "postgres://postgres@127.0.0.1:1/postgres")
            #expect(!reason.contains("in use"))
        }
        #expect(pool.statistics == .init(idle: 0, leased: 0, waiting: 0, replaced: 0))
    }

    @Test("close() ends the idle sessions at once and a borrowed one when it is given back; checkouts then throw")
    func close() throws {
        try Self.withPool(maximumConnections: 2) { pool, observer in
            let idle = try pool.checkout()
            let borrowed = try pool.checkout()
            let idlePID = try idle.backendPID()
            let borrowedPID = try borrowed.backendPID()
            pool.checkin(idle)
            pool.close()
            #expect(try PostgresSessions.poll { try !PostgresSessions.exists(idlePID, from: observer) })
            #expect(try PostgresSessions.exists(borrowedPID, from: observer))
            let error = #expect(throws: PostgresStoreError.self) { try pool.checkout() }
            #expect(error == .connectionFailed(location: pool.location.description, reason: "the connection pool is closed"))
            pool.checkin(borrowed)
            #expect(try PostgresSessions.poll { try !PostgresSessions.exists(borrowedPID, from: observer) })
            #expect(pool.statistics == .init(idle: 0, leased: 0, waiting: 0, replaced: 0))
        }
    }
}
