import Foundation
import ModelStore
import ModelStorePostgres
import ReliabilitySupport
import Testing

/// Two servers of an app on one PostgreSQL database, as two processes: the
/// test's container and a child process (the worker's `postgres-cards`)
/// share nothing but the database, and learn of each other's commits
/// through its change history and `NOTIFY`.
@Suite(
    "Two processes on one PostgreSQL database", .enabled(if: PostgresServer.isEnabled, PostgresServer.disabledReason),
    .timeLimit(.minutes(2)))
struct PostgresProcessesTests {
    @Test("a child process finds this one's rows; its save reaches this process's objects, and a save over it is a conflict")
    func childProcessSaves() throws {
        try PostgresServer.withSchema { url, schema in
            let container = try ModelContainer(
                for: Schema([Shared.Card.self]), configurations: [PostgresConfiguration(url: url, databaseSchema: schema)])
            let context = ModelContext(container)
            context.insert(Shared.Card(key: "a", text: "A"))
            context.insert(Shared.Card(key: "b", text: "B"))
            try context.save()
            let card = try #require(try context.fetch(FetchDescriptor<Shared.Card>(predicate: #Predicate { $0.key == "a" })).first)

            // The child finds the card this process saved (it fails without
            // it) and changes it; this process's object takes the value once
            // its listener has heard of the commit, without a fetch.
            try child(url, schema, edits: "set a text=from the child")
            let deadline = ContinuousClock.now + .seconds(10)
            while card.text != "from the child" && ContinuousClock.now < deadline {
                context.processPendingChanges()
                Thread.sleep(forTimeInterval: 0.005)
            }
            #expect(card.text == "from the child")

            // A conflict: the child changes and saves the card this process
            // has changed and not saved yet.
            card.count = 1
            try child(url, schema, edits: "set a count=2")
            #expect(throws: ModelStoreError.self) { try context.save() }
            context.rollback()
            #expect(card.count == 2, "a rollback reads the row the child wrote")
            let stored = try ModelContext(container).fetch(FetchDescriptor<Shared.Card>(sortBy: [SortDescriptor(\.key)]))
            #expect(stored.map(\.text) == ["from the child", "B"])
            #expect(stored.map(\.count) == [2, 0])
        }
    }

    /// Runs the worker's `postgres-cards` with `edits` on the schema, to its end.
    private func child(_ url: String, _ schema: String, edits: String) throws {
        let lines = try WorkerProcess.run(["postgres-cards", "--url", url, "--schema", schema, "--edits", edits])
        #expect(lines.last == "saved", "\(lines)")
    }
}

/// The PostgreSQL server of the tests: `MODELSTORE_POSTGRES_URL`, which
/// `.ci/run` exports after starting a throwaway cluster. Without it the
/// suite is disabled, except in CI (`CI` set), where it runs and fails:
/// CI skips nothing.
enum PostgresServer {
    static let url = ProcessInfo.processInfo.environment["MODELSTORE_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }
    static var isEnabled: Bool { url != nil || ProcessInfo.processInfo.environment["CI"] != nil }
    static let disabledReason: Comment =
        "MODELSTORE_POSTGRES_URL is not set: source .ci/postgres-cluster.sh and run start_postgres_cluster"

    /// Runs `body` with the server's URL and a fresh schema, dropped with
    /// everything in it afterwards.
    /// - Throws: in CI when the variable is not set; what the server throws.
    static func withSchema(_ body: (_ url: String, _ schema: String) throws -> Void) throws {
        let url = try #require(url, "CI is set but MODELSTORE_POSTGRES_URL is not: PostgreSQL was not started")
        let admin = try PostgresExecutor(location: try PostgresLocation(url: url))
        let schema = "processes_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(16)
        try admin.execute("CREATE SCHEMA \"\(schema)\"")
        defer { _ = try? admin.execute("DROP SCHEMA \"\(schema)\" CASCADE") }
        try body(url, schema)
    }
}
