import Foundation

/// Why one stored value could not be turned into its Swift type, or one Swift
/// value into a column. The context (entity, property, row) is added by the
/// caller, which knows it; see `ModelStoreError.invalidValue`.
public struct ValueCodingFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// A sentence that says what was wrong, without the value itself.
    public let reason: String

    init(_ reason: String) { self.reason = reason }

    static func mismatch(expected: String, found: ColumnStorage) -> ValueCodingFailure {
        found == .null
            ? ValueCodingFailure("the value is NULL but the property is not optional")
            : ValueCodingFailure("expected \(expected), found \(found.name)")
    }

    public var description: String { reason }
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

extension IntegerColumnValue {
    public static func _decode(from statement: Statement, column: Int32) throws(ValueCodingFailure) -> Self {
        let cell = statement.cell(at: column)
        let storage = cell.storage
        guard storage == .integer else { throw .mismatch(expected: "INTEGER", found: storage) }
        guard let value = Self(exactly: cell.int64) else {
            throw ValueCodingFailure("the stored integer does not fit in \(Self.self)")
        }
        return value
    }

    public func _encode(into statement: Statement, at index: Int32) throws {
        guard let value = Int64(exactly: self) else {
            throw ValueCodingFailure("\(Self.self) value above Int64.max cannot be stored (SQLite integers are 64-bit signed)")
        }
        try statement.bind(value, at: index)
    }
}

extension Int: IntegerColumnValue { public static var valueKind: ValueKind { .int } }
extension Int8: IntegerColumnValue { public static var valueKind: ValueKind { .int8 } }
extension Int16: IntegerColumnValue { public static var valueKind: ValueKind { .int16 } }
extension Int32: IntegerColumnValue { public static var valueKind: ValueKind { .int32 } }
extension Int64: IntegerColumnValue { public static var valueKind: ValueKind { .int64 } }
extension UInt: IntegerColumnValue { public static var valueKind: ValueKind { .uint } }
extension UInt8: IntegerColumnValue { public static var valueKind: ValueKind { .uint8 } }
extension UInt16: IntegerColumnValue { public static var valueKind: ValueKind { .uint16 } }
extension UInt32: IntegerColumnValue { public static var valueKind: ValueKind { .uint32 } }
extension UInt64: IntegerColumnValue { public static var valueKind: ValueKind { .uint64 } }

extension Bool: ColumnValue {
    public static var valueKind: ValueKind { .bool }

    public static func _decode(from statement: Statement, column: Int32) throws(ValueCodingFailure) -> Bool {
        let cell = statement.cell(at: column)
        let storage = cell.storage
        guard storage == .integer else { throw .mismatch(expected: "INTEGER 0 or 1", found: storage) }
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

func decodeDouble(from statement: Statement, column: Int32) throws(ValueCodingFailure) -> Double {
    let cell = statement.cell(at: column)
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

    public static func _decode(from statement: Statement, column: Int32) throws(ValueCodingFailure) -> String {
        let cell = statement.cell(at: column)
        let storage = cell.storage
        guard storage == .text else { throw .mismatch(expected: "TEXT", found: storage) }
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
    public static func _decode(from statement: Statement, column: Int32) throws(ValueCodingFailure) -> Date {
        let cell = statement.cell(at: column)
        let storage = cell.storage
        switch storage {
        case .real: return Date(timeIntervalSince1970: cell.double)
        case .integer: return Date(timeIntervalSince1970: Double(cell.int64))
        default: throw .mismatch(expected: "REAL (seconds since 1970)", found: storage)
        }
    }

    public func _encode(into statement: Statement, at index: Int32) throws {
        try statement.bind(timeIntervalSince1970, at: index)
    }
}
