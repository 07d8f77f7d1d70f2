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
    /// The fixture's rows, as ModelStore's own saves write them: a new row's
    /// version is 2 (see the store format's `_version`), so that updating it
    /// keeps the record's size. Contenders that insert use `insertSQL`.
    static let fillSQL = #"INSERT INTO "Item" ("number", "name", "score", "rank", "created", "flag", "_version") VALUES (?, ?, ?, ?, ?, ?, 2)"#
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
        let statement = try db.prepare(fillSQL)
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

    /// Workload 6's index on `Item.rank`. The `Item` model cannot declare
    /// an index yet (`#Index` is being added on another branch), so the
    /// index is created with plain SQL on the store file after ModelStore
    /// created it, the same for every contender.
    static let rankIndexSQL = #"CREATE INDEX "Item_rank" ON "Item" ("rank")"#

    /// Creates `rankIndexSQL`'s index with raw C.
    static func createRankIndex(path: String) throws {
        let db = try RawDatabase(path: path)
        try db.execute(rankIndexSQL)
    }

    static let insertParentSQL = #"INSERT INTO "Parent" ("name") VALUES (?)"#
    static let insertChildSQL = #"INSERT INTO "Child" ("name", "value", "parent", "_parent_order") VALUES (?, ?, ?, ?)"#

    /// Creates a ModelStore store for `Parent` and `Child` in the scratch
    /// folder with parents 1...parents of `FamilyDataset`, each with
    /// `childrenPerParent` children, and returns its container.
    @discardableResult
    static func familyStore(_ scratch: Scratch, parents: Int, childrenPerParent: Int) throws -> ModelContainer {
        let container = try ModelContainer(
            for: Parent.self, Child.self, configurations: ModelConfiguration(url: scratch.storeURL))
        if parents > 0 { try fillFamilies(path: scratch.storePath, parents: parents, childrenPerParent: childrenPerParent) }
        return container
    }

    /// Inserts the parents with raw C in one transaction, each followed by
    /// its children ("_parent_order" is the child's position).
    private static func fillFamilies(path: String, parents: Int, childrenPerParent: Int) throws {
        let db = try RawDatabase(path: path)
        let parentStatement = try db.prepare(insertParentSQL)
        defer { sqlite3_finalize(parentStatement) }
        let childStatement = try db.prepare(insertChildSQL)
        defer { sqlite3_finalize(childStatement) }
        try db.begin(immediate: true)
        for i in 1...parents {
            sqlite3_bind_text(parentStatement, 1, FamilyDataset.parentName(i), -1, SQLITE_TRANSIENT_DESTRUCTOR)
            try db.check(sqlite3_step(parentStatement), "fill parents")
            sqlite3_reset(parentStatement)
            let key = sqlite3_last_insert_rowid(db.handle)
            for j in 0..<childrenPerParent {
                sqlite3_bind_text(childStatement, 1, FamilyDataset.childName(i, j), -1, SQLITE_TRANSIENT_DESTRUCTOR)
                sqlite3_bind_int64(childStatement, 2, Int64(FamilyDataset.childValue(i, j)))
                sqlite3_bind_int64(childStatement, 3, key)
                sqlite3_bind_int64(childStatement, 4, Int64(j))
                try db.check(sqlite3_step(childStatement), "fill children")
                sqlite3_reset(childStatement)
            }
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
