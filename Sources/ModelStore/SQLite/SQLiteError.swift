import CSQLite
import Foundation

/// An error reported by SQLite: its result codes, its message, and the SQL that
/// was running.
///
/// Result codes pattern-match, so callers can react to one kind of failure:
///
/// ```swift
/// do { try context.save() }
/// catch let error as SQLiteError where error.primaryCode == SQLiteError.constraint { ... }
/// ```
///
/// Bound values are never part of the description: they may be private data.
public struct SQLiteError: Error, CustomStringConvertible, Sendable, Equatable {
    /// SQLite's extended result code (for example `SQLITE_CONSTRAINT_UNIQUE`, 2067).
    public let extendedCode: Int32
    /// SQLite's message for the failure, as `sqlite3_errmsg` returned it.
    public let message: String
    /// The SQL statement that failed, when one was running.
    public let sql: String?
    /// The database file, when known.
    public let path: String?
    /// The database engine that reported the failure when it was not SQLite
    /// (a server behind a backend, such as PostgreSQL); nil for SQLite.
    /// `extendedCode` still classifies the failure with SQLite's code for
    /// its kind (a constraint, busy…), so that callers handle both alike;
    /// the description names the engine and its own code instead.
    public let origin: Origin?

    /// SQLite's primary result code: the low eight bits of the extended code.
    public var primaryCode: Int32 { extendedCode & 0xFF }

    /// Creates an error from SQLite's result code and message; `origin`
    /// names another engine that reported it, classified as `extendedCode`.
    public init(extendedCode: Int32, message: String, sql: String? = nil, path: String? = nil, origin: Origin? = nil) {
        self.extendedCode = extendedCode
        self.message = message
        self.sql = sql
        self.path = path
        self.origin = origin
    }

    public var description: String {
        var text: String
        if let origin {
            text = "\(origin.engine) error" + (origin.code.map { " \($0)" } ?? "") + (origin.codeName.map { " (\($0))" } ?? "")
        } else {
            text = "SQLite error \(extendedCode)"
            if let codeName = String(validatingCString: sqlite3_errstr(extendedCode)) {
                text += " (\(codeName))"
            }
        }
        text += ": \(message)"
        if let path { text += " in \(path)" }
        if let sql { text += " while running: \(sql)" }
        return text
    }

    /// `SQLITE_BUSY`: another connection holds a lock for longer than the busy timeout.
    public static let busy: Int32 = SQLITE_BUSY
    /// `SQLITE_CONSTRAINT`: a UNIQUE, NOT NULL, CHECK or FOREIGN KEY constraint failed.
    public static let constraint: Int32 = SQLITE_CONSTRAINT
    /// `SQLITE_NOTADB`: the file is not a SQLite database.
    public static let notADatabase: Int32 = SQLITE_NOTADB
    /// A foreign key constraint failed (an extended code).
    public static let foreignKeyConstraint: Int32 = 787
    /// `SQLITE_CANTOPEN`: the file or its folder cannot be opened.
    public static let cannotOpen: Int32 = SQLITE_CANTOPEN
    /// `SQLITE_READONLY`: a write was attempted on a read-only connection.
    public static let readOnly: Int32 = SQLITE_READONLY
    /// `SQLITE_CORRUPT`: the file is damaged.
    public static let corrupt: Int32 = SQLITE_CORRUPT
    /// `SQLITE_ERROR`: a statement that does not compile (a syntax error, an
    /// unknown table or column), or another error of the SQL itself.
    public static let error: Int32 = SQLITE_ERROR
    /// `SQLITE_TOOBIG`: a string or blob, or the statement, is too big.
    public static let tooBig: Int32 = SQLITE_TOOBIG
}

extension SQLiteError {
    /// The engine that reported an error in SQLite's clothes: a database
    /// server behind the backend seam, with its own code for the failure.
    public struct Origin: Sendable, Equatable {
        /// The engine's name, as descriptions print it ("PostgreSQL").
        public let engine: String
        /// The engine's code for the failure (PostgreSQL's SQLSTATE,
        /// "23505"); nil when the failure was the client's (a lost
        /// connection, a server that cannot be reached).
        public let code: String?
        /// The code's name ("unique_violation"), when known.
        public let codeName: String?

        /// The engine `engine`, with its code and the code's name when known.
        public init(engine: String, code: String?, codeName: String?) {
            self.engine = engine
            self.code = code
            self.codeName = codeName
        }
    }
}

/// Turns a SQLite result code into a thrown error, the way every `sqlite3_*`
/// call in this folder reports failure.
///
/// `SQLITE_MISUSE` means our own code called SQLite wrongly (a finalized
/// statement, a closed connection): that is a bug, not something the
/// environment can cause, so it stops the program with a message instead of
/// being thrown.
@inline(__always)
func check(_ code: Int32, _ db: OpaquePointer?, sql: String? = nil, path: String? = nil) throws(SQLiteError) {
    guard code != SQLITE_OK else { return }
    throw makeError(code, db, sql: sql, path: path)
}

func makeError(_ code: Int32, _ db: OpaquePointer?, sql: String?, path: String?) -> SQLiteError {
    precondition(code != SQLITE_MISUSE, "SQLite reported misuse (a ModelStore bug) for SQL: \(sql ?? "none")")
    let extended = db.map { sqlite3_extended_errcode($0) } ?? code
    let message = db.flatMap { String(validatingCString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(code))
    // sqlite3_extended_errcode reports the most recent failure on the connection,
    // which is this one unless the code came from elsewhere; keep it only if it
    // agrees with the primary code we were given.
    let finalCode = (extended & 0xFF) == (code & 0xFF) ? extended : code
    return SQLiteError(extendedCode: finalCode, message: message, sql: sql, path: path)
}

extension SQLiteError: LocalizedError {
    /// The same text as `description`.
    public var errorDescription: String? { description }
}
