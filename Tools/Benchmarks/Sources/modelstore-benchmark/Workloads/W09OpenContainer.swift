import CSQLiteBench
import Foundation
import GRDB
import ModelStore

/// 9. Open a container with 20 entities on an existing store and run the
/// first query (a count). Raw C and GRDB open the same file with the same
/// settings and run the same count.
struct OpenContainerWorkload: Workload {
    let number = 9
    let title = "Open a 20-entity store + first count"
    let target = Target.underMilliseconds(20)

    static let rows = 3
    static let countSQL = #"SELECT count(*) FROM "Entity01""#

    func cases(scale: Scale) -> [Case] {
        let check = { (count: Int) in try expect(count, Self.rows, "rows counted") }
        return [
            Case(contender: .modelStore) { scratch in
                try Self.makeStore(scratch)
                var container: ModelContainer?
                var count = 0
                return Trial(run: {
                    let opened = try ModelContainer(
                        for: Schema(openEntityTypes), configurations: ModelConfiguration(url: scratch.storeURL))
                    count = try ModelContext(opened).fetchCount(FetchDescriptor<Entity01>())
                    container = opened
                }, check: {
                    try expect(container?.schema.entities.count, 20, "entities in the container")
                    try check(count)
                })
            },
            Case(contender: .rawC) { scratch in
                try Self.makeStore(scratch)
                var db: RawDatabase?
                var count = 0
                return Trial(run: {
                    let opened = try RawDatabase(path: scratch.storePath)
                    let statement = try opened.prepare(Self.countSQL)
                    defer { sqlite3_finalize(statement) }
                    try opened.check(sqlite3_step(statement), "count")
                    count = Int(sqlite3_column_int64(statement, 0))
                    db = opened
                }, check: {
                    try expect(db != nil, true, "open database")
                    try check(count)
                })
            },
            Case(contender: .grdbStatement) { scratch in
                try Self.makeStore(scratch)
                var queue: DatabaseQueue?
                var count = 0
                return Trial(run: {
                    let opened = try openGRDB(path: scratch.storePath)
                    count = try opened.read { db in try Int.fetchOne(db, sql: Self.countSQL) } ?? -1
                    queue = opened
                }, check: {
                    try expect(queue != nil, true, "open database")
                    try check(count)
                })
            },
            Case(contender: .grdbRecord) { scratch in
                try Self.makeStore(scratch)
                var queue: DatabaseQueue?
                var count = 0
                return Trial(run: {
                    let opened = try openGRDB(path: scratch.storePath)
                    count = try opened.read { db in try Entity01Record.fetchCount(db) }
                    queue = opened
                }, check: {
                    try expect(queue != nil, true, "open database")
                    try check(count)
                })
            },
        ]
    }

    /// Creates the 20-entity store with a few rows of the first entity; the
    /// container that created it is gone before the timed part.
    private static func makeStore(_ scratch: Scratch) throws {
        let container = try ModelContainer(for: Schema(openEntityTypes), configurations: ModelConfiguration(url: scratch.storeURL))
        let context = ModelContext(container)
        for i in 0..<rows {
            context.insert(Entity01(name: "row \(i)", value: i, date: Date(timeIntervalSince1970: Double(i))))
        }
        try context.save()
    }
}
