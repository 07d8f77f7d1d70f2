import CSQLite
import Foundation

/// A database other than SQLite (PostgreSQL) that a `Connection` runs its
/// statements on, while the library above keeps binding and reading through
/// `Statement` exactly as it does for SQLite: the backend seam.
///
/// SQLite's values are the seam's format. A statement's bound values are
/// kept as `SQLiteValue`s as they are bound (SQLite refuses each bind into
/// the statement's parameterless stand-in, and the refusal hands the value
/// over) and passed to `run(_:parameters:)`; the foreign database binds
/// each row it returns, straight from its own form, into a small SQLite
/// statement (`SELECT ?1, ?2, …`, see `ForeignRow`), which is stepped, so
/// that the generated `init(_$row:)`, `PersistentRow` and every typed read
/// see an ordinary SQLite row. The SQLite path is untouched but for a nil
/// check per step and per reset; a foreign database pays a bind per value
/// and a step per row it returns, small beside a network round trip.
///
/// The SQL is the library's, written for SQLite with `?` and `?NNN`
/// placeholders; translating it (placeholders, types, functions) is the
/// foreign database's job. So is mapping its errors to `SQLiteError`'s
/// codes (a unique violation to `SQLITE_CONSTRAINT_UNIQUE`, a
/// serialization failure or a lock timeout to `SQLITE_BUSY`), since the
/// library classifies errors by those codes, with its own message and
/// `SQLiteError.origin` naming itself and its own code, so that the text
/// an app shows says which engine refused.
///
/// A foreign database belongs to one connection, and is used in that
/// connection's isolation domain only.
package protocol ForeignDatabase: AnyObject {
    /// A name for errors: the server and database, never a password.
    var displayName: String { get }

    /// Runs one statement with its bound parameters (index 0 is `?1`) and
    /// returns its rows.
    /// - Throws: `SQLiteError` naming the SQL, with SQLite's code for the kind of failure.
    func run(_ sql: String, parameters: [SQLiteValue]) throws(SQLiteError) -> any ForeignRows

    /// Runs SQL text that binds nothing and may hold several statements
    /// (`BEGIN IMMEDIATE TRANSACTION`, `COMMIT TRANSACTION`, DDL).
    /// - Throws: `SQLiteError` naming the SQL.
    func execute(_ sql: String) throws(SQLiteError)

    /// False inside a transaction (SQLite's autocommit mode is true).
    var isAutocommit: Bool { get }

    /// The rows the last INSERT, UPDATE or DELETE changed.
    var changes: Int { get }

    /// The key of the row the last successful INSERT added.
    var lastInsertRowID: Int64 { get }

    /// Lets the database hold back the save's plain INSERTs and
    /// version-checked UPDATEs and send many rows in one statement, until
    /// `sendDeferredWrites()` or the transaction's end (see
    /// ForeignDatabase+DeferredWrites.swift); `insertCounts` is how many
    /// rows the save inserts into each table that fills its own key.
    /// Optional: the default holds nothing back.
    /// - Throws: `SQLiteError` when the keys cannot be reserved.
    func deferWrites(insertCounts: [String: Int]) throws(SQLiteError)

    /// Sends every write held back, and returns the version-checked UPDATEs
    /// among them that changed no row (their row's version moved, or the
    /// row is gone: a conflict).
    /// - Throws: `DeferredWriteFailure` naming the table when a held-back
    ///   write fails; the transaction is then to be rolled back.
    func sendDeferredWrites() throws(DeferredWriteFailure) -> [DeferredWriteMiss]
}

/// The result of one `ForeignDatabase.run`: column names, then rows one at
/// a time.
///
/// The library may stop reading before the last row (a reset, a statement
/// that read what it needed) without a word: the result is released when the
/// same statement runs again or goes away. So a foreign database reads a
/// result whole before it returns, or makes sure an abandoned one holds
/// nothing that blocks the connection's next statement.
package protocol ForeignRows: AnyObject {
    /// The result's column names, in order; empty for a statement without rows.
    var columnNames: [String] { get }

    /// Binds the next row's values into `row`, one per column in order
    /// (column 0 at index 1, each index once), and returns true; false
    /// after the last row, binding nothing.
    /// - Throws: `SQLiteError` when the rest of the result cannot be read.
    func bindNext(into row: inout ForeignRow) throws(SQLiteError) -> Bool
}

/// The SQLite row a foreign result's row is bound into (the row echo,
/// `SELECT ?1, ?2, …` as wide as the result's columns), written straight
/// from the foreign database's own form: a text value's bytes are copied
/// once, into SQLite, with no `String` or `SQLiteValue` made on the way.
///
/// A bind never throws here: the first failure's code is kept, and
/// `ForeignStatement` reports it (and a row that bound a value count other
/// than its columns') once the row is bound.
package struct ForeignRow {
    fileprivate let statement: OpaquePointer
    /// SQLite's code for the first bind that failed; SQLITE_OK while none has.
    fileprivate private(set) var failure: Int32 = SQLITE_OK
    /// How many values were bound since the row began.
    fileprivate private(set) var boundCount: Int32 = 0

    fileprivate init(statement: OpaquePointer) {
        self.statement = statement
    }

    /// Binds `value` as column `index - 1`'s value.
    package mutating func bind(_ value: SQLiteValue, at index: Int32) {
        record(ForeignStatement.bind(value, to: statement, at: index))
    }

    /// Binds an integer.
    package mutating func bind(_ value: Int64, at index: Int32) {
        record(sqlite3_bind_int64(statement, index, value))
    }

    /// Binds UTF-8 text, copied from `utf8` (which need not outlive the call).
    package mutating func bindText(utf8: UnsafeRawBufferPointer, at index: Int32) {
        // An empty buffer may have no base address, and SQLite binds a NULL
        // pointer as SQL NULL; empty text must stay empty text.
        guard let base = utf8.baseAddress else { return record(sqlite3_bind_text(statement, index, "", 0, transientDestructor)) }
        record(sqlite3_bind_text(statement, index, base.assumingMemoryBound(to: CChar.self), Int32(utf8.count), transientDestructor))
    }

    private mutating func record(_ code: Int32) {
        boundCount += 1
        if code != SQLITE_OK && failure == SQLITE_OK { failure = code }
    }
}

/// A result read whole, row by row: what a foreign database that buffers
/// its results (as `ForeignRows` allows) returns.
package final class BufferedForeignRows: ForeignRows {
    package let columnNames: [String]
    private var rows: IndexingIterator<[[SQLiteValue]]>

    package init(columnNames: [String], rows: [[SQLiteValue]]) {
        self.columnNames = columnNames
        self.rows = rows.makeIterator()
    }

    package func bindNext(into row: inout ForeignRow) throws(SQLiteError) -> Bool {
        guard let values = rows.next() else { return false }
        for (index, value) in values.enumerated() { row.bind(value, at: Int32(index + 1)) }
        return true
    }
}

/// What a `Statement` on a foreign connection adds to SQLite's statement:
/// the SQL it sends, the values bound to it, the echo statement its rows
/// pass through, and the run in progress.
///
/// Invariants: the statement binds into `parameters`, which has no
/// parameters, so SQLite refuses every bind and the statement hands the
/// value to `keep(_:at:)`; `bound` holds one value per parameter (NULL
/// until bound, as SQLite's are). Rows are read from the echo of the last
/// run's columns once a run starts. Both echoes are finalized here, never
/// by the statement.
final class ForeignStatement {
    let database: any ForeignDatabase
    /// `SELECT NULL, …` as wide as the SQL's parameters, with none of its
    /// own: what the statement binds to (and is read from before its first
    /// run, so that the column count is the parameters').
    let parameters: OpaquePointer
    let parameterCount: Int32
    /// The values bound, `?1` first; kept from run to run until cleared,
    /// as SQLite keeps bindings across a reset.
    // Unchecked: written for every value bound, and a statement is confined to its connection.
    @exclusivity(unchecked) private var bound: [SQLiteValue]
    /// `SELECT ?1 AS "name1", …` for the current result's columns, made
    /// again only when a result's columns differ from the last one's.
    private var rowEcho: OpaquePointer?
    private var rowEchoColumns: [String] = []
    /// The run in progress, between the first step and `finish()`.
    private var rows: (any ForeignRows)?

    init(database: any ForeignDatabase, sql: String, memory: OpaquePointer, path: String) throws(SQLiteError) {
        self.database = database
        parameterCount = ForeignStatement.parameterCount(in: sql)
        bound = Array(repeating: .null, count: Int(parameterCount))
        parameters = try ForeignStatement.echo(width: parameterCount, names: nil, bindable: false, memory: memory, path: path)
    }

    deinit {
        sqlite3_finalize(parameters)
        if let rowEcho { sqlite3_finalize(rowEcho) }
    }

    /// Keeps `value` as parameter `index` (1-based): false when the SQL
    /// has no such parameter.
    func keep(_ value: SQLiteValue, at index: Int32) -> Bool {
        guard index >= 1, index <= parameterCount else { return false }
        bound[Int(index - 1)] = value
        return true
    }

    /// Makes every parameter NULL again, as `sqlite3_clear_bindings` does.
    func clearBindings() {
        for index in bound.indices { bound[index] = .null }
    }

    /// Sends the statement with the values bound, and returns the echo
    /// that the rows are read through.
    func start(sql: String, memory: OpaquePointer, path: String) throws(SQLiteError) -> OpaquePointer {
        let result = try database.run(sql, parameters: bound)
        let echo: OpaquePointer
        if let rowEcho, result.columnNames == rowEchoColumns {
            echo = rowEcho
        } else {
            echo = try ForeignStatement.echo(
                width: Int32(result.columnNames.count), names: result.columnNames, bindable: true, memory: memory, path: path)
            if let rowEcho { sqlite3_finalize(rowEcho) }
            rowEcho = echo
            rowEchoColumns = result.columnNames
        }
        rows = result
        return echo
    }

    /// Binds the next foreign row into the row echo and steps it: true with
    /// a row to read, false after the last.
    func advance(sql: String, memory: OpaquePointer, path: String) throws(SQLiteError) -> Bool {
        guard let rows, let rowEcho else { return false }
        sqlite3_reset(rowEcho)
        var row = ForeignRow(statement: rowEcho)
        guard try rows.bindNext(into: &row) else {
            self.rows = nil
            return false
        }
        // The count first: a row too wide also fails its last binds (out
        // of range), and the count says what was wrong.
        guard row.boundCount == rowEchoColumns.count else {
            let values = row.boundCount == 1 ? "1 value" : "\(row.boundCount) values"
            throw SQLiteError(
                extendedCode: SQLiteError.error,
                message: "\(database.displayName) returned a row of \(values) for \(rowEchoColumns.count) columns",
                sql: sql, path: path)
        }
        guard row.failure == SQLITE_OK else { throw makeError(row.failure, memory, sql: sql, path: path) }
        let code = sqlite3_step(rowEcho)
        guard code == SQLITE_ROW else { throw makeError(code, memory, sql: sql, path: path) }
        return true
    }

    /// Ends the run in progress after a failure.
    func finish() {
        rows = nil
        if let rowEcho { sqlite3_reset(rowEcho) }
    }

    /// The number of parameters of SQLite SQL text (see `SQLPlaceholders`).
    static func parameterCount(in sql: String) -> Int32 {
        SQLPlaceholders.scan(sql).count
    }

    /// `SELECT ?1, …, ?width` (with `names` as the columns' names), or
    /// `SELECT NULL, …` as wide when not `bindable`, prepared on the
    /// connection's in-memory database.
    private static func echo(
        width: Int32, names: [String]?, bindable: Bool, memory: OpaquePointer, path: String
    ) throws(SQLiteError) -> OpaquePointer {
        var sql = "SELECT "
        if width == 0 {
            sql += "NULL"
        } else {
            // Plain `?`s are numbered 1…width in order, as `?NNN` would be,
            // but SQLite looks each `?NNN` up among the names before it:
            // a wide echo (a fetch of 1,000 identifiers) would cost the
            // square of its width to prepare.
            for index in 1...width {
                if index > 1 { sql += ", " }
                sql += bindable ? "?" : "NULL"
                if let names { sql += " AS " + quoteIdentifier(names[Int(index - 1)]) }
            }
        }
        var handle: OpaquePointer?
        let code = sqlite3_prepare_v3(memory, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &handle, nil)
        guard code == SQLITE_OK, let handle else { throw makeError(code, memory, sql: sql, path: path) }
        return handle
    }

    /// Binds `value` to parameter `index` of `statement`; SQLite's code.
    fileprivate static func bind(_ value: SQLiteValue, to statement: OpaquePointer, at index: Int32) -> Int32 {
        switch value {
        case .null: return sqlite3_bind_null(statement, index)
        case .integer(let integer): return sqlite3_bind_int64(statement, index, integer)
        case .real(let real): return sqlite3_bind_double(statement, index, real)
        case .text(var text):
            return text.withUTF8 { buffer in
                guard let base = buffer.baseAddress else { return sqlite3_bind_text(statement, index, "", 0, transientDestructor) }
                return sqlite3_bind_text(
                    statement, index, UnsafeRawPointer(base).assumingMemoryBound(to: CChar.self), Int32(buffer.count), transientDestructor)
            }
        case .blob(let data):
            return data.withUnsafeBytes { buffer in
                guard let base = buffer.baseAddress else { return sqlite3_bind_zeroblob(statement, index, 0) }
                return sqlite3_bind_blob(statement, index, base, Int32(buffer.count), transientDestructor)
            }
        }
    }
}

/// The parameters of the SQL the library writes for SQLite: `?`, which
/// takes the number after the highest so far, and `?NNN`, outside string
/// literals, quoted names and comments (the library never names parameters
/// with `:`, `@` or `$`). A foreign database renumbers them in its own
/// style (`$1` for PostgreSQL) with `scan(_:renaming:)`.
package enum SQLPlaceholders {
    /// SQLite's own limit on a parameter's number; a higher `?NNN` fails to
    /// prepare there, and is cut to it here.
    private static let highestNumber: Int32 = 32_766

    /// The number of parameters of `sql`, and `sql` with each placeholder
    /// replaced by `rename(number)` (unchanged when `rename` is nil).
    package static func scan(_ sql: String, renaming rename: ((Int32) -> String)? = nil) -> (count: Int32, sql: String) {
        let bytes = Array(sql.utf8)
        var output: [UInt8] = []
        if rename != nil { output.reserveCapacity(bytes.count + 16) }
        var count: Int32 = 0
        var index = 0
        // Copies bytes[from..<to] to the output when renaming.
        func copy(_ from: Int, _ to: Int) {
            if rename != nil { output.append(contentsOf: bytes[from..<min(to, bytes.count)]) }
        }
        func skip(until terminator: UInt8, from start: Int) -> Int {
            var position = start
            while position < bytes.count && bytes[position] != terminator { position += 1 }
            return min(position + 1, bytes.count)
        }
        while index < bytes.count {
            let byte = bytes[index]
            let start = index
            switch byte {
            case UInt8(ascii: "'"), UInt8(ascii: "\""), UInt8(ascii: "`"):
                // A doubled quote inside ends one literal and starts the next.
                index = skip(until: byte, from: index + 1)
                copy(start, index)
            case UInt8(ascii: "["):
                index = skip(until: UInt8(ascii: "]"), from: index + 1)
                copy(start, index)
            case UInt8(ascii: "-") where index + 1 < bytes.count && bytes[index + 1] == UInt8(ascii: "-"):
                index = skip(until: UInt8(ascii: "\n"), from: index + 2)
                copy(start, index)
            case UInt8(ascii: "/") where index + 1 < bytes.count && bytes[index + 1] == UInt8(ascii: "*"):
                index += 2
                while index + 1 < bytes.count && !(bytes[index] == UInt8(ascii: "*") && bytes[index + 1] == UInt8(ascii: "/")) {
                    index += 1
                }
                index = min(index + 2, bytes.count)
                copy(start, index)
            case UInt8(ascii: "?"):
                index += 1
                var number: Int32 = 0
                var hasDigits = false
                while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") {
                    hasDigits = true
                    number = min(number * 10 + Int32(bytes[index] - UInt8(ascii: "0")), highestNumber)
                    index += 1
                }
                if !hasDigits {
                    count += 1
                    number = count
                } else {
                    count = max(count, number)
                }
                if let rename { output.append(contentsOf: rename(number).utf8) }
            default:
                index += 1
                copy(start, index)
            }
        }
        return (count, rename == nil ? sql : String(decoding: output, as: UTF8.self))
    }
}
