import CSQLiteBench
import Foundation
import GRDB
import ModelStore

/// 2. Fetch N objects into a context where none is registered yet.
struct FetchWorkload: Workload {
    let number = 2
    let title = "Fetch N objects"
    let target = Target.ratio(1.5)

    /// The check of a fetch of rows 1...n: it gets the count and the
    /// checksum of the fetched objects.
    static func check(rows n: Int) -> (_ count: Int, _ checksum: Int) throws -> Void {
        let expected = Dataset.checksum(rows: n)
        return { count, checksum in
            try expect(count, n, "fetched objects")
            try expect(checksum, expected, "checksum of the fetched values")
        }
    }

    func cases(scale: Scale) -> [Case] {
        let n = scale.rows
        let check = Self.check(rows: n)
        return [
            Case(contender: .modelStore) { scratch in
                try Self.modelStoreTrial(try Fixture.itemStore(scratch, rows: n), check: check)
            },
            Case(contender: .rawC) { scratch in
                try Fixture.itemStore(scratch, rows: n)
                let db = try RawDatabase(path: scratch.storePath)
                var items: [PlainItem] = []
                return Trial(run: {
                    items = try RawItems.fetchAll(db)
                }, check: {
                    try check(items.count, items.reduce(0) { $0 &+ Dataset.checksum($1) })
                })
            },
            Case(contender: .rawCWithState) { scratch in
                try Fixture.itemStore(scratch, rows: n)
                let db = try RawDatabase(path: scratch.storePath)
                var items: [PlainItemWithState] = []
                return Trial(run: {
                    items = try RawItems.fetchAll(db, as: PlainItemWithState.self)
                }, check: {
                    try check(items.count, items.reduce(0) { $0 &+ Dataset.checksum($1) })
                })
            },
            Case(contender: .grdbStatement) { scratch in
                try Fixture.itemStore(scratch, rows: n)
                let queue = try openGRDB(path: scratch.storePath)
                var items: [PlainItem] = []
                return Trial(run: {
                    items = try queue.read { db in try GRDBItems.fetchAll(db) }
                }, check: {
                    try check(items.count, items.reduce(0) { $0 &+ Dataset.checksum($1) })
                })
            },
            Case(contender: .grdbRecord) { scratch in
                try Fixture.itemStore(scratch, rows: n)
                let queue = try openGRDB(path: scratch.storePath)
                var items: [ItemRecord] = []
                return Trial(run: {
                    items = try queue.read { db in try ItemRecord.fetchAll(db) }
                }, check: {
                    try check(items.count, items.reduce(0) { $0 &+ Dataset.checksum($1) })
                })
            },
        ]
    }

    /// ModelStore's part on a filled store, SQLite or PostgreSQL alike;
    /// `check` gets the count and the checksum of the fetched objects.
    static func modelStoreTrial(_ container: ModelContainer, check: @escaping (Int, Int) throws -> Void) throws -> Trial {
        let context = ModelContext(container)
        _ = try context.fetchCount(FetchDescriptor<Item>())  // opens the connection, registers nothing
        var items: [Item] = []
        return Trial(run: {
            items = try context.fetch(FetchDescriptor<Item>())
        }, check: {
            try check(items.count, items.reduce(0) { $0 &+ Dataset.checksum($1) })
        })
    }
}
