import CSQLiteBench
import Foundation
import GRDB
import ModelStore

/// 1. Insert N new objects and save, in one transaction. Every contender
/// starts from the same input rows, made before its timed part
/// (`Dataset.input(rows:)`): ModelStore makes a model object of each and
/// saves; raw C binds each row's values and steps (it keeps no objects,
/// which the workload does not need); GRDB's Statement API executes a
/// cached statement with each row's values as arguments; GRDB's record API
/// makes a record of each and inserts it.
struct InsertWorkload: Workload {
    let number = 1
    let title = "Insert N objects and save"
    let target = Target.ratio(1.5)

    func cases(scale: Scale) -> [Case] {
        let n = scale.rows
        let check = { (scratch: Scratch) in
            try Fixture.expectContents(path: scratch.storePath, rows: n, checksum: Dataset.checksum(rows: n))
        }
        let rows = Dataset.input(rows: n)
        return [
            Case(contender: .modelStore) { scratch in
                try Self.modelStoreTrial(try Fixture.itemStore(scratch, rows: 0), rows: rows) { try check(scratch) }
            },
            Case(contender: .rawC) { scratch in
                try Fixture.itemStore(scratch, rows: 0)
                let db = try RawDatabase(path: scratch.storePath)
                return Trial(run: {
                    let statement = try db.prepare(Fixture.insertSQL)
                    defer { sqlite3_finalize(statement) }
                    try db.begin(immediate: true)
                    for row in rows {
                        sqlite3_bind_int64(statement, 1, Int64(row.number))
                        sqlite3_bind_text(statement, 2, row.name, -1, SQLITE_TRANSIENT_DESTRUCTOR)
                        sqlite3_bind_double(statement, 3, row.score)
                        sqlite3_bind_int64(statement, 4, Int64(row.rank))
                        sqlite3_bind_double(statement, 5, row.created.timeIntervalSince1970)
                        sqlite3_bind_int64(statement, 6, row.flag ? 1 : 0)
                        try db.check(sqlite3_step(statement), "insert")
                        sqlite3_reset(statement)
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
                        for row in rows {
                            try statement.execute(arguments: [
                                row.number, row.name, row.score, row.rank, row.created.timeIntervalSince1970, row.flag,
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
                        for row in rows {
                            try ItemRecord(
                                number: row.number, name: row.name, score: row.score, rank: row.rank,
                                created: row.created, flag: row.flag
                            ).insert(db)
                        }
                    }
                }, check: { try check(scratch) })
            },
        ]
    }

    /// ModelStore's part on an empty store, SQLite or PostgreSQL alike.
    static func modelStoreTrial(_ container: ModelContainer, rows: [InputRow], check: @escaping () throws -> Void) throws
        -> Trial
    {
        let context = ModelContext(container)
        _ = try context.fetchCount(FetchDescriptor<Item>())  // opens the context's connection
        return Trial(run: {
            for row in rows {
                context.insert(Item(
                    number: row.number, name: row.name, score: row.score, rank: row.rank,
                    created: row.created, flag: row.flag))
            }
            try context.save()
        }, check: check)
    }
}
