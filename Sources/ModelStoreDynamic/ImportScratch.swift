import Foundation
import ModelStore

// What an import must remember per record (the keys of the file and their
// new keys, the links until every row exists, the unique values seen, the
// upsert matches, the lists on the other side of the links, the rows it
// inserted) lives in TEMP tables of the import's own connection, not in
// Swift collections, so that an import's memory does not grow with its
// records: SQLite keeps a temp database's pages in its page cache (bounded
// by its cache_size) and spills the rest to a temporary file.
//
// Invariants:
// - Every table is in the `temp` schema, which SQLite keeps apart from the
//   store's file (in memory or in a temporary file that is deleted when it
//   closes): nothing of an import's bookkeeping can land in the user's store.
// - Every statement names its table with the `temp.` qualifier, so that a
//   table of the store with the same name is never read or written.
// - The tables exist only during one import: `ImportScratch.init` drops
//   leftovers and creates them empty, `close` finalizes the statements that
//   use them and drops them, whether the import succeeded or failed.

/// The temporary tables of one import, and the statements that use them.
final class ImportScratch {
    /// The prefix of every table an import makes in the `temp` schema.
    static let prefix = "modelstore_import_"

    /// The tables, by their name without the prefix, with their columns.
    private static let tables: [(name: String, definition: String)] = [
        // One row per record accepted by the check, in file order: its key
        // in the file, its new key once written, the object of the store an
        // upsert matched.
        ("records", "(seq INTEGER PRIMARY KEY, entity TEXT NOT NULL, key INTEGER NOT NULL, new_key INTEGER, match INTEGER, UNIQUE (entity, key))"),
        // One row per to-one target, per to-many (kind 2, no target: a
        // to-many given empty is still set) and per to-many member (kind 1),
        // in file order; keys as the file gives them.
        ("links", "(seq INTEGER PRIMARY KEY, holder_entity TEXT NOT NULL, holder_key INTEGER NOT NULL, relationship TEXT NOT NULL, kind INTEGER NOT NULL, target_entity TEXT, target_key INTEGER, line INTEGER)"),
        // The values of each uniqueness rule seen in the file, encoded as
        // SQLite compares them (`StoredKey`), with the record that holds them.
        ("unique_values", "(rule TEXT NOT NULL, value BLOB NOT NULL, owner_entity TEXT NOT NULL, owner_key INTEGER NOT NULL, PRIMARY KEY (rule, value)) WITHOUT ROWID"),
        // Required values that upserted records leave out: problems only if
        // the record matches no object.
        ("deferred", "(seq INTEGER PRIMARY KEY, entity TEXT NOT NULL, key INTEGER NOT NULL, property TEXT NOT NULL, line INTEGER)"),
        // The rows the import inserted (`InsertedRows`).
        ("inserted", "(entity TEXT NOT NULL, key INTEGER NOT NULL, PRIMARY KEY (entity, key)) WITHOUT ROWID"),
        // `InverseChanges`: the lists touched, in order; those set explicitly;
        // every member appended to a list, in order, repeats included.
        ("touched", "(seq INTEGER PRIMARY KEY, entity TEXT NOT NULL, relationship TEXT NOT NULL, holder INTEGER NOT NULL, UNIQUE (entity, relationship, holder))"),
        ("explicit", "(entity TEXT NOT NULL, relationship TEXT NOT NULL, holder INTEGER NOT NULL, PRIMARY KEY (entity, relationship, holder)) WITHOUT ROWID"),
        ("appended", "(seq INTEGER PRIMARY KEY, list INTEGER NOT NULL, member INTEGER NOT NULL)"),
    ]

    private static let indexes = [
        "CREATE INDEX temp.\"\(prefix)records_match\" ON \"\(prefix)records\" (entity, match) WHERE match IS NOT NULL",
        "CREATE INDEX temp.\"\(prefix)appended_list\" ON \"\(prefix)appended\" (list, member, seq)",
    ]

    let connection: Connection
    private var statements: [String: Statement] = [:]
    /// The SQL of the statements `forEachRow` is stepping through: a query
    /// run again inside its own loop gets a statement of its own.
    private var stepping: Set<String> = []

    /// Creates the tables, empty, on `connection` (dropping any left by an
    /// import that could not drop them).
    /// - Throws: `SQLiteError`.
    init(connection: Connection) throws {
        self.connection = connection
        try dropTables()
        for table in Self.tables {
            try connection.execute("CREATE TEMP TABLE \(Self.table(table.name)) \(table.definition)")
        }
        for index in Self.indexes { try connection.execute(index) }
    }

    /// `temp."modelstore_import_NAME"`: a table's qualified, quoted name.
    static func table(_ name: String) -> String { "temp." + quoteIdentifier(prefix + name) }

    /// The statement for `sql`, prepared once per import; reset, its
    /// bindings cleared. Not the connection's cache: `close` must finalize
    /// every statement that reads a table before it can drop it.
    /// - Throws: `SQLiteError` when the SQL does not compile.
    func statement(_ sql: String) throws -> Statement {
        if stepping.contains(sql) { return try connection.prepare(sql) }
        if let statement = statements[sql] {
            statement.reset()
            return statement
        }
        let statement = try connection.prepare(sql)
        statements[sql] = statement
        return statement
    }

    /// Runs `sql` with `values` bound (Int64, String or nil) and no rows read.
    /// - Throws: `SQLiteError`.
    func run(_ sql: String, _ values: [ScratchValue]) throws {
        let statement = try statement(sql)
        defer { statement.reset() }
        try bind(values, to: statement)
        try statement.run()
    }

    /// Calls `body` with each row of `sql` run with `values` bound.
    /// - Throws: `SQLiteError`; what `body` throws.
    func forEachRow(_ sql: String, _ values: [ScratchValue] = [], _ body: (Statement) throws -> Void) throws {
        let statement = try statement(sql)
        let nested = !stepping.insert(sql).inserted
        defer {
            statement.reset()
            if !nested { stepping.remove(sql) }
        }
        try bind(values, to: statement)
        while try statement.step() { try body(statement) }
    }

    /// The first column of the first row of `sql`, or nil when it has no row
    /// or the column is NULL.
    /// - Throws: `SQLiteError`.
    func int64(_ sql: String, _ values: [ScratchValue]) throws -> Int64? {
        let statement = try statement(sql)
        defer { statement.reset() }
        try bind(values, to: statement)
        guard try statement.step(), statement.storage(at: 0) != .null else { return nil }
        return statement.int64(at: 0)
    }

    private func bind(_ values: [ScratchValue], to statement: Statement) throws {
        for (index, value) in values.enumerated() {
            switch value {
            case .integer(let number): try statement.bind(number, at: Int32(index + 1))
            case .text(let text): try statement.bind(text, at: Int32(index + 1))
            case .blob(let data): try statement.bind(data, at: Int32(index + 1))
            case .null: try statement.bind(SQLiteValue.null, at: Int32(index + 1))
            }
        }
    }

    /// Finalizes the statements and drops the tables. Safe to call twice.
    func close() {
        statements = [:]
        try? dropTables()
    }

    deinit { close() }

    private func dropTables() throws {
        // The indexes go with their tables.
        for table in Self.tables { try connection.execute("DROP TABLE IF EXISTS \(Self.table(table.name))") }
    }

    /// The names of the objects in the connection's temp schema: none once
    /// an import has ended (for tests).
    static func temporaryObjects(on connection: Connection) throws -> [String] {
        let statement = try connection.prepare("SELECT name FROM sqlite_temp_schema ORDER BY name")
        var names: [String] = []
        while try statement.step() { names.append(statement.string(at: 0)) }
        return names
    }
}

/// A value bound to a scratch statement.
enum ScratchValue {
    case integer(Int64)
    case text(String)
    case blob(Data)
    case null
}

extension ScratchValue: ExpressibleByIntegerLiteral, ExpressibleByStringLiteral {
    init(integerLiteral value: Int64) { self = .integer(value) }
    init(stringLiteral value: String) { self = .text(value) }
}

extension ScratchValue {
    /// An optional number: NULL when nil.
    static func optional(_ value: Int64?) -> ScratchValue { value.map(ScratchValue.integer) ?? .null }
    /// An optional line number: NULL when nil.
    static func line(_ value: Int?) -> ScratchValue { value.map { .integer(Int64($0)) } ?? .null }
}

/// The rows the write transaction in progress inserted: linking them
/// completes their insert and does not count as another write of the row.
/// In a set for an edit; in the scratch table `inserted` for an import,
/// which may insert any number of rows.
struct InsertedRows {
    private var rows: Set<ObjectID> = []
    private let scratch: ImportScratch?

    /// An empty set in memory.
    init() { scratch = nil }

    /// An empty set in `scratch`'s table.
    init(spillingTo scratch: ImportScratch) { self.scratch = scratch }

    /// Adds a row.
    /// - Throws: `SQLiteError` writing the scratch table.
    mutating func insert(_ id: ObjectID) throws {
        guard let scratch else {
            rows.insert(id)
            return
        }
        try scratch.run("INSERT OR IGNORE INTO \(ImportScratch.table("inserted")) (entity, key) VALUES (?, ?)", [.text(id.entity), .integer(id.key)])
    }

    /// True when the transaction inserted the row.
    /// - Throws: `SQLiteError` reading the scratch table.
    func contains(_ id: ObjectID) throws -> Bool {
        guard let scratch else { return rows.contains(id) }
        return try scratch.int64("SELECT 1 FROM \(ImportScratch.table("inserted")) WHERE entity = ? AND key = ?", [.text(id.entity), .integer(id.key)]) != nil
    }
}
