import CSQLite
import Foundation

/// SQLite's `SQLITE_TRANSIENT`: tells SQLite to copy a bound buffer, because
/// Swift only guarantees the buffer's lifetime during the bind call.
var transientDestructor: sqlite3_destructor_type {
    unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)
}

/// The storage class SQLite reports for one column of the current row.
@usableFromInline
package enum ColumnStorage: Int32, Sendable {
    case integer = 1  // SQLITE_INTEGER
    case real = 2  // SQLITE_FLOAT
    case text = 3  // SQLITE_TEXT
    case blob = 4  // SQLITE_BLOB
    case null = 5  // SQLITE_NULL

    package var name: String {
        switch self {
        case .integer: "INTEGER"
        case .real: "REAL"
        case .text: "TEXT"
        case .blob: "BLOB"
        case .null: "NULL"
        }
    }
}

/// A prepared statement: bind values by 1-based index, step through rows, read
/// columns by 0-based index, reset to run again.
///
/// Binding and reading are typed (Int64, Double, String, Data, NULL) so that no
/// value is boxed on the way in or out. A statement belongs to the connection
/// that prepared it and must not outlive it; the connection's cache keeps both
/// alive together.
///
/// The type is public only because `ColumnValue`'s requirements and the code
/// that `@Model` generates in an app's module name it (the `bindValue`
/// overloads it calls are public too); hidden from the documentation, not
/// API. Its other members are internal to ModelStore.
@_documentation(visibility: internal)
public final class Statement {
    /// The SQLite statement that rows are read from. Never changes on a
    /// SQLite connection; on a foreign one it is the echo of the last run's
    /// rows (see `ForeignStatement`).
    // Unchecked: read for every column, and a statement is confined to its connection.
    @exclusivity(unchecked) @usableFromInline private(set) var handle: OpaquePointer
    /// The SQLite statement that values are bound to: `handle` on a SQLite
    /// connection; on a foreign one an echo without parameters, which
    /// refuses every bind (see Binding). Apart from `handle` so that rewind
    /// needs no foreign case: a branch there, on a save's path for every
    /// row, costs the save more than the branch.
    private let bindHandle: OpaquePointer
    let sql: String
    /// Where the statement runs when the connection's database is not
    /// SQLite; nil on a SQLite connection.
    private let foreign: ForeignStatement?
    unowned let connection: Connection
    /// True between the first `step()` and the next `reset()`; lets the
    /// connection count executions once, not once per row.
    // Unchecked: read per row, and a statement is confined to its connection.
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    private(set) var isRunning = false

    /// Prepares `sql` on `connection`: on its foreign database when it has
    /// one, unless `onSQLiteItself`, which prepares it on the connection's
    /// own SQLite database (on a foreign connection, the private in-memory
    /// one) for SQL that only computes with values.
    init(connection: Connection, sql: String, onSQLiteItself: Bool = false) throws(SQLiteError) {
        if !onSQLiteItself, let database = connection.foreign {
            let foreign = try ForeignStatement(database: database, sql: sql, memory: connection.handle, path: connection.path)
            self.foreign = foreign
            self.handle = foreign.parameters
            self.bindHandle = foreign.parameters
            self.sql = sql
            self.connection = connection
            return
        }
        foreign = nil
        var handle: OpaquePointer?
        let code = sqlite3_prepare_v3(connection.handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &handle, nil)
        guard code == SQLITE_OK, let handle else {
            throw makeError(code, connection.handle, sql: sql, path: connection.path)
        }
        self.handle = handle
        self.bindHandle = handle
        self.sql = sql
        self.connection = connection
    }

    deinit {
        // A foreign statement's echoes are its own to finalize.
        if foreign == nil { sqlite3_finalize(handle) }
    }

    // MARK: Running

    /// Advances to the next row. Returns `true` when a row is available,
    /// `false` when the statement has finished.
    /// - Throws: `SQLiteError` for a constraint failure, a busy database, I/O errors.
    @discardableResult
    package func step() throws(SQLiteError) -> Bool {
        if !isRunning {
            isRunning = true
            connection.statementDidStart(sql)
            if foreign != nil { try startForeign() }
        }
        if foreign != nil { return try stepForeign() }
        let code = sqlite3_step(handle)
        switch code {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            // sqlite3_reset repeats the step's error; call it so that the
            // statement is ready to run again after a failure.
            sqlite3_reset(handle)
            isRunning = false
            throw makeError(code, connection.handle, sql: sql, path: connection.path)
        }
    }

    /// Runs the statement to completion, ignoring any rows.
    /// - Throws: `SQLiteError` as `step()` does.
    package func run() throws(SQLiteError) {
        while try step() {}
        reset()
    }

    /// Makes the statement ready to run again and clears its bindings.
    package func reset() {
        // The step that failed already reported its error; reset's result repeats it.
        sqlite3_reset(handle)
        sqlite3_clear_bindings(bindHandle)
        if let foreign { foreign.clearBindings() }
        isRunning = false
    }

    /// Makes the statement ready to run again, keeping its bindings: for
    /// callers that bind every parameter before each run, to whom clearing
    /// them is only cost (sqlite3_clear_bindings walks every parameter, under
    /// the connection's mutex; about 500 instructions per inserted row).
    @inline(__always)
    func rewind() {
        sqlite3_reset(handle)
        isRunning = false
    }

    // MARK: A foreign database's statement (see ForeignDatabase.swift)
    // Out of line, so that the SQLite path's step stays as small as it was.
    // Reset and rewind reset the row echo (`handle`) and leave the foreign
    // run in place: the next run replaces it (see `ForeignRows`).

    @inline(never)
    private func startForeign() throws(SQLiteError) {
        guard let foreign else { return }
        do {
            handle = try foreign.start(sql: sql, memory: connection.handle, path: connection.path)
        } catch {
            isRunning = false
            throw error
        }
    }

    @inline(never)
    private func stepForeign() throws(SQLiteError) -> Bool {
        guard let foreign else { return false }
        do {
            return try foreign.advance(sql: sql, memory: connection.handle, path: connection.path)
        } catch {
            foreign.finish()
            isRunning = false
            throw error
        }
    }

    // MARK: Binding (1-based indexes)
    // On a foreign connection `bindHandle` is an echo without parameters,
    // so every bind is refused as out of range, and the refusal hands the
    // value to the foreign statement (`bindingRefused`): SQLite's path pays
    // nothing for the seam, and a foreign statement's values are kept as
    // they came, never copied into SQLite and read back.

    package func bind(_ value: Int64, at index: Int32) throws(SQLiteError) {
        let code = sqlite3_bind_int64(bindHandle, index, value)
        guard code == SQLITE_OK else { return try bindingRefused(code, .integer(value), at: index) }
    }

    package func bind(_ value: Double, at index: Int32) throws(SQLiteError) {
        let code = sqlite3_bind_double(bindHandle, index, value)
        guard code == SQLITE_OK else { return try bindingRefused(code, .real(value), at: index) }
    }

    package func bind(_ value: String, at index: Int32) throws(SQLiteError) {
        var value = value
        let code = value.withUTF8 { buffer in
            // An empty buffer may have no base address, and SQLite binds a NULL
            // pointer as SQL NULL; an empty string must stay an empty string.
            guard let base = buffer.baseAddress else {
                return sqlite3_bind_text(bindHandle, index, "", 0, transientDestructor)
            }
            return sqlite3_bind_text(bindHandle, index, UnsafeRawPointer(base).assumingMemoryBound(to: CChar.self), Int32(buffer.count), transientDestructor)
        }
        guard code == SQLITE_OK else { return try bindingRefused(code, .text(value), at: index) }
    }

    package func bind(_ value: Data, at index: Int32) throws(SQLiteError) {
        let code = value.withUnsafeBytes { buffer in
            // A zero-length blob, not NULL, for empty Data.
            guard let base = buffer.baseAddress else {
                return sqlite3_bind_zeroblob(bindHandle, index, 0)
            }
            return sqlite3_bind_blob(bindHandle, index, base, Int32(buffer.count), transientDestructor)
        }
        guard code == SQLITE_OK else { return try bindingRefused(code, .blob(value), at: index) }
    }

    func bindNull(at index: Int32) throws(SQLiteError) {
        let code = sqlite3_bind_null(bindHandle, index)
        guard code == SQLITE_OK else { return try bindingRefused(code, .null, at: index) }
    }

    /// A bind SQLite refused: on a foreign statement, the value it keeps
    /// (when `index` is one of its parameters); else the error. Out of
    /// line and only reached on refusal, so that the binds a save makes
    /// neither build the value nor read the connection (an unowned
    /// reference, a retain and a release) or the SQL.
    @inline(never)
    private func bindingRefused(_ code: Int32, _ value: SQLiteValue, at index: Int32) throws(SQLiteError) {
        if let foreign, code == SQLITE_RANGE, foreign.keep(value, at: index) { return }
        throw makeError(code, connection.handle, sql: sql, path: nil)
    }

    /// Binds a dynamically typed value; used by code that handles values
    /// whose type is only known at run time (schema records, the CLI).
    package func bind(_ value: SQLiteValue, at index: Int32) throws(SQLiteError) {
        switch value {
        case .null: try bindNull(at: index)
        case .integer(let v): try bind(v, at: index)
        case .real(let v): try bind(v, at: index)
        case .text(let v): try bind(v, at: index)
        case .blob(let v): try bind(v, at: index)
        }
    }

    // MARK: Reading (0-based column indexes)

    /// The result's columns. On a foreign connection the result's columns
    /// are known once it runs: before the first step they are the echo's.
    package var columnCount: Int32 { sqlite3_column_count(handle) }

    package func columnName(_ column: Int32) -> String {
        sqlite3_column_name(handle, column).map { String(cString: $0) } ?? ""
    }

    /// True when column `column` of the current row is NULL.
    @usableFromInline
    func isNull(at column: Int32) -> Bool {
        sqlite3_column_type(handle, column) == SQLITE_NULL
    }

    package func storage(at column: Int32) -> ColumnStorage {
        ColumnStorage(rawValue: sqlite3_column_type(handle, column)) ?? .null
    }

    package func int64(at column: Int32) -> Int64 {
        sqlite3_column_int64(handle, column)
    }

    func double(at column: Int32) -> Double {
        sqlite3_column_double(handle, column)
    }

    package func string(at column: Int32) -> String {
        guard let text = sqlite3_column_text(handle, column) else { return "" }
        let count = Int(sqlite3_column_bytes(handle, column))
        return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
    }

    func data(at column: Int32) -> Data {
        guard let bytes = sqlite3_column_blob(handle, column) else { return Data() }
        let count = Int(sqlite3_column_bytes(handle, column))
        return Data(bytes: bytes, count: count)
    }

    /// One column of the current row, read through its `sqlite3_value`.
    ///
    /// Each `sqlite3_column_*` call checks the column index and the
    /// connection's error state again; a typed read asks for the storage
    /// class and then the value, so reading both from one cell halves that
    /// work. (SQLite calls such values unprotected: safe only while one thread
    /// uses the connection, which the connection's confinement guarantees.)
    @inlinable
    func cell(at column: Int32) -> ColumnCell {
        ColumnCell(value: sqlite3_column_value(handle, column))
    }

    /// Reads a column as a dynamically typed value.
    package func value(at column: Int32) -> SQLiteValue {
        switch storage(at: column) {
        case .null: .null
        case .integer: .integer(int64(at: column))
        case .real: .real(double(at: column))
        case .text: .text(string(at: column))
        case .blob: .blob(data(at: column))
        }
    }
}

/// One column of a statement's current row; valid until the statement steps
/// or resets. See `Statement.cell(at:)`.
///
/// Inlinable, as the common values' decoding is: the initializer `@Model`
/// generates reads every column through it.
@usableFromInline
struct ColumnCell {
    @usableFromInline let value: OpaquePointer?

    @inlinable
    init(value: OpaquePointer?) {
        self.value = value
    }

    /// SQLite's code for the storage class (`SQLITE_INTEGER`...; NULL also
    /// when there is no value).
    @inlinable
    var typeCode: Int32 {
        guard let value else { return SQLITE_NULL }
        return sqlite3_value_type(value)
    }

    @usableFromInline
    var storage: ColumnStorage { ColumnStorage(rawValue: typeCode) ?? .null }

    @inlinable
    var int64: Int64 { value.map(sqlite3_value_int64) ?? 0 }

    @inlinable
    var double: Double { value.map(sqlite3_value_double) ?? 0 }

    @inlinable
    var string: String {
        guard let value, let text = sqlite3_value_text(value) else { return "" }
        let count = Int(sqlite3_value_bytes(value))
        return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
    }

    var data: Data {
        guard let value, let bytes = sqlite3_value_blob(value) else { return Data() }
        return Data(bytes: bytes, count: Int(sqlite3_value_bytes(value)))
    }
}

/// One SQLite value with its storage class, for code whose types are only
/// known at run time. Typed models never go through it.
public enum SQLiteValue: Hashable, Sendable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob(Data)
}
