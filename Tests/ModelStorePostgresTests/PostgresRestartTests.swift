import Foundation
import ModelStore
import ModelStorePostgres
import PostgresNIO
import Testing

/// Two app servers' containers on one database while the database server
/// restarts (`pg_ctl restart -m fast`, every session ended): on a cluster of
/// the test's own, so that the other suites' shared server stays up.
@Suite("PostgreSQL server restart", .enabled(if: PostgresTestCluster.isEnabled, PostgresTestCluster.disabledReason))
struct PostgresRestartTests {
    @Test(
        "after a restart, a save succeeds on new connections, a transaction open across it fails naming the lost connection with nothing written, and the other container catches up on the save it missed and hears the next"
    )
    func restart() throws {
        let types: [any PersistentModel.Type] = [PGAuthor.self, PGBook.self, PGShelf.self]
        try PostgresTestCluster.withCluster { cluster in
            let location = try PostgresLocation(url: cluster.url)
            // Server B logs in as a role of its own, which the test can keep
            // out after the restart: B's listener then surely misses A's save.
            try PostgresExecutor(location: location).execute("CREATE ROLE server_b LOGIN SUPERUSER")
            let urlOfB = cluster.url.replacingOccurrences(of: "postgres@", with: "server_b@")
            let serverA = try ModelContainer(for: Schema(types), configurations: [PostgresConfiguration(url: cluster.url)])
            let serverB = try ModelContainer(for: Schema(types), configurations: [PostgresConfiguration(url: urlOfB)])
            let a = ModelContext(serverA)
            let author = PGAuthor(email: "ada@example.com", name: "Ada")
            a.insert(author)
            try a.save()
            let b = ModelContext(serverB)
            let seenByB = try #require(try b.fetch(FetchDescriptor<PGAuthor>()).first)

            let inFlight = try PostgresExecutor(location: location)
            try inFlight.execute(#"CREATE TABLE "Pending" ("id" bigint)"#)
            try inFlight.begin(isolation: .readCommitted)
            try inFlight.execute(#"INSERT INTO "Pending" VALUES (1)"#)
            try PostgresExecutor(location: location).execute("ALTER ROLE server_b NOLOGIN")

            try cluster.restart()

            let lost = #expect(throws: PostgresStoreError.self) { try inFlight.execute(#"INSERT INTO "Pending" VALUES (2)"#) }
            #expect(lost.map { "\($0)" }?.contains("the connection to PostgreSQL was lost") == true)
            #expect(throws: PostgresStoreError.self) { try inFlight.commit() }
            let admin = try PostgresExecutor(location: location)
            #expect(try admin.execute(#"SELECT count(*) FROM "Pending""#).rows.first?.decode(Int64.self) == 0)

            // A's pooled connections died in the restart; its save must not.
            author.name = "Ada Lovelace"
            try a.save()
            let sessionsOfB = try admin.execute("SELECT count(*) FROM pg_stat_activity WHERE usename = 'server_b'")
            #expect(try sessionsOfB.rows.first?.decode(Int64.self) == 0)
            try admin.execute("ALTER ROLE server_b LOGIN")

            // B's listener connects again and counts a change; B's context
            // then reads the change history it missed.
            #expect(try Self.eventually(b, sees: "Ada Lovelace", in: seenByB))
            // And hears the saves that follow.
            author.name = "Countess of Lovelace"
            try a.save()
            #expect(try Self.eventually(b, sees: "Countess of Lovelace", in: seenByB))
        }
    }

    /// Whether `context`'s registered `author` takes `name` before the
    /// tests' patience runs out: each check merges what the container heard
    /// of, then asks the server for a count (a round trip, so that the
    /// loop waits on the network instead of spinning).
    static func eventually(_ context: ModelContext, sees name: String, in author: PGAuthor) throws -> Bool {
        try PostgresSessions.poll {
            context.processPendingChanges()
            if author.name == name { return true }
            _ = try context.fetchCount(FetchDescriptor<PGAuthor>())
            return false
        }
    }
}
