/// The logical type of a stored attribute, as the schema record names it.
///
/// The kind says how a value is stored (its SQLite column type) and how tools
/// that do not have the app's code, such as `store-tool`, read, show and parse
/// it. Enums with a raw value are stored as their raw value's kind; any other
/// `Codable` type is stored as JSON text (`.codable`).
public enum ValueKind: String, Codable, Sendable, CaseIterable {
    case bool
    case int, int8, int16, int32, int64
    case uint, uint8, uint16, uint32, uint64
    case double, float
    case string
    case date
    case uuid
    case data
    case url
    case decimal
    /// Any other `Codable` value (structs, arrays, sets, dictionaries), stored as JSON text.
    case codable

    /// The column type in the table's `STRICT` declaration.
    ///
    /// Double and Float columns are `ANY`: SQLite turns a bound NaN into NULL,
    /// so ModelStore stores NaN as the text `'NaN'`, which only an `ANY` column
    /// of a STRICT table accepts. Every other value in them is a REAL.
    public var columnType: String {
        switch self {
        case .bool, .int, .int8, .int16, .int32, .int64, .uint, .uint8, .uint16, .uint32, .uint64:
            "INTEGER"
        case .double, .float: "ANY"
        case .date: "REAL"
        case .string, .uuid, .url, .decimal, .codable: "TEXT"
        case .data: "BLOB"
        }
    }
}

/// How a Swift type is turned into its column value.
public enum ValueRepresentation: String, Codable, Sendable {
    /// The value is stored as itself (Int, String, Date, …).
    case primitive
    /// A `RawRepresentable` value (an enum) stored as its raw value.
    case rawValue
    /// A `Codable` value stored as JSON text.
    case json
}

extension ValueKind {
    /// The Swift type an attribute of this kind is recorded with when no
    /// Swift code declares it (a migration script's, a test's).
    package var swiftTypeName: String {
        switch self {
        case .bool: "Bool"
        case .int: "Int"
        case .int8: "Int8"
        case .int16: "Int16"
        case .int32: "Int32"
        case .int64: "Int64"
        case .uint: "UInt"
        case .uint8: "UInt8"
        case .uint16: "UInt16"
        case .uint32: "UInt32"
        case .uint64: "UInt64"
        case .double: "Double"
        case .float: "Float"
        case .string: "String"
        case .date: "Date"
        case .uuid: "UUID"
        case .data: "Data"
        case .url: "URL"
        case .decimal: "Decimal"
        case .codable: "Codable"
        }
    }
}
