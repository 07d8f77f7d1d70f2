import CSQLiteBench
import Foundation
import GRDB
import ModelStore

/// 8. Visit every object of the store once, in row order, keeping none, at
/// two sizes listed under the same number (a tenth of the large N, and the
/// large N): the peak memory must not grow with the rows.
///
/// ModelStore runs `context.enumerate(_:batchSize:block:)` in a new context;
/// raw C steps one statement, reading each row into a `PlainItem`; GRDB
/// Statement walks a row cursor (`Row.fetchCursor`), GRDB Record a record
/// cursor (`ItemRecord.fetchCursor`). Every contender reads every value of
/// each object and adds it to a checksum. The target is on ModelStore's
/// peak resident memory during the timed part, which includes the process's
/// own (the runtime, Foundation, GRDB, SQLite's page caches).
struct EnumerateWorkload: Workload {
    let number = 8
    let title: String
    let target = Target.peakUnderMebibytes(64)
    /// Rows in the store, all visited.
    let rows: Int

    init(rows: Int) {
        self.rows = rows
        title = "Enumerate \(formatCount(rows)) objects in batches"
    }

    /// What a contender saw: how many objects, the checksum of their
    /// values, and whether they came in row order.
    struct Tally {
        var count = 0
        var checksum = 0
        var lastNumber = Int.min
        var inOrder = true

        @inline(__always)
        mutating func add(number: Int, checksum rowChecksum: Int) {
            count += 1
            checksum = checksum &+ rowChecksum
            inOrder = inOrder && number > lastNumber
            lastNumber = number
        }
    }

    func cases(scale: Scale) -> [Case] {
        let n = rows
        let batchSize = scale.enumerationBatch
        let expected = Dataset.checksum(rows: n)
        func check(_ tally: Tally) throws {
            try expect(tally.count, n, "visited objects")
            try expect(tally.checksum, expected, "checksum of the visited values")
            try expect(tally.inOrder, true, "objects in row order")
        }
        let sql = Fixture.selectSQL + #" ORDER BY "_pk""#
        return [
            Case(contender: .modelStore) { scratch in
                let context = ModelContext(try Fixture.itemStore(scratch, rows: n))
                _ = try context.fetchCount(FetchDescriptor<Item>())  // opens the connection, registers nothing
                var tally = Tally()
                return Trial(run: {
                    try context.enumerate(FetchDescriptor<Item>(), batchSize: batchSize) { item in
                        tally.add(number: item.number, checksum: Dataset.checksum(item))
                    }
                }, check: { try check(tally) })
            },
            Case(contender: .rawC) { scratch in
                try Fixture.itemStore(scratch, rows: n)
                let db = try RawDatabase(path: scratch.storePath)
                var tally = Tally()
                return Trial(run: {
                    let statement = try db.prepare(sql)
                    defer { sqlite3_finalize(statement) }
                    while true {
                        let code = sqlite3_step(statement)
                        guard code == SQLITE_ROW else {
                            try db.check(code, "enumerate")
                            break
                        }
                        let item = RawItems.read(statement)
                        tally.add(number: item.number, checksum: Dataset.checksum(item))
                    }
                }, check: { try check(tally) })
            },
            Case(contender: .grdbStatement) { scratch in
                try Fixture.itemStore(scratch, rows: n)
                let queue = try openGRDB(path: scratch.storePath)
                var tally = Tally()
                return Trial(run: {
                    try queue.read { db in
                        let rows = try Row.fetchCursor(db.cachedStatement(sql: sql))
                        while let row = try rows.next() {
                            let item = GRDBItems.read(row)
                            tally.add(number: item.number, checksum: Dataset.checksum(item))
                        }
                    }
                }, check: { try check(tally) })
            },
            Case(contender: .grdbRecord) { scratch in
                try Fixture.itemStore(scratch, rows: n)
                let queue = try openGRDB(path: scratch.storePath)
                var tally = Tally()
                return Trial(run: {
                    try queue.read { db in
                        let records = try ItemRecord.order(Column("_pk")).fetchCursor(db)
                        while let record = try records.next() {
                            tally.add(number: record.number, checksum: Dataset.checksum(record))
                        }
                    }
                }, check: { try check(tally) })
            },
        ]
    }
}
