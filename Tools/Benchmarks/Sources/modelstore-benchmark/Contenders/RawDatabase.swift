import CSQLiteBench

/// The raw C contender's connection: `sqlite3_open_v2` with the settings
/// ModelStore uses (WAL, synchronous=NORMAL, foreign keys on). Workloads call
/// `sqlite3_bind_*`, `sqlite3_step` and `sqlite3_reset` themselves on the
/// statements this prepares: the fastest straightforward way.
final class RawDatabase {
    let handle: OpaquePointer
    private var beginStatement: OpaquePointer?
    private var beginImmediateStatement: OpaquePointer?
    private var commitStatement: OpaquePointer?

    init(path: String) throws {
        var handle: OpaquePointer?
        let code = sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil)
        guard code == SQLITE_OK, let handle else {
            sqlite3_close_v2(handle)
            throw CheckFailure(description: "sqlite3_open_v2(\(path)) failed: \(code)")
        }
        self.handle = handle
        try execute("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON")
    }

    deinit {
        for statement in [beginStatement, beginImmediateStatement, commitStatement] { sqlite3_finalize(statement) }
        sqlite3_close_v2(handle)
    }

    /// `BEGIN` (a read transaction) or `BEGIN IMMEDIATE` (a write
    /// transaction), through a statement prepared once.
    func begin(immediate: Bool) throws {
        if immediate {
            try run(&beginImmediateStatement, "BEGIN IMMEDIATE")
        } else {
            try run(&beginStatement, "BEGIN")
        }
    }

    /// `COMMIT`, through a statement prepared once.
    func commit() throws {
        try run(&commitStatement, "COMMIT")
    }

    private func run(_ statement: inout OpaquePointer?, _ sql: String) throws {
        if statement == nil { statement = try prepare(sql) }
        try check(sqlite3_step(statement), sql)
        sqlite3_reset(statement)
    }

    /// Runs SQL without results.
    func execute(_ sql: String) throws {
        try check(sqlite3_exec(handle, sql, nil, nil, nil), sql)
    }

    /// A prepared statement; finalize it with `sqlite3_finalize`.
    func prepare(_ sql: String) throws -> OpaquePointer {
        var statement: OpaquePointer?
        try check(sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil), sql)
        guard let statement else { throw CheckFailure(description: "no statement for \(sql)") }
        return statement
    }

    /// The details of `EXPLAIN QUERY PLAN` for a statement, one line per
    /// step of the plan (e.g. `SEARCH t0 USING INDEX Item_rank (rank>? AND
    /// rank<?)`). Parameters stay unbound: SQLite plans without their values.
    func queryPlan(_ sql: String) throws -> [String] {
        let statement = try prepare("EXPLAIN QUERY PLAN " + sql)
        defer { sqlite3_finalize(statement) }
        var details: [String] = []
        while true {
            let code = sqlite3_step(statement)
            guard code == SQLITE_ROW else {
                try check(code, "EXPLAIN QUERY PLAN " + sql)
                return details
            }
            details.append(statement.text(at: 3))
        }
    }

    /// Throws unless `code` is OK, ROW or DONE.
    func check(_ code: Int32, _ what: @autoclosure () -> String) throws {
        guard code == SQLITE_OK || code == SQLITE_ROW || code == SQLITE_DONE else {
            throw CheckFailure(description: "\(what()): \(String(cString: sqlite3_errmsg(handle))) (\(code))")
        }
    }
}

/// SQLite's SQLITE_TRANSIENT: bound text is copied by SQLite.
let SQLITE_TRANSIENT_DESTRUCTOR = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

extension OpaquePointer {
    /// Column `index` of the current row as a Swift String.
    @inline(__always)
    func text(at index: Int32) -> String {
        guard let bytes = sqlite3_column_text(self, index) else { return "" }
        return String(cString: bytes)
    }
}
