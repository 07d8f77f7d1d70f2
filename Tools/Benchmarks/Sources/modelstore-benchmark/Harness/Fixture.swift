import CSQLiteBench
import Foundation
import ModelStore

/// Stores that workloads start from, and checks of what a store holds.
///
/// Every contender works on a file that ModelStore created (so the table is
/// exactly ModelStore's: STRICT, AUTOINCREMENT key, one column per
/// attribute), filled by raw C when the workload needs existing rows.
enum Fixture {
    static let insertSQL = #"INSERT INTO "Item" ("number", "name", "score", "rank", "created", "flag") VALUES (?, ?, ?, ?, ?, ?)"#
    static let selectSQL = #"SELECT "_pk", "number", "name", "score", "rank", "created", "flag" FROM "Item""#

    /// Creates a ModelStore store for `Item` in the scratch folder with rows
    /// 1...rows of `Dataset`, and returns its container.
    @discardableResult
    static func itemStore(_ scratch: Scratch, rows: Int) throws -> ModelContainer {
        let container = try ModelContainer(for: Item.self, configurations: ModelConfiguration(url: scratch.storeURL))
        if rows > 0 { try fill(path: scratch.storePath, rows: rows) }
        return container
    }

    /// Inserts rows 1...rows with raw C in one transaction.
    private static func fill(path: String, rows: Int) throws {
        let db = try RawDatabase(path: path)
        let statement = try db.prepare(insertSQL)
        defer { sqlite3_finalize(statement) }
        try db.begin(immediate: true)
        for i in 1...rows {
            sqlite3_bind_int64(statement, 1, Int64(Dataset.number(i)))
            sqlite3_bind_text(statement, 2, Dataset.name(i), -1, SQLITE_TRANSIENT_DESTRUCTOR)
            sqlite3_bind_double(statement, 3, Dataset.score(i))
            sqlite3_bind_int64(statement, 4, Int64(Dataset.rank(i)))
            sqlite3_bind_double(statement, 5, Dataset.created(i))
            sqlite3_bind_int64(statement, 6, Dataset.flag(i) ? 1 : 0)
            try db.check(sqlite3_step(statement), "fill")
            sqlite3_reset(statement)
        }
        try db.commit()
    }

    /// The number of rows in "Item" and the checksum of their values, read
    /// with raw C on a new connection (what was committed).
    static func contents(path: String) throws -> (rows: Int, checksum: Int) {
        let db = try RawDatabase(path: path)
        let statement = try db.prepare(selectSQL)
        defer { sqlite3_finalize(statement) }
        var rows = 0
        var checksum = 0
        while sqlite3_step(statement) == SQLITE_ROW {
            rows += 1
            checksum = checksum &+ Dataset.checksum(
                number: Int(sqlite3_column_int64(statement, 1)), name: statement.text(at: 2),
                score: sqlite3_column_double(statement, 3), rank: Int(sqlite3_column_int64(statement, 4)),
                created: sqlite3_column_double(statement, 5), flag: sqlite3_column_int64(statement, 6) != 0)
        }
        return (rows, checksum)
    }

    /// Throws unless the store holds exactly `rows` rows with this checksum.
    static func expectContents(path: String, rows: Int, checksum: Int) throws {
        let actual = try contents(path: path)
        try expect(actual.rows, rows, "rows in the store")
        try expect(actual.checksum, checksum, "checksum of the stored values")
    }
}
