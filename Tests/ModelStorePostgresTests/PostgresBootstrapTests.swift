import Foundation
import ModelStore
import ModelStorePostgres
import PostgresNIO
import Testing

@Suite("PostgreSQL bootstrap", .enabled(if: PostgresTestDatabase.isEnabled, PostgresTestDatabase.disabledReason))
struct PostgresBootstrapTests {
    static let schema = Schema([PGAuthor.self, PGBook.self, PGShelf.self])

    static func metadata(_ executor: PostgresExecutor) throws -> [String: String] {
        let rows = try executor.execute(#"SELECT "key", "value" FROM "_modelstore_metadata""#).rows
        return Dictionary(uniqueKeysWithValues: try rows.map { try $0.decode((String, String).self) })
    }

    @Test("A fresh schema gets the tables and the same metadata record as a SQLite store; a second start finds them")
    func createThenOpen() throws {
        try PostgresTestDatabase.withSchema { database in
            let executor = try database.executor()
            let first = try PostgresBootstrap(executor: executor, schema: Self.schema).run()
            #expect(first.created)
            let second = try PostgresBootstrap(executor: try database.executor(), schema: Self.schema).run()
            #expect(second == PostgresBootstrap.Outcome(identifier: first.identifier, created: false))
            let metadata = try Self.metadata(executor)
            #expect(metadata["schema"] == (try Self.schema.canonicalRecord().text))
            #expect(metadata["schemaFingerprint"] == Self.schema.fingerprint)
            #expect(metadata["schemaVersion"] == "1.0.0")
            #expect(metadata["formatVersion"] == String(PostgresBootstrap.formatVersion))
            #expect(metadata["storeIdentifier"] == first.identifier)
            #expect(try executor.execute(#"SELECT count(*) FROM "PGBook""#).rows.first?.decode(Int64.self) == 0)
        }
    }

    @Test("Four servers starting at once on one fresh schema all succeed, and the tables are created once")
    func concurrentBootstraps() throws {
        try PostgresTestDatabase.withSchema { database in
            let executors = try (0..<4).map { _ in ExecutorBox(executor: try database.executor()) }
            let outcomes = Locked<[Result<PostgresBootstrap.Outcome, any Error>]>([])
            // Threads of their own, not tasks: each blocks while it waits for
            // the lock, which must not hold the cooperative pool's threads.
            let group = DispatchGroup()
            for box in executors {
                group.enter()
                Thread {
                    let outcome = Result { try PostgresBootstrap(executor: box.executor, schema: Self.schema).run() }
                    outcomes.withLock { $0.append(outcome) }
                    group.leave()
                }.start()
            }
            group.wait()
            let results = try outcomes.withLock { $0 }.map { try $0.get() }
            #expect(results.count == 4)
            #expect(results.filter(\.created).count == 1)
            #expect(Set(results.map(\.identifier)).count == 1)
            var binds = PostgresBindings()
            binds.append(database.name)
            let tables = try executors[0].executor.execute(
                "SELECT count(*) FROM pg_tables WHERE schemaname = $1 AND tablename = '_modelstore_metadata'", binds)
            #expect(try tables.rows.first?.decode(Int64.self) == 1)
            #expect(try Self.metadata(executors[0].executor).count == 5)
        }
    }

    @Test("A store whose record differs from the app's schema other than by additions is refused with the differences, as in SQLite")
    func schemaMismatch() throws {
        let note = Schema.Attribute(name: "text", kind: .string, swiftType: "String", isOptional: false)
        let color = Schema.Attribute(name: "color", kind: .string, swiftType: "String", isOptional: true)
        let old = Schema(entities: [Schema.Entity(name: "Note", attributes: [note, color])])
        let new = Schema(entities: [Schema.Entity(name: "Note", attributes: [note])])
        try PostgresTestDatabase.withSchema { database in
            _ = try PostgresBootstrap(executor: try database.executor(), schema: old).run()
            let bootstrap = PostgresBootstrap(executor: try database.executor(), schema: new)
            #expect {
                _ = try bootstrap.run()
            } throws: { error in
                guard case .schemaMismatch(let path, let differences)? = error as? ModelStoreError else { return false }
                return path.contains(database.name) && differences == new.differences(from: old)
                    && "\(error)".contains("color")
            }
        }
    }

    @Test("A schema that holds other tables but no store is refused, and nothing is created in it")
    func foreignTables() throws {
        try PostgresTestDatabase.withSchema { database in
            let executor = try database.executor()
            try executor.execute(#"CREATE TABLE "orders" ("id" bigint)"#)
            #expect {
                _ = try PostgresBootstrap(executor: executor, schema: Self.schema).run()
            } throws: { error in
                guard case .notAModelStore(_, let reason)? = error as? ModelStoreError else { return false }
                return reason.contains("orders")
            }
            let count = try executor.execute("SELECT count(*) FROM pg_tables WHERE schemaname = current_schema()")
            #expect(try count.rows.first?.decode(Int64.self) == 1)
        }
    }

    @Test("A store of a newer format is refused")
    func newerFormat() throws {
        try PostgresTestDatabase.withSchema { database in
            let executor = try database.executor()
            _ = try PostgresBootstrap(executor: executor, schema: Self.schema).run()
            try executor.execute(#"UPDATE "_modelstore_metadata" SET "value" = '99' WHERE "key" = 'formatVersion'"#)
            #expect(throws: ModelStoreError.newerFormat(path: PostgresBootstrap(executor: executor, schema: Self.schema).displayPath, found: 99, supported: PostgresBootstrap.formatVersion)) {
                _ = try PostgresBootstrap(executor: executor, schema: Self.schema).run()
            }
        }
    }
}

/// A value behind a lock, for results gathered from threads.
private final class Locked<Value>: @unchecked Sendable {
    private var value: Value
    private let lock = NSLock()
    init(_ value: Value) { self.value = value }
    func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
