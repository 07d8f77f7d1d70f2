import CSQLiteBench
import Foundation
import GRDB
import ModelStore

/// 3. Change one property of N loaded objects and save. Loading is not
/// timed; the changes and the save are.
struct UpdateWorkload: Workload {
    let number = 3
    let title = "Change 1 property of N objects, save"
    let target = Target.ratio(1.5)

    static let updateSQL = #"UPDATE "Item" SET "rank" = ? WHERE "_pk" = ?"#

    func cases(scale: Scale) -> [Case] {
        let n = scale.rows
        // Each row's rank goes up by one; rank counts 13 times in a row's checksum.
        let check = { (scratch: Scratch) in
            try Fixture.expectContents(path: scratch.storePath, rows: n, checksum: Dataset.checksum(rows: n) &+ 13 &* n)
        }
        return [
            Case(contender: .modelStore) { scratch in
                try Self.modelStoreTrial(try Fixture.itemStore(scratch, rows: n)) { try check(scratch) }
            },
            Case(contender: .rawC) { scratch in
                try Fixture.itemStore(scratch, rows: n)
                let db = try RawDatabase(path: scratch.storePath)
                let items = try RawItems.fetchAll(db)
                return Trial(run: {
                    let statement = try db.prepare(Self.updateSQL)
                    defer { sqlite3_finalize(statement) }
                    try db.begin(immediate: true)
                    for item in items {
                        item.rank += 1
                        sqlite3_bind_int64(statement, 1, Int64(item.rank))
                        sqlite3_bind_int64(statement, 2, item.id)
                        try db.check(sqlite3_step(statement), "update")
                        sqlite3_reset(statement)
                    }
                    try db.commit()
                }, check: { try check(scratch) })
            },
            Case(contender: .grdbStatement) { scratch in
                try Fixture.itemStore(scratch, rows: n)
                let queue = try openGRDB(path: scratch.storePath)
                let items = try queue.read { db in try GRDBItems.fetchAll(db) }
                return Trial(run: {
                    try queue.write { db in
                        let statement = try db.cachedStatement(sql: Self.updateSQL)
                        for item in items {
                            item.rank += 1
                            try statement.execute(arguments: [item.rank, item.id])
                        }
                    }
                }, check: { try check(scratch) })
            },
            Case(contender: .grdbRecord) { scratch in
                try Fixture.itemStore(scratch, rows: n)
                let queue = try openGRDB(path: scratch.storePath)
                var records = try queue.read { db in try ItemRecord.fetchAll(db) }
                return Trial(run: {
                    try queue.write { db in
                        for index in records.indices {
                            try records[index].updateChanges(db) { $0.rank += 1 }
                        }
                    }
                }, check: { try check(scratch) })
            },
        ]
    }

    /// ModelStore's part on a filled store, SQLite or PostgreSQL alike.
    static func modelStoreTrial(_ container: ModelContainer, check: @escaping () throws -> Void) throws -> Trial {
        let context = ModelContext(container)
        let items = try context.fetch(FetchDescriptor<Item>())
        return Trial(run: {
            for item in items { item.rank += 1 }
            try context.save()
        }, check: check)
    }
}
