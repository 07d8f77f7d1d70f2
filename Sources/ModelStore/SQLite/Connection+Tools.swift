import CSQLite
import Foundation

// Connection features that store-tool's dynamic layer needs: a shorter or
// longer wait for locks, copying a database with SQLite's backup API, and
// telling read-only statements apart.

extension Connection {
    /// How long a statement waits for another connection's lock before it
    /// fails with `SQLITE_BUSY`; 0 fails at once.
    /// - Throws: `SQLiteError`.
    package func setBusyTimeout(milliseconds: Int32) throws(SQLiteError) {
        try check(sqlite3_busy_timeout(handle, max(0, milliseconds)), handle, path: path)
    }

    /// Copies this database, consistently, into a new file at `destination`
    /// with SQLite's online backup API: the copy is one snapshot even while
    /// other connections write. `progress` gets (pages copied, total pages).
    /// - Throws: `SQLiteError` when the destination cannot be written, or the
    ///   source stays locked.
    package func backup(to destination: String, progress: (Int, Int) -> Void = { _, _ in }) throws(SQLiteError) {
        let target = try Connection(location: destination, mode: .create)
        guard let backup = sqlite3_backup_init(target.handle, "main", handle, "main") else {
            throw makeError(sqlite3_errcode(target.handle), target.handle, sql: nil, path: destination)
        }
        var code: Int32
        var waits = 0
        repeat {
            code = sqlite3_backup_step(backup, 256)
            progress(
                Int(sqlite3_backup_pagecount(backup) - sqlite3_backup_remaining(backup)),
                Int(sqlite3_backup_pagecount(backup)))
            if code == SQLITE_BUSY || code == SQLITE_LOCKED {
                // Another connection writes: wait for it, up to about 5 s in all.
                waits += 1
                if waits > 250 { break }
                sqlite3_sleep(20)
            }
        } while code == SQLITE_OK || code == SQLITE_BUSY || code == SQLITE_LOCKED
        let finish = sqlite3_backup_finish(backup)
        if code != SQLITE_DONE { throw makeError(code, target.handle, sql: nil, path: destination) }
        try check(finish, target.handle, path: destination)
    }
}

extension Statement {
    /// True when the statement does not write to the database
    /// (`sqlite3_stmt_readonly`).
    package var isReadOnly: Bool { sqlite3_stmt_readonly(handle) != 0 }
}

extension Connection {
    /// The number of statements in `sql` (comments and empty statements
    /// between semicolons do not count).
    /// - Throws: `SQLiteError` when a statement does not compile.
    package static func statementCount(_ sql: String, on connection: Connection) throws(SQLiteError) -> Int {
        var count = 0
        var failure: Int32 = SQLITE_OK
        let utf8 = Array(sql.utf8CString)
        utf8.withUnsafeBufferPointer { buffer in
            guard var cursor = buffer.baseAddress else { return }
            while cursor.pointee != 0 {
                var handle: OpaquePointer?
                var tail: UnsafePointer<CChar>?
                let code = sqlite3_prepare_v2(connection.handle, cursor, -1, &handle, &tail)
                if handle != nil { count += 1 }
                sqlite3_finalize(handle)
                guard code == SQLITE_OK, let next = tail, next != cursor else {
                    failure = code
                    return
                }
                cursor = next
            }
        }
        try check(failure, connection.handle, sql: sql, path: connection.path)
        return count
    }
}
