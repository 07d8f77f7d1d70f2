import CSQLiteBench

/// The statements that SQLite runs on connections opened while recording,
/// seen through SQLite itself, so that a check can look at the SQL ModelStore
/// really ran without reaching into its internals.
///
/// ModelStore links the same libsqlite3 as this tool. While `recording` runs,
/// an auto-extension (`sqlite3_auto_extension`: process-wide, called for
/// every connection opened while it is registered) installs a
/// `SQLITE_TRACE_PROFILE` callback on each new connection; the callback
/// records every statement's SQL text and full-scan steps when it finishes.
/// Only for untimed checks, on one thread: the runner runs nothing else
/// meanwhile.
enum StatementTrace {
    /// One statement that ran to completion (or was reset).
    struct Record {
        /// The SQL text as prepared, with its parameters (`?1`, …) unexpanded.
        let sql: String
        /// `SQLITE_STMTSTATUS_FULLSCAN_STEP`: steps forward through a table
        /// in a full scan (0 when every table was searched through an index
        /// or by key).
        let fullScanSteps: Int
    }

    /// What the callback recorded; only touched from the runner's thread.
    nonisolated(unsafe) private static var records: [Record] = []

    private typealias TraceCallback = @convention(c) (
        UInt32, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?
    ) -> Int32

    private static let traceCallback: TraceCallback = { type, _, statement, _ in
        guard type == UInt32(SQLITE_TRACE_PROFILE), let statement else { return 0 }
        let handle = OpaquePointer(statement)
        StatementTrace.records.append(Record(
            sql: sqlite3_sql(handle).map { String(cString: $0) } ?? "",
            fullScanSteps: Int(sqlite3_stmt_status(handle, SQLITE_STMTSTATUS_FULLSCAN_STEP, 0))))
        return 0
    }

    /// An extension entry point's real signature: `int (sqlite3 *, char **,
    /// const sqlite3_api_routines *)`. SQLite declares the pointer as
    /// `void (*)(void)` and calls it with these arguments.
    private typealias EntryPoint = @convention(c) (
        OpaquePointer?, UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, UnsafeRawPointer?
    ) -> Int32

    private static let installTrace: EntryPoint = { connection, _, _ in
        sqlite3_trace_v2(connection, UInt32(SQLITE_TRACE_PROFILE), StatementTrace.traceCallback, nil)
    }

    /// `installTrace` as `sqlite3_auto_extension` takes it; registering and
    /// cancelling must pass the same pointer.
    private static let entryPoint = unsafeBitCast(installTrace, to: (@convention(c) () -> Void).self)

    /// Runs `body` and returns what it returned with the statements that ran
    /// on connections it opened, in the order they finished. Connections
    /// opened before `body` are not traced; those it opens stay traced, so
    /// it should let them go before it returns.
    static func recording<T>(_ body: () throws -> T) throws -> (result: T, statements: [Record]) {
        records = []
        let code = sqlite3_auto_extension(entryPoint)
        guard code == SQLITE_OK else {
            throw CheckFailure(description: "sqlite3_auto_extension failed: \(code)")
        }
        defer {
            sqlite3_cancel_auto_extension(entryPoint)
            records = []
        }
        let result = try body()
        return (result, records)
    }
}
