import CSQLite
import Foundation

/// The arguments of one call of a Swift function registered with SQLite, and
/// the way to return its result. Valid only during the call.
struct SQLFunctionCall {
    let context: OpaquePointer
    let arguments: UnsafeMutablePointer<OpaquePointer?>

    /// True when argument `index` is SQL NULL.
    func isNull(_ index: Int) -> Bool {
        sqlite3_value_type(arguments[index]) == SQLITE_NULL
    }

    /// The UTF-8 bytes of argument `index` (converted to text by SQLite when
    /// it is a number). Valid until the call returns.
    func bytes(_ index: Int) -> UnsafeBufferPointer<UInt8> {
        let value = arguments[index]
        guard let text = sqlite3_value_text(value) else { return UnsafeBufferPointer(start: nil, count: 0) }
        return UnsafeBufferPointer(start: text, count: Int(sqlite3_value_bytes(value)))
    }

    func int64(_ index: Int) -> Int64 { sqlite3_value_int64(arguments[index]) }

    func returnInteger(_ value: Int64) { sqlite3_result_int64(context, value) }
    func returnNull() { sqlite3_result_null(context) }

    func returnText(_ value: String) {
        var value = value
        value.withUTF8 { buffer in
            guard let base = buffer.baseAddress else { return sqlite3_result_text(context, "", 0, transientDestructor) }
            sqlite3_result_text(
                context, UnsafeRawPointer(base).assumingMemoryBound(to: CChar.self), Int32(buffer.count),
                transientDestructor)
        }
    }
}

/// A registered function's Swift body, kept alive by SQLite through
/// `sqlite3_create_function_v2`'s user data until the connection closes.
private final class SQLFunctionBody {
    let body: (SQLFunctionCall) -> Void
    init(_ body: @escaping (SQLFunctionCall) -> Void) { self.body = body }
}

/// A registered collation's comparison, kept alive the same way.
private final class SQLCollationBody {
    let compare: (UnsafeBufferPointer<UInt8>, UnsafeBufferPointer<UInt8>) -> Int32
    init(_ compare: @escaping (UnsafeBufferPointer<UInt8>, UnsafeBufferPointer<UInt8>) -> Int32) {
        self.compare = compare
    }
}

extension Connection {
    /// Registers a deterministic scalar SQL function implemented in Swift.
    /// A function that returns nothing returns SQL NULL.
    /// - Throws: `SQLiteError` when SQLite refuses the registration.
    func registerFunction(
        _ name: String, argumentCount: Int32, body: @escaping (SQLFunctionCall) -> Void
    ) throws(SQLiteError) {
        let box = Unmanaged.passRetained(SQLFunctionBody(body)).toOpaque()
        let flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS
        let code = sqlite3_create_function_v2(
            handle, name, argumentCount, flags, box,
            { context, count, arguments in
                guard let context, let arguments, let data = sqlite3_user_data(context) else { return }
                let body = Unmanaged<SQLFunctionBody>.fromOpaque(data).takeUnretainedValue().body
                _ = count
                body(SQLFunctionCall(context: context, arguments: arguments))
            },
            nil, nil,
            { data in
                guard let data else { return }
                Unmanaged<SQLFunctionBody>.fromOpaque(data).release()
            })
        try check(code, handle, path: path)
    }

    /// Registers a collation for UTF-8 text implemented in Swift; `compare`
    /// returns a negative, zero or positive number as `strcmp` does.
    /// - Throws: `SQLiteError` when SQLite refuses the registration.
    func registerCollation(
        _ name: String, compare: @escaping (UnsafeBufferPointer<UInt8>, UnsafeBufferPointer<UInt8>) -> Int32
    ) throws(SQLiteError) {
        let box = Unmanaged.passRetained(SQLCollationBody(compare)).toOpaque()
        let code = sqlite3_create_collation_v2(
            handle, name, SQLITE_UTF8, box,
            { data, leftCount, left, rightCount, right in
                guard let data else { return 0 }
                let body = Unmanaged<SQLCollationBody>.fromOpaque(data).takeUnretainedValue()
                return body.compare(
                    UnsafeBufferPointer(start: left?.assumingMemoryBound(to: UInt8.self), count: Int(leftCount)),
                    UnsafeBufferPointer(start: right?.assumingMemoryBound(to: UInt8.self), count: Int(rightCount)))
            },
            { data in
                guard let data else { return }
                Unmanaged<SQLCollationBody>.fromOpaque(data).release()
            })
        try check(code, handle, path: path)
    }
}
