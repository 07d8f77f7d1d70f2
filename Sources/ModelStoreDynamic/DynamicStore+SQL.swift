import Foundation
import ModelStore

extension DynamicStore {
    /// Runs one read-only SQL statement and calls `body` with the column
    /// names and each row. The statement is refused unless SQLite reports it
    /// read-only (`sqlite3_stmt_readonly`), and the store's connection is
    /// itself read-only when the store was opened so.
    /// - Throws: `DynamicStoreError.notReadOnlySQL` for more than one
    ///   statement, or one that writes or attaches;
    ///   `DynamicStoreError.invalidSQL` when the statement does not compile
    ///   (a syntax error, an unknown table, column or function) or SQLite
    ///   refuses what it asks (malformed JSON, a value too big); `SQLiteError`
    ///   for anything else (a damaged file, a lock); what `body` throws.
    package func readOnlyQuery(_ sql: String, _ body: (_ columns: [String], _ row: [SQLiteValue]) throws -> Void) throws {
        let count = try Self.classifyingSQLErrors { () throws(SQLiteError) in try Connection.statementCount(sql, on: connection) }
        guard count == 1 else {
            throw DynamicStoreError.notReadOnlySQL(count == 0 ? "there is no statement" : "only one statement at a time")
        }
        let statement = try Self.classifyingSQLErrors { () throws(SQLiteError) in try connection.prepare(sql) }
        let firstWord = sql.drop(while: { $0.isWhitespace }).prefix(while: { $0.isLetter }).uppercased()
        guard statement.isReadOnly, !["ATTACH", "DETACH", "BEGIN", "COMMIT", "END", "ROLLBACK", "SAVEPOINT", "RELEASE", "VACUUM"].contains(firstWord)
        else { throw DynamicStoreError.notReadOnlySQL("the statement would change the database or the connection") }
        let columns = (0..<statement.columnCount).map { statement.columnName($0) }
        while try Self.classifyingSQLErrors({ () throws(SQLiteError) in try statement.step() }) {
            try body(columns, (0..<statement.columnCount).map { statement.value(at: $0) })
        }
    }

    /// Runs `body`, turning the failures a statement's text causes into
    /// `DynamicStoreError.invalidSQL`. `SQLITE_ERROR` is SQLite's code for a
    /// statement that does not compile or asks for something it refuses
    /// (its other codes name the file, a lock or the machine: those stay
    /// `SQLiteError`); `SQLITE_TOOBIG` is a value the statement made too big.
    private static func classifyingSQLErrors<T>(_ body: () throws(SQLiteError) -> T) throws -> T {
        let result: Result<T, SQLiteError>
        do {
            result = .success(try body())
        } catch {
            result = .failure(error)
        }
        switch result {
        case .success(let value): return value
        case .failure(let error) where error.primaryCode == SQLiteError.error || error.primaryCode == SQLiteError.tooBig:
            throw DynamicStoreError.invalidSQL(error.message)
        case .failure(let error): throw error
        }
    }

    /// The names of the file's tables, ModelStore's own included, sorted.
    /// - Throws: `SQLiteError`.
    package func tableNames() throws -> [String] {
        let statement = try connection.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name")
        var names: [String] = []
        while try statement.step() { names.append(statement.string(at: 0)) }
        return names
    }
}
