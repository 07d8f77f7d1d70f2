import CSQLiteBench
import Foundation
import GRDB
import ModelStore

/// 5. Save one change while N objects are registered: the cost of a save
/// must follow the changes, not the registered objects. Every contender
/// first saves one other change untimed, so statements are prepared and
/// cached, then the timed part changes one property of one object and saves.
struct SaveOneWorkload: Workload {
    let number = 5
    let title = "Save 1 change, N objects registered"
    let target = Target.underMilliseconds(1)

    func cases(scale: Scale) -> [Case] {
        let n = scale.rows
        // Two ranks go up by one (the warm-up change and the timed one).
        let check = { (scratch: Scratch) in
            try Fixture.expectContents(path: scratch.storePath, rows: n, checksum: Dataset.checksum(rows: n) &+ 26)
        }
        let middle = n / 2
        return [
            Case(contender: .modelStore) { scratch in
                let context = ModelContext(try Fixture.itemStore(scratch, rows: n))
                let items = try context.fetch(FetchDescriptor<Item>())
                items[0].rank += 1
                try context.save()
                return Trial(run: {
                    items[middle].rank += 1
                    try context.save()
                }, check: { try check(scratch) })
            },
            Case(contender: .rawC) { scratch in
                try Fixture.itemStore(scratch, rows: n)
                let db = try RawDatabase(path: scratch.storePath)
                let items = try RawItems.fetchAll(db)
                let statement = try db.prepare(UpdateWorkload.updateSQL)
                func save(_ item: PlainItem) throws {
                    try db.begin(immediate: true)
                    sqlite3_bind_int64(statement, 1, Int64(item.rank))
                    sqlite3_bind_int64(statement, 2, item.id)
                    try db.check(sqlite3_step(statement), "update")
                    sqlite3_reset(statement)
                    try db.commit()
                }
                items[0].rank += 1
                try save(items[0])
                return Trial(run: {
                    items[middle].rank += 1
                    try save(items[middle])
                }, check: {
                    sqlite3_finalize(statement)
                    try check(scratch)
                })
            },
            Case(contender: .grdbStatement) { scratch in
                try Fixture.itemStore(scratch, rows: n)
                let queue = try openGRDB(path: scratch.storePath)
                let items = try queue.read { db in try GRDBItems.fetchAll(db) }
                func save(_ item: PlainItem) throws {
                    try queue.write { db in
                        try db.cachedStatement(sql: UpdateWorkload.updateSQL).execute(arguments: [item.rank, item.id])
                    }
                }
                items[0].rank += 1
                try save(items[0])
                return Trial(run: {
                    items[middle].rank += 1
                    try save(items[middle])
                }, check: { try check(scratch) })
            },
            Case(contender: .grdbRecord) { scratch in
                try Fixture.itemStore(scratch, rows: n)
                let queue = try openGRDB(path: scratch.storePath)
                var records = try queue.read { db in try ItemRecord.fetchAll(db) }
                try queue.write { db in _ = try records[0].updateChanges(db) { $0.rank += 1 } }
                return Trial(run: {
                    try queue.write { db in _ = try records[middle].updateChanges(db) { $0.rank += 1 } }
                }, check: { try check(scratch) })
            },
        ]
    }
}
