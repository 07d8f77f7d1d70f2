import CSQLiteBench
import Foundation
import GRDB
import ModelStore

/// 14 (issue 20). Saves from 4 tasks at once against the same saves from 1 task:
/// 4 threads each make `savesPerTask` saves of one change (their own rows),
/// and, first in the same run, one thread makes all of them. Reported: the
/// 4 threads' time, and its ratio to the one thread's (the inverse of the
/// throughput ratio). Writes take turns (one writer at a time per store),
/// so 4 tasks cannot be faster; the target is that taking turns costs
/// little: at most 1.25× one task's time (a throughput at least 0.8×).
///
/// ModelStore: a context per thread (a context is not `Sendable`; threads,
/// not tasks: see `Threads`). Raw C: a connection per thread, each save
/// `BEGIN IMMEDIATE`, one UPDATE, `COMMIT`; the threads take a lock of the
/// process around each save, as ModelStore's contexts do, since SQLite's
/// busy handler would make a waiting connection sleep. GRDB Statement: a
/// `DatabasePool`, whose `write` calls take turns on its one writer
/// connection.
struct ConcurrentSavesWorkload: Workload {
    let number = 14
    let title = "4 tasks × K saves of 1 change, against 1 task × 4K"
    let target = Target.withinReference(1.25, reference: "1 task")

    static let tasks = 4

    func cases(scale: Scale) -> [Case] {
        let n = scale.rows
        let k = scale.savesPerTask
        let total = Self.tasks * k
        // Rows 1...total: +1 from the one task, +1 from their thread.
        let storeCheck = { (scratch: Scratch) in
            try Fixture.expectContents(path: scratch.storePath, rows: n, checksum: Dataset.checksum(rows: n) &+ 13 &* 2 &* total)
        }
        /// Rows (1-based numbers) of thread `index`.
        let rowsOf: @Sendable (Int) -> ClosedRange<Int> = { index in (index * k + 1)...((index + 1) * k) }
        return [
            Case(contender: .modelStore) { scratch in
                let container = try Fixture.itemStore(scratch, rows: n)
                var descriptor = FetchDescriptor<Item>()
                descriptor.fetchLimit = total
                let context = ModelContext(container)
                var one: (context: ModelContext, items: [Item])? = (context, try context.fetch(descriptor))
                var inside: InsideMeasurement?
                return Trial(run: {
                    var alone = 0.0
                    if let (context, items) = one {
                        let start = monotonicSeconds()
                        for item in items {
                            item.rank += 1
                            try context.save()
                        }
                        alone = monotonicSeconds() - start
                    }
                    // Gone before the others start: a live context receives every save.
                    one = nil
                    let together = try Threads.timed(Self.tasks) { index in
                        let context = ModelContext(container)
                        let rows = rowsOf(index)
                        let (low, high) = (rows.lowerBound, rows.upperBound)
                        let items = try context.fetch(FetchDescriptor<Item>(predicate: #Predicate<Item> { $0.number >= low && $0.number <= high }))
                        try expect(items.count, k, "objects of thread \(index)")
                        return {
                            for item in items {
                                item.rank += 1
                                try context.save()
                            }
                        }
                    }
                    inside = InsideMeasurement(seconds: together, reference: alone)
                }, check: { try storeCheck(scratch) }, measuredInside: { inside ?? InsideMeasurement(seconds: 0, reference: 0) })
            },
            Case(contender: .rawC) { scratch in
                try Fixture.itemStore(scratch, rows: n)
                let db = try RawDatabase(path: scratch.storePath)
                let items = Array(try RawItems.fetchAll(db).prefix(total))
                let statement = try db.prepare(UpdateWorkload.updateSQL)
                let path = scratch.storePath
                let writeLock = NSLock()
                /// One save of one change, taking the process's write lock.
                @Sendable func save(_ db: RawDatabase, _ statement: OpaquePointer, id: Int64, rank: Int) throws {
                    writeLock.lock()
                    defer { writeLock.unlock() }
                    try db.begin(immediate: true)
                    sqlite3_bind_int64(statement, 1, Int64(rank))
                    sqlite3_bind_int64(statement, 2, id)
                    try db.check(sqlite3_step(statement), "update")
                    sqlite3_reset(statement)
                    try db.commit()
                }
                var inside: InsideMeasurement?
                return Trial(run: {
                    let start = monotonicSeconds()
                    for item in items {
                        item.rank += 1
                        try save(db, statement, id: item.id, rank: item.rank)
                    }
                    let alone = monotonicSeconds() - start
                    let together = try Threads.timed(Self.tasks) { index in
                        let db = try RawDatabase(path: path)
                        let statement = try db.prepare(UpdateWorkload.updateSQL)
                        let select = try db.prepare(Fixture.selectSQL + #" WHERE "number" BETWEEN ? AND ? ORDER BY "_pk""#)
                        let rows = rowsOf(index)
                        sqlite3_bind_int64(select, 1, Int64(rows.lowerBound))
                        sqlite3_bind_int64(select, 2, Int64(rows.upperBound))
                        var mine: [PlainItem] = []
                        while sqlite3_step(select) == SQLITE_ROW { mine.append(RawItems.read(select)) }
                        sqlite3_finalize(select)
                        try expect(mine.count, k, "rows of thread \(index)")
                        return {
                            defer { sqlite3_finalize(statement) }
                            for item in mine {
                                item.rank += 1
                                try save(db, statement, id: item.id, rank: item.rank)
                            }
                        }
                    }
                    inside = InsideMeasurement(seconds: together, reference: alone)
                }, check: {
                    sqlite3_finalize(statement)
                    try storeCheck(scratch)
                }, measuredInside: { inside ?? InsideMeasurement(seconds: 0, reference: 0) })
            },
            Case(contender: .grdbStatement) { scratch in
                try Fixture.itemStore(scratch, rows: n)
                let pool = try openGRDBPool(path: scratch.storePath)
                let items = Array(try pool.read { db in try GRDBItems.fetchAll(db) }.prefix(total))
                @Sendable func save(_ id: Int64, rank: Int) throws {
                    try pool.write { db in
                        try db.cachedStatement(sql: UpdateWorkload.updateSQL).execute(arguments: [rank, id])
                    }
                }
                var inside: InsideMeasurement?
                return Trial(run: {
                    let start = monotonicSeconds()
                    for item in items {
                        item.rank += 1
                        try save(item.id, rank: item.rank)
                    }
                    let alone = monotonicSeconds() - start
                    let together = try Threads.timed(Self.tasks) { index in
                        let rows = rowsOf(index)
                        let mine = try pool.read { db in
                            try GRDBItems.fetchAll(db).filter { rows.contains($0.number) }
                        }
                        try expect(mine.count, k, "rows of thread \(index)")
                        return {
                            for item in mine {
                                item.rank += 1
                                try save(item.id, rank: item.rank)
                            }
                        }
                    }
                    inside = InsideMeasurement(seconds: together, reference: alone)
                }, check: { try storeCheck(scratch) }, measuredInside: { inside ?? InsideMeasurement(seconds: 0, reference: 0) })
            },
        ]
    }
}
