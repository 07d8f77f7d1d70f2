import CSQLiteBench
import Foundation
import GRDB
import ModelStore

/// 1. Insert N new objects and save, in one transaction.
struct InsertWorkload: Workload {
    let number = 1
    let title = "Insert N objects and save"
    let target = Target.ratio(1.5)

    func cases(scale: Scale) -> [Case] {
        let n = scale.rows
        let check = { (scratch: Scratch) in
            try Fixture.expectContents(path: scratch.storePath, rows: n, checksum: Dataset.checksum(rows: n))
        }
        return [
            Case(contender: .modelStore) { scratch in
                let context = ModelContext(try Fixture.itemStore(scratch, rows: 0))
                _ = try context.fetchCount(FetchDescriptor<Item>())  // opens the context's connection
                return Trial(run: {
                    for i in 1...n {
                        context.insert(Item(
                            number: Dataset.number(i), name: Dataset.name(i), score: Dataset.score(i),
                            rank: Dataset.rank(i), created: Date(timeIntervalSince1970: Dataset.created(i)),
                            flag: Dataset.flag(i)))
                    }
                    try context.save()
                }, check: { try check(scratch) })
            },
            Case(contender: .rawC) { scratch in
                try Fixture.itemStore(scratch, rows: 0)
                let db = try RawDatabase(path: scratch.storePath)
                return Trial(run: {
                    let statement = try db.prepare(Fixture.insertSQL)
                    defer { sqlite3_finalize(statement) }
                    try db.begin(immediate: true)
                    for i in 1...n {
                        let item = PlainItem(
                            id: 0, number: Dataset.number(i), name: Dataset.name(i), score: Dataset.score(i),
                            rank: Dataset.rank(i), created: Date(timeIntervalSince1970: Dataset.created(i)),
                            flag: Dataset.flag(i))
                        sqlite3_bind_int64(statement, 1, Int64(item.number))
                        sqlite3_bind_text(statement, 2, item.name, -1, SQLITE_TRANSIENT_DESTRUCTOR)
                        sqlite3_bind_double(statement, 3, item.score)
                        sqlite3_bind_int64(statement, 4, Int64(item.rank))
                        sqlite3_bind_double(statement, 5, item.created.timeIntervalSince1970)
                        sqlite3_bind_int64(statement, 6, item.flag ? 1 : 0)
                        try db.check(sqlite3_step(statement), "insert")
                        sqlite3_reset(statement)
                        item.id = sqlite3_last_insert_rowid(db.handle)
                    }
                    try db.commit()
                }, check: { try check(scratch) })
            },
            Case(contender: .grdbStatement) { scratch in
                try Fixture.itemStore(scratch, rows: 0)
                let queue = try openGRDB(path: scratch.storePath)
                return Trial(run: {
                    try queue.write { db in
                        let statement = try db.cachedStatement(sql: Fixture.insertSQL)
                        for i in 1...n {
                            try statement.execute(arguments: [
                                Dataset.number(i), Dataset.name(i), Dataset.score(i), Dataset.rank(i),
                                Dataset.created(i), Dataset.flag(i),
                            ])
                        }
                    }
                }, check: { try check(scratch) })
            },
            Case(contender: .grdbRecord) { scratch in
                try Fixture.itemStore(scratch, rows: 0)
                let queue = try openGRDB(path: scratch.storePath)
                return Trial(run: {
                    try queue.write { db in
                        for i in 1...n {
                            try ItemRecord(
                                number: Dataset.number(i), name: Dataset.name(i), score: Dataset.score(i),
                                rank: Dataset.rank(i), created: Date(timeIntervalSince1970: Dataset.created(i)),
                                flag: Dataset.flag(i)
                            ).insert(db)
                        }
                    }
                }, check: { try check(scratch) })
            },
        ]
    }
}
