import Foundation
import ModelStore
import PostgresNIO

/// A PostgreSQL result as the backend seam reads it (`ForeignRows`): the
/// rows postgres-nio read whole, each bound into the statement's row echo
/// as the library steps to it, so that a result is never copied into a
/// second form first.
///
/// Invariant: every row has one cell per column of the result's
/// description, which `columnNames` holds (postgres-nio makes each row from
/// that description). A result without rows has no column names: nothing
/// is read from its columns.
final class PostgresResultRows: ForeignRows {
    let columnNames: [String]
    private let rows: [PostgresRow]
    private var position = 0
    /// The SQL the library ran, for errors.
    private let sql: String

    init(_ rows: [PostgresRow], sql: String) {
        self.rows = rows
        self.sql = sql
        columnNames = rows.first.map { $0.map(\.columnName) } ?? []
    }

    func bindNext(into row: inout ForeignRow) throws(SQLiteError) -> Bool {
        guard position < rows.count else { return false }
        let cells = rows[position]
        position += 1
        var index: Int32 = 1
        for cell in cells {
            try Self.bind(cell, into: &row, at: index, sql: sql)
            index += 1
        }
        return true
    }

    /// Binds one cell. The commonest cells in binary form, text and
    /// bigint (keys, versions, integers), go straight from the server's
    /// bytes, text with no String made first; everything else as
    /// `value(of:sql:)` reads it.
    private static func bind(_ cell: PostgresCell, into row: inout ForeignRow, at index: Int32, sql: String) throws(SQLiteError) {
        if cell.format == .binary, let bytes = cell.bytes {
            switch (cell.dataType, bytes.readableBytes) {
            case (.text, _), (.varchar, _):
                return bytes.withUnsafeReadableBytes { row.bindText(utf8: $0, at: index) }
            case (.int8, 8):
                if let integer = bytes.getInteger(at: bytes.readerIndex, as: Int64.self) { return row.bind(integer, at: index) }
            default:
                break
            }
        }
        row.bind(try value(of: cell, sql: sql), at: index)
    }

    /// One cell as the SQLite value the library reads: integers and
    /// booleans as integers, floating point as reals, numeric as its exact
    /// decimal text, bytea as a blob, text-like and uuid as text, NULL as NULL.
    /// - Throws: `SQLiteError` naming the column and its PostgreSQL type for any other type.
    static func value(of cell: PostgresCell, sql: String) throws(SQLiteError) -> SQLiteValue {
        guard let bytes = cell.bytes else { return .null }
        if cell.format == .binary, let value = binaryValue(bytes, type: cell.dataType) { return value }
        do {
            switch cell.dataType {
            case .int2, .int4, .int8: return .integer(try cell.decode(Int64.self))
            case .bool: return .integer(try cell.decode(Bool.self) ? 1 : 0)
            case .float4, .float8:
                // SQLite turns a bound NaN into NULL; the library stores it as
                // the text 'NaN' (see ValueKind.columnType) and reads that.
                let real = try cell.decode(Double.self)
                return real.isNaN ? .text("NaN") : .real(real)
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

    /// The commonest types' binary forms (network byte order), read in
    /// place rather than through postgres-nio's generic decoding, which a
    /// result of many rows pays per cell; nil for another type or an
    /// unexpected length, which `value(of:sql:)` reads through postgres-nio
    /// (and reports if it cannot). NaN is the text 'NaN', as there.
    static func binaryValue(_ bytes: ByteBuffer, type: PostgresDataType) -> SQLiteValue? {
        let start = bytes.readerIndex
        switch (type, bytes.readableBytes) {
        case (.int8, 8): return bytes.getInteger(at: start, as: Int64.self).map { .integer($0) }
        case (.int4, 4): return bytes.getInteger(at: start, as: Int32.self).map { .integer(Int64($0)) }
        case (.int2, 2): return bytes.getInteger(at: start, as: Int16.self).map { .integer(Int64($0)) }
        case (.float8, 8):
            return bytes.getInteger(at: start, as: UInt64.self).map { bits in
                let real = Double(bitPattern: bits)
                return real.isNaN ? .text("NaN") : .real(real)
            }
        case (.float4, 4):
            return bytes.getInteger(at: start, as: UInt32.self).map { bits in
                let real = Double(Float(bitPattern: bits))
                return real.isNaN ? .text("NaN") : .real(real)
            }
        case (.bool, 1): return bytes.getInteger(at: start, as: UInt8.self).map { .integer($0 == 0 ? 0 : 1) }
        case (.text, _), (.varchar, _): return bytes.getString(at: start, length: bytes.readableBytes).map { .text($0) }
        default: return nil
        }
    }
}
