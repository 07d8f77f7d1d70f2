import Foundation
import ModelStore
import PostgresNIO

/// A PostgreSQL session behind the library's backend seam
/// (`ForeignDatabase`): the statements a `Connection` runs go to the server
/// through a `PostgresExecutor`, with the values crossing as SQLite's.
///
/// What it translates today is the statement level: placeholders (`?`,
/// `?NNN` become `$1`…), the transaction statements the library sends
/// (`BEGIN IMMEDIATE TRANSACTION` begins a serializable transaction, as
/// IMMEDIATE takes the write lock at once; `BEGIN DEFERRED TRANSACTION` a
/// repeatable-read one, one snapshot for a block of reads), values by
/// storage class, and errors into SQLite's codes. SQL that only SQLite
/// understands (PRAGMA, `sqlite_schema`, `json_each`, STRICT tables) is
/// sent as it is and fails with the server's error: the library's SQL
/// builders do not yet write for a dialect, so a `ModelContainer` cannot
/// open a PostgreSQL store through this yet.
package final class PostgresForeignDatabase: ForeignDatabase {
    package let executor: PostgresExecutor
    package let displayName: String
    private var lastChanges = 0
    private var lastRowID: Int64 = 0

    /// A session on `executor`'s connection.
    package init(executor: PostgresExecutor) {
        self.executor = executor
        displayName = executor.location.description
    }

    package var isAutocommit: Bool { !executor.isInTransaction }
    package var changes: Int { lastChanges }
    package var lastInsertRowID: Int64 { lastRowID }

    package func run(_ sql: String, parameters: [SQLiteValue]) throws(SQLiteError) -> any ForeignRows {
        // The library also prepares ROLLBACK as a statement, so that rolling
        // back never needs memory to compile SQL.
        if parameters.isEmpty, try controlTransaction(sql) { return BufferedForeignRows(columnNames: [], rows: []) }
        let translated = SQLPlaceholders.scan(sql, renaming: { "$\($0)" }).sql
        var binds = PostgresBindings(capacity: parameters.count)
        for value in parameters {
            switch value {
            case .null: binds.appendNull()
            case .integer(let integer): binds.append(integer)
            case .real(let real): binds.append(real)
            case .text(let text): binds.append(text)
            case .blob(let data): binds.append(ByteBuffer(bytes: data))
            }
        }
        let result: PostgresExecutor.Result
        do {
            result = try executor.execute(translated, binds)
        } catch {
            throw Self.sqliteError(error, sql: sql)
        }
        lastChanges = result.affectedRows
        var columnNames: [String] = []
        var rows: [[SQLiteValue]] = []
        rows.reserveCapacity(result.rows.count)
        for row in result.rows {
            var values: [SQLiteValue] = []
            for cell in row {
                if rows.isEmpty && values.count == columnNames.count { columnNames.append(cell.columnName) }
                values.append(try Self.value(of: cell, sql: sql))
            }
            rows.append(values)
        }
        return BufferedForeignRows(columnNames: columnNames, rows: rows)
    }

    package func execute(_ sql: String) throws(SQLiteError) {
        if try controlTransaction(sql) { return }
        do {
            lastChanges = try executor.execute(sql).affectedRows
        } catch {
            throw Self.sqliteError(error, sql: sql)
        }
    }

    /// Runs one of the transaction statements the library sends, through
    /// the executor's own begin, commit and rollback; false for other SQL.
    private func controlTransaction(_ sql: String) throws(SQLiteError) -> Bool {
        do {
            switch sql {
            case "BEGIN IMMEDIATE TRANSACTION": try executor.begin(isolation: .serializable)
            case "BEGIN DEFERRED TRANSACTION": try executor.begin(isolation: .repeatableRead)
            case "COMMIT TRANSACTION": try executor.commit()
            case "ROLLBACK TRANSACTION": executor.rollback()
            default: return false
            }
        } catch {
            throw Self.sqliteError(error, sql: sql)
        }
        return true
    }

    /// One cell as the SQLite value the library reads: integers and
    /// booleans as integers, floating point as reals, numeric as its exact
    /// decimal text, bytea as a blob, text-like and uuid as text, NULL as NULL.
    /// - Throws: `SQLiteError` naming the column and its PostgreSQL type for any other type.
    static func value(of cell: PostgresCell, sql: String) throws(SQLiteError) -> SQLiteValue {
        guard let bytes = cell.bytes else { return .null }
        do {
            switch cell.dataType {
            case .int2, .int4, .int8: return .integer(try cell.decode(Int64.self))
            case .bool: return .integer(try cell.decode(Bool.self) ? 1 : 0)
            case .float4, .float8: return .real(try cell.decode(Double.self))
            case .text, .varchar, .name, .bpchar, .json: return .text(try cell.decode(String.self))
            case .uuid: return .text(try cell.decode(UUID.self).uuidString)
            case .bytea: return .blob(Data(bytes.readableBytesView))
            case .numeric:
                if cell.format == .binary, let text = numericText(from: bytes) { return .text(text) }
                return .text(try cell.decode(String.self))
            default:
                break
            }
        } catch {
            throw SQLiteError(
                extendedCode: SQLiteError.error,
                message: "column \(cell.columnName) (\(cell.dataType)) cannot be read: \(error)", sql: sql)
        }
        throw SQLiteError(
            extendedCode: SQLiteError.error,
            message: "column \(cell.columnName) has PostgreSQL type \(cell.dataType), which the backend seam does not carry", sql: sql)
    }

    /// `error` with the SQLite code the library classifies its kind by.
    static func sqliteError(_ error: any Error, sql: String) -> SQLiteError {
        if let error = error as? SQLiteError { return error }
        guard let error = error as? PostgresStoreError else {
            return SQLiteError(extendedCode: SQLiteError.error, message: "\(error)", sql: sql)
        }
        let code: Int32
        switch error {
        case .uniqueViolation: code = 2067  // SQLITE_CONSTRAINT_UNIQUE
        case .foreignKeyViolation: code = SQLiteError.foreignKeyConstraint
        case .serializationFailure, .busy: code = SQLiteError.busy
        case .connectionLost: code = 10  // SQLITE_IOERR
        case .calledOnEventLoop: code = 21  // SQLITE_MISUSE
        case .invalidURL, .connectionFailed: code = SQLiteError.cannotOpen
        case .server: code = SQLiteError.error
        }
        return SQLiteError(extendedCode: code, message: error.description, sql: sql)
    }
}
