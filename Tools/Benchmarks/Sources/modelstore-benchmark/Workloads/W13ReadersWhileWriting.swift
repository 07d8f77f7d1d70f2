import CSQLiteBench
import Foundation
import GRDB
import ModelStore

/// 13 (issue 20). A reader while one writer saves: the longest time a reader's fetch
/// waits while another connection (ModelStore: another context) saves
/// again and again. Reported: the longest fetch during the writer's saves
/// minus the reader's median fetch alone (measured first, in the same
/// run); the target is that no fetch waits longer than one fetch of its
/// own, i.e. reads never wait for the writer's transaction.
///
/// The reader fetches the first `readerRows` rows in key order; the
/// writer's saves each add 1 to the rank of those same rows, in one
/// transaction. Every fetch must see whole saves: all its ranks moved by
/// the same number of saves.
struct ReadersWhileWritingWorkload: Workload {
    let number = 13
    let title = "Longest wait of a reader's fetch while another connection saves"
    let target = Target.withinReference(1, reference: "own fetch")

    /// Fetches timed alone for the reference, before the writer starts.
    static let fetchesAlone = 20

    func cases(scale: Scale) -> [Case] {
        let n = scale.rows
        let rows = scale.readerRows
        let saves = scale.writerSaves
        // Each save adds 1 to the rank of `rows` rows; rank counts 13 times in a row's checksum.
        let storeCheck = { (scratch: Scratch) in
            try Fixture.expectContents(
                path: scratch.storePath, rows: n, checksum: Dataset.checksum(rows: n) &+ 13 &* rows &* saves)
        }
        let limitedSelectSQL = Fixture.selectSQL + #" ORDER BY "_pk" LIMIT \#(rows)"#
        return [
            Case(contender: .modelStore) { scratch in
                let container = try Fixture.itemStore(scratch, rows: n)
                var descriptor = FetchDescriptor<Item>()
                descriptor.fetchLimit = rows
                let reader = ModelContext(container)
                let writer = ModelContext(container)
                let written = HandOver((writer, try writer.fetch(descriptor)))
                let outcome = ReaderOutcome()
                return Trial(run: {
                    try outcome.measure(rows: rows, fetchRanks: { try reader.fetch(descriptor).map(\.rank) }) { done in
                        Threads.start {
                            defer { done.raise() }
                            let (context, items) = written.value
                            for _ in 0..<saves {
                                for item in items { item.rank += 1 }
                                try context.save()
                            }
                        }
                    }
                }, check: {
                    try outcome.check(rows: rows, saves: saves)
                    try storeCheck(scratch)
                }, measuredInside: outcome.measurement)
            },
            Case(contender: .rawC) { scratch in
                try Fixture.itemStore(scratch, rows: n)
                let reader = try RawDatabase(path: scratch.storePath)
                let select = try reader.prepare(limitedSelectSQL)
                let writer = try RawDatabase(path: scratch.storePath)
                let items = try RawItems.fetchAll(writer).prefix(rows)
                let update = try writer.prepare(UpdateWorkload.updateSQL)
                let written = HandOver((writer, update, Array(items)))
                let outcome = ReaderOutcome()
                return Trial(run: {
                    try outcome.measure(rows: rows, fetchRanks: {
                        var ranks: [Int] = []
                        ranks.reserveCapacity(rows)
                        while true {
                            let code = sqlite3_step(select)
                            guard code == SQLITE_ROW else {
                                sqlite3_reset(select)
                                try reader.check(code, "fetch")
                                return ranks
                            }
                            ranks.append(RawItems.read(select).rank)
                        }
                    }) { done in
                        Threads.start {
                            defer { done.raise() }
                            let (db, statement, items) = written.value
                            for _ in 0..<saves {
                                try db.begin(immediate: true)
                                for item in items {
                                    item.rank += 1
                                    sqlite3_bind_int64(statement, 1, Int64(item.rank))
                                    sqlite3_bind_int64(statement, 2, item.id)
                                    try db.check(sqlite3_step(statement), "update")
                                    sqlite3_reset(statement)
                                }
                                try db.commit()
                            }
                        }
                    }
                }, check: {
                    sqlite3_finalize(select)
                    sqlite3_finalize(update)
                    try outcome.check(rows: rows, saves: saves)
                    try storeCheck(scratch)
                }, measuredInside: outcome.measurement)
            },
            Case(contender: .grdbStatement) { scratch in
                try Fixture.itemStore(scratch, rows: n)
                let pool = try openGRDBPool(path: scratch.storePath)
                let items = HandOver(Array(try pool.read { db in try GRDBItems.fetchAll(db) }.prefix(rows)))
                let outcome = ReaderOutcome()
                return Trial(run: {
                    try outcome.measure(rows: rows, fetchRanks: {
                        try pool.read { db in
                            try Int.fetchAll(db.cachedStatement(sql: #"SELECT "rank" FROM "Item" ORDER BY "_pk" LIMIT \#(rows)"#))
                        }
                    }) { done in
                        Threads.start {
                            defer { done.raise() }
                            for _ in 0..<saves {
                                try pool.write { db in
                                    let statement = try db.cachedStatement(sql: UpdateWorkload.updateSQL)
                                    for item in items.value {
                                        item.rank += 1
                                        try statement.execute(arguments: [item.rank, item.id])
                                    }
                                }
                            }
                        }
                    }
                }, check: {
                    try outcome.check(rows: rows, saves: saves)
                    try storeCheck(scratch)
                }, measuredInside: outcome.measurement)
            },
        ]
    }
}

/// What the reader of workload 13 saw: its fetch alone, its longest fetch
/// while the writer saved, and whether every fetch saw whole saves.
final class ReaderOutcome {
    private var alone: Double = 0
    private var longest: Double = 0
    private var fetchesWhileWriting = 0
    private var partialSnapshots = 0
    private var lastSaves = 0

    /// Times `fetchesAlone` fetches, then starts the writer (which raises
    /// the flag when it is done) and fetches until it is done.
    func measure(rows: Int, fetchRanks: () throws -> [Int], startWriter: (Flag) -> Threads.Joinable) throws {
        var times: [Double] = []
        for _ in 0..<ReadersWhileWritingWorkload.fetchesAlone {
            let start = monotonicSeconds()
            let ranks = try fetchRanks()
            times.append(monotonicSeconds() - start)
            record(ranks, rows: rows)
        }
        alone = median(times)
        let done = Flag()
        let writer = startWriter(done)
        repeat {
            let start = monotonicSeconds()
            let ranks = try fetchRanks()
            longest = max(longest, monotonicSeconds() - start)
            fetchesWhileWriting += 1
            record(ranks, rows: rows)
        } while !done.isRaised
        try writer.join()
        record(try fetchRanks(), rows: rows)
    }

    /// Counts a fetch whose rows do not all show the same number of saves.
    private func record(_ ranks: [Int], rows: Int) {
        guard ranks.count == rows, let first = ranks.first else {
            partialSnapshots += 1
            return
        }
        let saves = first - Dataset.rank(1)
        for (index, rank) in ranks.enumerated() where rank != Dataset.rank(index + 1) + saves {
            partialSnapshots += 1
            return
        }
        lastSaves = saves
    }

    /// Throws unless every fetch saw whole saves and the last one all of them.
    func check(rows: Int, saves: Int) throws {
        try expect(partialSnapshots, 0, "fetches that saw part of a save or a wrong row count")
        try expect(lastSaves, saves, "saves seen by the reader's last fetch")
        try expect(fetchesWhileWriting > 0, true, "fetches while the writer saved")
    }

    /// The longest wait (longest fetch less the fetch alone), against the fetch alone.
    func measurement() -> InsideMeasurement {
        InsideMeasurement(seconds: max(0, longest - alone), reference: alone)
    }
}
