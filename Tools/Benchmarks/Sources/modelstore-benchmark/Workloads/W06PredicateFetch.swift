import CSQLiteBench
import Foundation
import GRDB
import ModelStore

/// 6. Fetch 1% of 1,000,000 rows with a predicate into a context where none
/// is registered, in two variants listed under the same number:
///
/// - `.index`: `rank >= 500 && rank < 510` through the index on `rank`
///   (`Fixture.rankIndexSQL`): 10 of every 1,000 rows, spread over the table.
/// - `.scan`: `number >= N/2 && number < N/2 + N/100` on `number`, which has
///   no index: every row is read to find 1% of them.
///
/// ModelStore runs `context.fetch` with a `#Predicate` (one SQL statement
/// with bound values). Raw C and GRDB Statement run the same SQL written by
/// hand; since ModelStore always ends its ORDER BY with the row key, so does
/// the hand-written SQL, and every contender gets the same rows in the same
/// order. GRDB Record uses its query interface (`filter`, `order`).
///
/// Untimed, after the timed part: ModelStore's statement, traced in SQLite
/// (`StatementTrace`), must search through the index with no full-scan step
/// in the `.index` variant, and scan the table in the `.scan` variant; the
/// raw C SQL's plan must do the same.
struct PredicateFetchWorkload: Workload {
    enum Path {
        /// Through the index on `rank`.
        case index
        /// Through `number`, which has no index: a full table scan.
        case scan
    }

    let number = 6
    let title: String
    let target = Target.ratio(1.5)
    let path: Path
    /// Rows in the store.
    let rows: Int

    init(path: Path, rows: Int) {
        self.path = path
        self.rows = rows
        title = "Predicate fetch 1% of \(formatCount(rows)), " + (path == .index ? "index" : "no index")
    }

    /// The attribute the predicate tests.
    private var column: String { path == .index ? "rank" : "number" }

    /// The selected values of that attribute: `lower..<upper`.
    private var bounds: (lower: Int, upper: Int) {
        switch path {
        case .index: (500, 510)
        case .scan: (rows / 2, rows / 2 + max(1, rows / 100))
        }
    }

    /// True when the predicate selects row `i` of `Dataset`.
    private func selects(row i: Int) -> Bool {
        let value = path == .index ? Dataset.rank(i) : Dataset.number(i)
        return value >= bounds.lower && value < bounds.upper
    }

    /// ModelStore's query.
    private func descriptor() -> FetchDescriptor<Item> {
        let (lower, upper) = bounds
        switch path {
        case .index: return FetchDescriptor(predicate: #Predicate { $0.rank >= lower && $0.rank < upper })
        case .scan: return FetchDescriptor(predicate: #Predicate { $0.number >= lower && $0.number < upper })
        }
    }

    /// The hand-written SQL of raw C and GRDB Statement, bound to `bounds`.
    private var sql: String {
        Fixture.selectSQL + #" WHERE "\#(column)" >= ? AND "\#(column)" < ? ORDER BY "_pk""#
    }

    func cases(scale: Scale) -> [Case] {
        let n = rows
        let (lower, upper) = bounds
        var expectedCount = 0
        var expectedChecksum = 0
        for i in 1...n where selects(row: i) {
            expectedCount += 1
            expectedChecksum = expectedChecksum &+ Dataset.checksum(row: i)
        }
        func check(numbers: [Int], checksum: Int) throws {
            try expect(numbers.count, expectedCount, "fetched objects")
            try expect(checksum, expectedChecksum, "checksum of the fetched values")
            try expect(zip(numbers, numbers.dropFirst()).allSatisfy { $0 < $1 }, true, "objects in row order")
        }
        @discardableResult
        func store(_ scratch: Scratch) throws -> ModelContainer {
            let container = try Fixture.itemStore(scratch, rows: n)
            try Fixture.createRankIndex(path: scratch.storePath)
            return container
        }
        let sql = sql
        return [
            Case(contender: .modelStore) { scratch in
                let container = try store(scratch)
                let context = ModelContext(container)
                _ = try context.fetchCount(FetchDescriptor<Item>())  // opens the connection, registers nothing
                var items: [Item] = []
                return Trial(run: {
                    items = try context.fetch(descriptor())
                }, check: {
                    try check(numbers: items.map(\.number), checksum: items.reduce(0) { $0 &+ Dataset.checksum($1) })
                    try expectModelStorePlan(container: container, path: scratch.storePath, expectedCount: expectedCount)
                })
            },
            Case(contender: .rawC) { scratch in
                try store(scratch)
                let db = try RawDatabase(path: scratch.storePath)
                var items: [PlainItem] = []
                return Trial(run: {
                    let statement = try db.prepare(sql)
                    defer { sqlite3_finalize(statement) }
                    sqlite3_bind_int64(statement, 1, Int64(lower))
                    sqlite3_bind_int64(statement, 2, Int64(upper))
                    while true {
                        let code = sqlite3_step(statement)
                        guard code == SQLITE_ROW else {
                            try db.check(code, "predicate fetch")
                            break
                        }
                        items.append(RawItems.read(statement))
                    }
                }, check: {
                    try check(numbers: items.map(\.number), checksum: items.reduce(0) { $0 &+ Dataset.checksum($1) })
                    try expectPlan(try db.queryPlan(sql), fullScanSteps: nil, of: "raw C's SQL")
                })
            },
            Case(contender: .grdbStatement) { scratch in
                try store(scratch)
                let queue = try openGRDB(path: scratch.storePath)
                var items: [PlainItem] = []
                return Trial(run: {
                    items = try queue.read { db in
                        var items: [PlainItem] = []
                        let rows = try Row.fetchCursor(db.cachedStatement(sql: sql), arguments: [lower, upper])
                        while let row = try rows.next() { items.append(GRDBItems.read(row)) }
                        return items
                    }
                }, check: {
                    try check(numbers: items.map(\.number), checksum: items.reduce(0) { $0 &+ Dataset.checksum($1) })
                })
            },
            Case(contender: .grdbRecord) { scratch in
                try store(scratch)
                let queue = try openGRDB(path: scratch.storePath)
                let attribute = Column(column)
                var items: [ItemRecord] = []
                return Trial(run: {
                    items = try queue.read { db in
                        try ItemRecord.filter(attribute >= lower && attribute < upper).order(Column("_pk")).fetchAll(db)
                    }
                }, check: {
                    try check(numbers: items.map(\.number), checksum: items.reduce(0) { $0 &+ Dataset.checksum($1) })
                })
            },
        ]
    }

    /// Fetches again in a new context while tracing SQLite, finds the
    /// statement ModelStore ran, and checks its plan and how it stepped.
    private func expectModelStorePlan(container: ModelContainer, path storePath: String, expectedCount: Int) throws {
        let (count, statements) = try StatementTrace.recording {
            try ModelContext(container).fetch(descriptor()).count
        }
        try expect(count, expectedCount, "objects fetched while tracing")
        let selects = statements.filter { $0.sql.hasPrefix("SELECT") && $0.sql.contains(#"FROM "Item""#) && $0.sql.contains(" WHERE ") }
        guard let statement = selects.last else {
            throw CheckFailure(description: "no SELECT … WHERE of Item among ModelStore's statements: \(statements.map(\.sql))")
        }
        let plan = try RawDatabase(path: storePath).queryPlan(statement.sql)
        try expectPlan(plan, fullScanSteps: statement.fullScanSteps, of: "ModelStore's SQL \(statement.sql)")
    }

    /// `.index`: a search through the index, and no step of a full scan
    /// when the statement ran. `.scan`: a scan of the table, and one step
    /// per row but the last.
    private func expectPlan(_ plan: [String], fullScanSteps: Int?, of what: String) throws {
        let usesIndex = plan.contains { $0.contains("INDEX Item_rank") }
        let scans = plan.contains { $0.hasPrefix("SCAN ") }
        switch path {
        case .index:
            try expect(usesIndex && !scans, true, "\(what) searches the index (plan: \(plan))")
            if let fullScanSteps { try expect(fullScanSteps, 0, "full-scan steps of \(what)") }
        case .scan:
            try expect(scans && !usesIndex, true, "\(what) scans the table (plan: \(plan))")
            if let fullScanSteps { try expect(fullScanSteps, rows - 1, "full-scan steps of \(what)") }
        }
    }
}
