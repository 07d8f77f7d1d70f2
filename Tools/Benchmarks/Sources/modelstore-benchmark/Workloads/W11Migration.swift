import CSQLiteBench
import Foundation
import ModelStore

/// 11. Migrate a 1,000,000-row entity through a table rebuild: `Item.rank`
/// becomes optional, which SQLite's ALTER TABLE cannot do. ModelStore infers
/// the migration when the container opens (snapshot off: the raw C contender
/// takes none); raw C runs the same rebuild by hand: foreign keys off, one
/// transaction, new table, `INSERT … SELECT`, drop, rename,
/// `foreign_key_check`, commit. Filling the store is not timed.
struct MigrationWorkload: Workload {
    let number = 11
    let title = "Migrate a table through a rebuild"
    let target = Target.ratio(1.3)

    static let newTableSQL = """
        CREATE TABLE "Item_new" ("_pk" INTEGER PRIMARY KEY AUTOINCREMENT, "number" INTEGER NOT NULL, \
        "name" TEXT NOT NULL, "score" ANY NOT NULL, "rank" INTEGER, "created" REAL NOT NULL, \
        "flag" INTEGER NOT NULL) STRICT
        """
    static let columns = #""_pk", "number", "name", "score", "rank", "created", "flag""#

    /// `Item` with `rank` optional.
    static var migratedSchema: Schema {
        let attributes = Schema.Entity(modelType: Item.self).attributes.map { attribute in
            var copy = attribute
            if copy.name == "rank" { copy.isOptional = true }
            return copy
        }
        return Schema(entities: [Schema.Entity(name: "Item", attributes: attributes)], version: Schema.Version(2, 0, 0))
    }

    func cases(scale: Scale) -> [Case] {
        let n = scale.migrationRows
        let check = { (scratch: Scratch) in
            try Fixture.expectContents(path: scratch.storePath, rows: n, checksum: Dataset.checksum(rows: n))
            let db = try RawDatabase(path: scratch.storePath)
            let statement = try db.prepare(#"SELECT "notnull" FROM pragma_table_info('Item') WHERE name = 'rank'"#)
            defer { sqlite3_finalize(statement) }
            try db.check(sqlite3_step(statement), "table_info")
            try expect(sqlite3_column_int64(statement, 0), 0, "rank is nullable")
        }
        return [
            Case(contender: .modelStore) { scratch in
                try Self.makeStore(scratch, rows: n)
                var configuration = ModelConfiguration(url: scratch.storeURL)
                configuration.migrationOptions.takesSnapshot = false
                return Trial(run: {
                    _ = try ModelContainer(for: Self.migratedSchema, configurations: [configuration])
                }, check: { try check(scratch) })
            },
            Case(contender: .rawC) { scratch in
                try Self.makeStore(scratch, rows: n)
                return Trial(run: {
                    let db = try RawDatabase(path: scratch.storePath)
                    try db.execute("PRAGMA foreign_keys = OFF")
                    try db.begin(immediate: true)
                    try db.execute(Self.newTableSQL)
                    try db.execute(#"INSERT INTO "Item_new" (\#(Self.columns)) SELECT \#(Self.columns) FROM "Item""#)
                    try db.execute(#"DROP TABLE "Item""#)
                    try db.execute(#"ALTER TABLE "Item_new" RENAME TO "Item""#)
                    let statement = try db.prepare("PRAGMA foreign_key_check")
                    let violation = sqlite3_step(statement) == SQLITE_ROW
                    sqlite3_finalize(statement)
                    try expect(violation, false, "foreign key violations")
                    try db.commit()
                    try db.execute("PRAGMA foreign_keys = ON")
                }, check: { try check(scratch) })
            },
        ]
    }

    /// An `Item` store with rows 1...rows, whose container is closed before
    /// the timed part.
    private static func makeStore(_ scratch: Scratch, rows: Int) throws {
        _ = try Fixture.itemStore(scratch, rows: rows)
    }
}
