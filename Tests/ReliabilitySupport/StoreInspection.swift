import CSQLite
import Foundation
import ModelStore
import ModelStoreDynamic

/// Looks at a store file from outside ModelStore's save path: SQLite's
/// integrity check, the store's own check (what `store-tool check` runs),
/// and a dump of every row for comparing two states exactly.
public enum StoreInspection {
    /// Every problem found: `PRAGMA integrity_check` lines other than "ok",
    /// and the lines of `DynamicStore.check()`. Empty when the store is intact.
    public static func problems(_ path: String) -> [String] {
        var problems: [String] = []
        do {
            problems += try integrityProblems(RawConnection(path))
        } catch {
            problems.append("integrity_check: \(error)")
        }
        problems += storeProblems(path)
        return problems
    }

    static func integrityProblems(_ connection: RawConnection) throws -> [String] {
        let lines = try connection.rows("PRAGMA integrity_check").map { $0.joined() }
        return lines == ["t:ok"] ? [] : lines.map { "integrity_check: \($0)" }
    }

    static func storeProblems(_ path: String) -> [String] {
        var problems: [String] = []
        do {
            problems += try DynamicStore(path: path).check().map { "check: \($0.kind.rawValue): \($0.message)" }
        } catch {
            problems.append("check: the store does not open: \(error)")
        }
        return problems
    }

    /// Every row of every table, as text sorted within each table, and the
    /// file's schema; for `_modelstore_migrations` and the history's
    /// `_modelstore_transactions`, only the columns that do not depend on
    /// when the migration or save ran (or in which process).
    public static func dump(_ path: String) throws -> [String: [String]] {
        try dump(RawConnection(path))
    }

    static func dump(_ connection: RawConnection) throws -> [String: [String]] {
        var dump: [String: [String]] = [:]
        dump["sqlite_schema"] = try connection.rows("SELECT type, name, tbl_name, sql FROM sqlite_schema ORDER BY name").map { $0.joined(separator: "|") }
        let tables = try connection.rows("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
        for table in tables.map({ String($0[0].dropFirst(2)) }) {
            let quoted = "\"" + table.replacingOccurrences(of: "\"", with: "\"\"") + "\""
            let sql =
                switch table {
                case "_modelstore_migrations":
                    "SELECT version, name, kind, checksum, fingerprintBefore, fingerprintAfter FROM \(quoted)"
                case "_modelstore_transactions":
                    "SELECT token, author FROM \(quoted)"
                default: "SELECT * FROM \(quoted)"
                }
            dump[table] = try connection.rows(sql).map { $0.joined(separator: "|") }.sorted()
        }
        return dump
    }

    /// What differs between two dumps, for a failure message.
    public static func differences(_ left: [String: [String]], _ right: [String: [String]], limit: Int = 6) -> [String] {
        var lines: [String] = []
        for table in Set(left.keys).union(right.keys).sorted() where left[table] != right[table] {
            let mine = Set(left[table] ?? []), theirs = Set(right[table] ?? [])
            lines.append(
                "\(table): only in the first: \(mine.subtracting(theirs).sorted().prefix(2)); only in the second: "
                    + "\(theirs.subtracting(mine).sorted().prefix(2))")
        }
        return Array(lines.prefix(limit))
    }

}

/// A plain SQLite connection, outside ModelStore.
final class RawConnection {
    private let db: OpaquePointer

    /// Opens read-write without create: a read-only connection could not
    /// recover a WAL left by a killed process without its -shm file.
    init(_ path: String) throws {
        var db: OpaquePointer?
        let code = sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, nil)
        guard code == SQLITE_OK, let db else {
            sqlite3_close_v2(db)
            throw WorkerError("cannot open \(path): \(code)")
        }
        self.db = db
        sqlite3_busy_timeout(db, 5_000)
    }

    deinit { sqlite3_close_v2(db) }

    /// The rows of one query, each value as "type:text".
    func rows(_ sql: String) throws -> [[String]] {
        var statement: OpaquePointer?
        defer { sqlite3_finalize(statement) }
        var code = sqlite3_prepare_v2(db, sql, -1, &statement, nil)
        guard code == SQLITE_OK, let statement else { throw WorkerError("\(sql): \(String(cString: sqlite3_errmsg(db)))") }
        var result: [[String]] = []
        while true {
            code = sqlite3_step(statement)
            guard code == SQLITE_ROW else { break }
            result.append((0..<sqlite3_column_count(statement)).map { Self.text(statement, $0) })
        }
        guard code == SQLITE_DONE else { throw WorkerError("\(sql): \(String(cString: sqlite3_errmsg(db)))") }
        return result
    }

    private static func text(_ statement: OpaquePointer, _ column: Int32) -> String {
        switch sqlite3_column_type(statement, column) {
        case SQLITE_INTEGER: return "i:\(sqlite3_column_int64(statement, column))"
        case SQLITE_FLOAT: return "r:\(sqlite3_column_double(statement, column).bitPattern)"
        case SQLITE_TEXT:
            let count = Int(sqlite3_column_bytes(statement, column))
            return "t:" + String(decoding: UnsafeRawBufferPointer(start: sqlite3_column_text(statement, column), count: count), as: UTF8.self)
        case SQLITE_BLOB:
            let count = Int(sqlite3_column_bytes(statement, column))
            let bytes = UnsafeRawBufferPointer(start: sqlite3_column_blob(statement, column), count: count)
            return "b:" + bytes.map { String($0, radix: 16) }.joined(separator: ".")
        default: return "n"
        }
    }
}
