import ModelStore
import PostgresNIO

/// What went wrong talking to PostgreSQL, classified so that callers can
/// act on the kind (retry a serialization failure, report a unique
/// violation by constraint) without reading SQLSTATE codes.
///
/// Every case that comes from a statement names the statement's SQL (never
/// its bound values). Descriptions never contain a password.
package enum PostgresStoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The connection URL cannot be used.
    case invalidURL(reason: String)
    /// No connection could be made (server down, wrong password, TLS).
    case connectionFailed(location: String, reason: String)
    /// The executor was called on a SwiftNIO event loop thread, where
    /// waiting for the server would deadlock the loop that must deliver
    /// the answer.
    case calledOnEventLoop(statement: String)
    /// A unique constraint or unique index refused a row (SQLSTATE 23505);
    /// `message` is the server's.
    case uniqueViolation(constraint: String?, message: String, statement: String)
    /// A foreign key refused a row or a delete (SQLSTATE 23503); `message`
    /// is the server's.
    case foreignKeyViolation(constraint: String?, message: String, statement: String)
    /// The transaction cannot go on because a concurrent one changed what
    /// it read (40001) or the two wait for each other (deadlock, 40P01):
    /// run the whole transaction again.
    case serializationFailure(isDeadlock: Bool, statement: String)
    /// A lock was not granted in time (lock_not_available 55P03, or a
    /// statement or lock timeout, 57014 after `SET lock_timeout` /
    /// `statement_timeout`): the database is busy.
    case busy(sqlState: String, statement: String)
    /// The connection to the server was lost while the statement ran or
    /// before it could be sent; whether a COMMIT in flight took effect is
    /// unknown. The executor connects again at its next use.
    case connectionLost(statement: String, reason: String)
    /// Any other error the server reported.
    case server(sqlState: String, message: String, statement: String)

    package var description: String {
        switch self {
        case .invalidURL(let reason):
            return "invalid PostgreSQL URL: \(reason)"
        case .connectionFailed(let location, let reason):
            return "cannot connect to \(location): \(reason)"
        case .calledOnEventLoop(let statement):
            return "cannot run \(statement) on a SwiftNIO event loop thread: the executor waits for the server, "
                + "which would block the loop that delivers the answer; call it from another thread"
        case .uniqueViolation(let constraint, _, let statement):
            return "unique constraint \(constraint.map { "\"\($0)\"" } ?? "(unnamed)") refused a row in \(statement)"
        case .foreignKeyViolation(let constraint, _, let statement):
            return "foreign key \(constraint.map { "\"\($0)\"" } ?? "(unnamed)") refused \(statement)"
        case .serializationFailure(let isDeadlock, let statement):
            return (isDeadlock ? "deadlock detected" : "could not serialize access due to a concurrent transaction")
                + " in \(statement); run the transaction again"
        case .busy(let sqlState, let statement):
            return "the database is busy (a lock or statement timeout, SQLSTATE \(sqlState)) in \(statement)"
        case .connectionLost(let statement, let reason):
            return "the connection to PostgreSQL was lost during \(statement): \(reason)"
        case .server(let sqlState, let message, let statement):
            return "PostgreSQL error \(sqlState) in \(statement): \(message)"
        }
    }

    /// Classifies an error from postgres-nio for `statement`.
    static func classify(_ error: any Error, statement: String) -> PostgresStoreError {
        guard let error = error as? PSQLError else {
            return .connectionLost(statement: statement, reason: "\(error)")
        }
        guard let info = error.serverInfo, let sqlState = info[.sqlState] else {
            switch error.code {
            case .serverClosedConnection, .clientClosedConnection, .uncleanShutdown, .connectionError:
                let reason = error.underlying.map { "\($0)" } ?? "\(error.code)"
                return .connectionLost(statement: statement, reason: reason)
            default:
                return .server(sqlState: "", message: "\(error.code)", statement: statement)
            }
        }
        let message = info[.message] ?? ""
        switch sqlState {
        case "23505": return .uniqueViolation(constraint: info[.constraintName], message: message, statement: statement)
        case "23503": return .foreignKeyViolation(constraint: info[.constraintName], message: message, statement: statement)
        case "40001": return .serializationFailure(isDeadlock: false, statement: statement)
        case "40P01": return .serializationFailure(isDeadlock: true, statement: statement)
        case "55P03", "57014": return .busy(sqlState: sqlState, statement: statement)
        // admin_shutdown, crash_shutdown, cannot_connect_now: the server
        // ended this session (pg_terminate_backend, a restart).
        case "57P01", "57P02", "57P03": return .connectionLost(statement: statement, reason: message)
        default:
            // Class 08: connection exceptions.
            if sqlState.hasPrefix("08") { return .connectionLost(statement: statement, reason: message) }
            return .server(sqlState: sqlState, message: message, statement: statement)
        }
    }

    /// True when the connection cannot be used again.
    var losesConnection: Bool {
        if case .connectionLost = self { return true }
        return false
    }
}

// What the library shows of an error that reaches the app: it sees every
// backend error as a `SQLiteError` whose code classifies the kind (the
// conversion is `PostgresForeignDatabase.sqliteError`), and whose origin
// says that PostgreSQL reported it, with the SQLSTATE and its name.
extension PostgresStoreError {
    /// The SQLSTATE the server reported; nil for what the client found (a
    /// lost connection, a URL, a server that cannot be reached).
    package var sqlState: String? {
        switch self {
        case .uniqueViolation: return "23505"
        case .foreignKeyViolation: return "23503"
        case .serializationFailure(let isDeadlock, _): return isDeadlock ? "40P01" : "40001"
        case .busy(let sqlState, _): return sqlState
        case .server(let sqlState, _, _): return sqlState.isEmpty ? nil : sqlState
        case .invalidURL, .connectionFailed, .calledOnEventLoop, .connectionLost: return nil
        }
    }

    /// What went wrong, without the statement (the library's error names
    /// the SQL it ran): the server's message where it sent one.
    package var summary: String {
        switch self {
        case .uniqueViolation(_, let message, _), .foreignKeyViolation(_, let message, _), .server(_, let message, _):
            return message
        case .serializationFailure(let isDeadlock, _):
            return (isDeadlock ? "deadlock detected" : "could not serialize access due to a concurrent transaction")
                + "; run the transaction again"
        case .busy:
            return "the database is busy (a lock or statement timeout)"
        case .connectionLost(_, let reason):
            return "the connection to PostgreSQL was lost: \(reason)"
        case .invalidURL, .connectionFailed, .calledOnEventLoop:
            return description
        }
    }

    /// PostgreSQL as the engine that reported the error, with its SQLSTATE
    /// and the SQLSTATE's condition name when known.
    package var origin: SQLiteError.Origin {
        SQLiteError.Origin(engine: "PostgreSQL", code: sqlState, codeName: sqlState.flatMap { Self.conditionNames[$0] })
    }

    /// PostgreSQL's names for the SQLSTATEs a store meets (Appendix A,
    /// "PostgreSQL Error Codes"); others are shown by code alone.
    static let conditionNames: [String: String] = [
        "22001": "string_data_right_truncation", "22003": "numeric_value_out_of_range",
        "22007": "invalid_datetime_format", "22008": "datetime_field_overflow", "22012": "division_by_zero",
        "22021": "character_not_in_repertoire", "22023": "invalid_parameter_value",
        "22P02": "invalid_text_representation", "23502": "not_null_violation", "23503": "foreign_key_violation",
        "23505": "unique_violation", "23514": "check_violation", "25001": "active_sql_transaction",
        "25P01": "no_active_sql_transaction", "25P02": "in_failed_sql_transaction", "25006": "read_only_sql_transaction",
        "40001": "serialization_failure", "40P01": "deadlock_detected", "42501": "insufficient_privilege",
        "42601": "syntax_error", "42703": "undefined_column", "42P01": "undefined_table", "42P07": "duplicate_table",
        "53300": "too_many_connections", "55P03": "lock_not_available", "57014": "query_canceled",
    ]
}
