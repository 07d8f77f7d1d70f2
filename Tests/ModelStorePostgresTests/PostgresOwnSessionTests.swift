import Foundation
import ModelStore
import ModelStorePostgres
import PostgresNIO
import Testing

/// Which commits a store's listener counts as another server's: never the
/// container's own, on whichever session of its pool they were made.
@Suite("PostgreSQL store: own sessions", .enabled(if: PostgresTestDatabase.isEnabled, PostgresTestDatabase.disabledReason))
struct PostgresOwnSessionTests {
    @Test("a pooled session that replaces a lost one is the container's own: its commits are not counted as another server's")
    func replacedSessionIsOwn() throws {
        try PostgresTestDatabase.withSchema { database in
            let configuration = try PostgresConfiguration(
                url: try #require(PostgresTestDatabase.url), databaseSchema: database.name, maximumConnections: 2
            ).modelConfiguration()
            let opener = try #require(configuration.foreignDatabase)
            let connection = try Connection(foreign: try opener.open())
            let bootstrap = try #require(opener.bootstrap)
            _ = try bootstrap(connection, Schema([PGAuthor.self, PGBook.self, PGShelf.self]), configuration)
            let listener = try #require((connection.foreign as? PostgresForeignDatabase)?.listener)

            try Self.commitWrite(on: connection)
            let pid = try Self.sessionPID(of: connection)
            let admin = try database.executor()
            try PostgresSessions.terminate(pid, from: admin)
            #expect(try PostgresSessions.poll { try !PostgresSessions.exists(pid, from: admin) })
            // The first use after the loss may meet the closed connection
            // before the client noticed; the next one connects again.
            do {
                try Self.commitWrite(on: connection)
            } catch let error as SQLiteError where error.description.contains("connection to PostgreSQL was lost") {
                try Self.commitWrite(on: connection)
            }
            #expect(try Self.sessionPID(of: connection) != pid)

            // Another server's commit, after ours: once it is heard, ours
            // (delivered first) was heard too, and must not have counted.
            try admin.notify(channel: listener.channel, payload: "another server")
            #expect(listener.waitForChangeCount(atLeast: 1, timeout: PostgresSessions.patience))
            #expect(listener.changeCount == 1)
            #expect(listener.takeReceived().notifications.map(\.payload) == ["another server"])
        }
    }

    /// A writing transaction as a save runs it, which notifies the store's
    /// channel at COMMIT.
    static func commitWrite(on connection: Connection) throws {
        try connection.execute("BEGIN IMMEDIATE TRANSACTION")
        do {
            // Prepared, as a save runs its statements: the transaction then
            // counts as one that wrote.
            try connection.prepare(#"DELETE FROM "PGShelf""#).run()
            try connection.execute("COMMIT TRANSACTION")
        } catch {
            try? connection.execute("ROLLBACK TRANSACTION")
            throw error
        }
    }

    /// The process ID of the pooled session the connection borrows (the
    /// pool's only idle one).
    static func sessionPID(of connection: Connection) throws -> Int32 {
        let statement = try connection.prepare("SELECT pg_backend_pid()")
        guard try statement.step(), case .integer(let value) = statement.value(at: 0), let pid = Int32(exactly: value) else {
            throw PostgresStoreError.server(sqlState: "", message: "no backend PID", statement: "SELECT pg_backend_pid()")
        }
        return pid
    }
}
