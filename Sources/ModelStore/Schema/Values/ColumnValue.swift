import CSQLite
import Foundation

/// Why one stored value could not be turned into its Swift type, or one Swift
/// value into a column. The context (entity, property, row) is added by the
/// caller, which knows it; see `ModelStoreError.invalidValue`.
public struct ValueCodingFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// A sentence that says what was wrong, without the value itself.
    public let reason: String

    @usableFromInline
    package init(_ reason: String) { self.reason = reason }

    @usableFromInline
    static func mismatch(expected: String, found: ColumnStorage) -> ValueCodingFailure {
        found == .null
            ? ValueCodingFailure("the value is NULL but the property is not optional")
            : ValueCodingFailure("expected \(expected), found \(found.name)")
    }

    public var description: String { reason }

    @usableFromInline
    static func integerOutOfRange(_ type: Any.Type) -> ValueCodingFailure {
        ValueCodingFailure("the stored integer does not fit in \(type)")
    }
}

/// A Swift type that ModelStore stores in one column as itself, without JSON.
///
/// ModelStore conforms the standard types to it (Bool, the integer types,
/// Double, Float, String, Date, UUID, Data, URL, Decimal). Its requirements are
/// the library's own business: call them only through a model context.
public protocol ColumnValue: Codable {
    /// The kind recorded in the schema for this type.
    static var valueKind: ValueKind { get }
    /// Reads the value from column `column` of the statement's current row.
    /// - Throws: `ValueCodingFailure` when the stored value has another type or is out of range.
    static func _decode(from statement: Statement, column: Int32) throws(ValueCodingFailure) -> Self
    /// Binds the value to parameter `index` of the statement.
    /// - Throws: `ValueCodingFailure` when the value cannot be stored (a UInt64
    ///   above Int64.max), or the SQLite error from binding.
    func _encode(into statement: Statement, at index: Int32) throws
}

// MARK: - Integers

/// The integer types share one storage: an SQLite INTEGER (a 64-bit signed
/// integer). A stored value outside a narrower type's range is an error, never
/// a silent wrap.
public protocol IntegerColumnValue: ColumnValue, FixedWidthInteger {}

// The decoding of the common types is inlinable, down to the SQLite calls:
// the initializer `@Model` generates then reads a column without a call into
// this module, and only a value of the wrong kind (the rare case) reaches
// the out-of-line functions that build the error.

extension IntegerColumnValue {
    /// The decoding of every integer type. Each type's `_decode` calls it, so
    /// that the conformance's witness is the type's own inlinable function:
    /// a default implementation in this extension would be called through
    /// the witness table from other modules.
    @inlinable @inline(__always)
    static func decodeInteger(from statement: Statement, column: Int32) throws(ValueCodingFailure) -> Self {
        let cell = statement.cell(at: column)
        guard cell.typeCode == SQLITE_INTEGER else { throw .mismatch(expected: "INTEGER", found: cell.storage) }
        guard let value = Self(exactly: cell.int64) else { throw .integerOutOfRange(Self.self) }
        return value
    }

    public func _encode(into statement: Statement, at index: Int32) throws {
        guard let value = Int64(exactly: self) else {
            throw ValueCodingFailure("\(Self.self) value above Int64.max cannot be stored (SQLite integers are 64-bit signed)")
        }
        try statement.bind(value, at: index)
    }
}

extension Int: IntegerColumnValue {
    public static var valueKind: ValueKind { .int }
    @inlinable
    public static func _decode(from statement: Statement, column: Int32) throws(ValueCodingFailure) -> Int {
        try decodeInteger(from: statement, column: column)
    }
}
extension Int8: IntegerColumnValue {
    public static var valueKind: ValueKind { .int8 }
    @inlinable
    public static func _decode(from statement: Statement, column: Int32) throws(ValueCodingFailure) -> Int8 {
        try decodeInteger(from: statement, column: column)
    }
}
extension Int16: IntegerColumnValue {
    public static var valueKind: ValueKind { .int16 }
    @inlinable
    public static func _decode(from statement: Statement, column: Int32) throws(ValueCodingFailure) -> Int16 {
        try decodeInteger(from: statement, column: column)
    }
}
extension Int32: IntegerColumnValue {
    public static var valueKind: ValueKind { .int32 }
    @inlinable
    public static func _decode(from statement: Statement, column: Int32) throws(ValueCodingFailure) -> Int32 {
        try decodeInteger(from: statement, column: column)
    }
}
extension Int64: IntegerColumnValue {
    public static var valueKind: ValueKind { .int64 }
    @inlinable
    public static func _decode(from statement: Statement, column: Int32) throws(ValueCodingFailure) -> Int64 {
        try decodeInteger(from: statement, column: column)
    }
}
extension UInt: IntegerColumnValue {
    public static var valueKind: ValueKind { .uint }
    @inlinable
    public static func _decode(from statement: Statement, column: Int32) throws(ValueCodingFailure) -> UInt {
        try decodeInteger(from: statement, column: column)
    }
}
extension UInt8: IntegerColumnValue {
    public static var valueKind: ValueKind { .uint8 }
    @inlinable
    public static func _decode(from statement: Statement, column: Int32) throws(ValueCodingFailure) -> UInt8 {
        try decodeInteger(from: statement, column: column)
    }
}
extension UInt16: IntegerColumnValue {
    public static var valueKind: ValueKind { .uint16 }
    @inlinable
    public static func _decode(from statement: Statement, column: Int32) throws(ValueCodingFailure) -> UInt16 {
        try decodeInteger(from: statement, column: column)
    }
}
extension UInt32: IntegerColumnValue {
    public static var valueKind: ValueKind { .uint32 }
    @inlinable
    public static func _decode(from statement: Statement, column: Int32) throws(ValueCodingFailure) -> UInt32 {
        try decodeInteger(from: statement, column: column)
    }
}
extension UInt64: IntegerColumnValue {
    public static var valueKind: ValueKind { .uint64 }
    @inlinable
    public static func _decode(from statement: Statement, column: Int32) throws(ValueCodingFailure) -> UInt64 {
        try decodeInteger(from: statement, column: column)
    }
}

extension Bool: ColumnValue {
    public static var valueKind: ValueKind { .bool }

    @inlinable
    public static func _decode(from statement: Statement, column: Int32) throws(ValueCodingFailure) -> Bool {
        let cell = statement.cell(at: column)
        guard cell.typeCode == SQLITE_INTEGER else { throw .mismatch(expected: "INTEGER 0 or 1", found: cell.storage) }
        switch cell.int64 {
        case 0: return false
        case 1: return true
        default: throw ValueCodingFailure("a Bool must be stored as 0 or 1")
        }
    }

    public func _encode(into statement: Statement, at index: Int32) throws {
        try statement.bind(Int64(self ? 1 : 0), at: index)
    }
}

// MARK: - Floating point

/// The text that stands for NaN, which SQLite cannot store as a REAL (it
/// would turn it into NULL).
let notANumberText = "NaN"

@inlinable
func decodeDouble(from statement: Statement, column: Int32) throws(ValueCodingFailure) -> Double {
    let cell = statement.cell(at: column)
    if cell.typeCode == SQLITE_FLOAT { return cell.double }
    return try decodeOtherDouble(cell)
}

/// A Double stored as something else than a REAL: an integer, NaN's text, or
/// a value of the wrong kind.
@usableFromInline
func decodeOtherDouble(_ cell: ColumnCell) throws(ValueCodingFailure) -> Double {
    switch cell.storage {
    case .real: return cell.double
    case .integer: return Double(cell.int64)
    case .text where cell.string == notANumberText: return .nan
    case let storage: throw .mismatch(expected: "REAL", found: storage)
    }
}

func encodeDouble(_ value: Double, into statement: Statement, at index: Int32) throws {
    if value.isNaN {
        try statement.bind(notANumberText, at: index)
    } else {
        try statement.bind(value, at: index)
    }
}

extension Double: ColumnValue {
    public static var valueKind: ValueKind { .double }

    @inlinable
    public static func _decode(from statement: Statement, column: Int32) throws(ValueCodingFailure) -> Double {
        try decodeDouble(from: statement, column: column)
    }

    public func _encode(into statement: Statement, at index: Int32) throws {
        try encodeDouble(self, into: statement, at: index)
    }
}

extension Float: ColumnValue {
    public static var valueKind: ValueKind { .float }

    public static func _decode(from statement: Statement, column: Int32) throws(ValueCodingFailure) -> Float {
        Float(try decodeDouble(from: statement, column: column))
    }

    public func _encode(into statement: Statement, at index: Int32) throws {
        try encodeDouble(Double(self), into: statement, at: index)
    }
}

// MARK: - Text and bytes

extension String: ColumnValue {
    public static var valueKind: ValueKind { .string }

    @inlinable
    public static func _decode(from statement: Statement, column: Int32) throws(ValueCodingFailure) -> String {
        let cell = statement.cell(at: column)
        guard cell.typeCode == SQLITE_TEXT else { throw .mismatch(expected: "TEXT", found: cell.storage) }
        return cell.string
    }

    public func _encode(into statement: Statement, at index: Int32) throws {
        try statement.bind(self, at: index)
    }
}

extension Data: ColumnValue {
    public static var valueKind: ValueKind { .data }

    public static func _decode(from statement: Statement, column: Int32) throws(ValueCodingFailure) -> Data {
        let cell = statement.cell(at: column)
        let storage = cell.storage
        guard storage == .blob else { throw .mismatch(expected: "BLOB", found: storage) }
        return cell.data
    }

    public func _encode(into statement: Statement, at index: Int32) throws {
        try statement.bind(self, at: index)
    }
}

/// Types stored as TEXT in a canonical form that `init?(storedText:)` parses back.
protocol TextColumnValue: ColumnValue {
    init?(storedText: String)
    var storedText: String { get }
}

extension TextColumnValue {
    public static func _decode(from statement: Statement, column: Int32) throws(ValueCodingFailure) -> Self {
        let cell = statement.cell(at: column)
        let storage = cell.storage
        guard storage == .text else { throw .mismatch(expected: "TEXT", found: storage) }
        guard let value = Self(storedText: cell.string) else {
            throw ValueCodingFailure("the stored text is not a valid \(Self.self)")
        }
        return value
    }

    public func _encode(into statement: Statement, at index: Int32) throws {
        try statement.bind(storedText, at: index)
    }
}

extension UUID: TextColumnValue {
    public static var valueKind: ValueKind { .uuid }
    init?(storedText: String) { self.init(uuidString: storedText) }
    var storedText: String { uuidString }
}

extension URL: TextColumnValue {
    public static var valueKind: ValueKind { .url }
    init?(storedText: String) { self.init(string: storedText) }
    var storedText: String { absoluteString }
}

extension Decimal: TextColumnValue {
    public static var valueKind: ValueKind { .decimal }
    // Text keeps every digit; a REAL would round 0.1 + 0.2 the binary way.
    init?(storedText: String) { self.init(string: storedText, locale: Locale(identifier: "en_US_POSIX")) }
    var storedText: String { description }
}

// MARK: - Dates

extension Date: ColumnValue {
    public static var valueKind: ValueKind { .date }

    /// Seconds since 1970 as a REAL: sorts and compares in SQL, and reads as a
    /// date in the sqlite3 shell with `datetime(x, 'unixepoch')`.
    @inlinable
    public static func _decode(from statement: Statement, column: Int32) throws(ValueCodingFailure) -> Date {
        let cell = statement.cell(at: column)
        switch cell.typeCode {
        case SQLITE_FLOAT: return Date(timeIntervalSince1970: cell.double)
        case SQLITE_INTEGER: return Date(timeIntervalSince1970: Double(cell.int64))
        default: throw .mismatch(expected: "REAL (seconds since 1970)", found: cell.storage)
        }
    }

    public func _encode(into statement: Statement, at index: Int32) throws {
        try statement.bind(timeIntervalSince1970, at: index)
    }
}
