import Foundation

/// How values of one Swift type move between a property and a column.
///
/// The macro cannot see whether a property's type is an enum, a struct or a
/// standard type, so it passes the type's metatype to an overloaded function
/// (`PersistentRow.value(at:as:)`, `PropertyMetadata.attribute(...)`) and the
/// compiler picks the most specific coder: a `ColumnValue` is stored as itself,
/// a `RawRepresentable` whose raw value is a `ColumnValue` as its raw value, and
/// any other `Codable` type as JSON text; each with an Optional variant that
/// stores nil as NULL.
protocol ValueCoder: SendableMetatype {
    associatedtype Value
    static var kind: ValueKind { get }
    static var isOptional: Bool { get }
    static var representation: ValueRepresentation { get }
    static func decode(from statement: Statement, column: Int32) throws(ValueCodingFailure) -> Value
    static func encode(_ value: Value, into statement: Statement, at index: Int32) throws
    /// A value that stands in for one a partial fetch did not read, until
    /// the property is first accessed; nil when the type has none (then the
    /// column is always read).
    static var placeholder: Value? { get }
    /// A value in store-tool's text form, for the schema record's default;
    /// nil for nil and for a value with no constant text form.
    static func recordText(_ value: Value) -> String?
    /// The raw values of an enum's cases in text form; nil for other types.
    static var enumCases: [String]? { get }
    /// The record form of the JSON structure a Codable type decodes from;
    /// nil for types not stored as JSON, and when none could be derived.
    static var codableShape: String? { get }
}

extension ValueCoder {
    /// The Swift type's name, recorded in the schema for people to read.
    static var swiftTypeName: String { String(describing: Value.self) }
    static var placeholder: Value? { nil }
    static var enumCases: [String]? { nil }
    static var codableShape: String? { nil }
}

enum PrimitiveCoder<Value: ColumnValue>: ValueCoder {
    static var placeholder: Value? { placeholderValue(Value.self) }
    static var kind: ValueKind { Value.valueKind }
    static var isOptional: Bool { false }
    static var representation: ValueRepresentation { .primitive }

    static func decode(from statement: Statement, column: Int32) throws(ValueCodingFailure) -> Value {
        try Value._decode(from: statement, column: column)
    }

    static func encode(_ value: Value, into statement: Statement, at index: Int32) throws {
        try value._encode(into: statement, at: index)
    }

    static func recordText(_ value: Value) -> String? { ModelStore.recordText(of: value) }
}

enum OptionalPrimitiveCoder<Wrapped: ColumnValue>: ValueCoder {
    typealias Value = Wrapped?
    static var placeholder: Wrapped?? { .some(nil) }
    static var kind: ValueKind { Wrapped.valueKind }
    static var isOptional: Bool { true }
    static var representation: ValueRepresentation { .primitive }

    static func decode(from statement: Statement, column: Int32) throws(ValueCodingFailure) -> Wrapped? {
        statement.storage(at: column) == .null ? nil : try Wrapped._decode(from: statement, column: column)
    }

    static func encode(_ value: Wrapped?, into statement: Statement, at index: Int32) throws {
        guard let value else { return try statement.bindNull(at: index) }
        try value._encode(into: statement, at: index)
    }

    static func recordText(_ value: Wrapped?) -> String? { value.flatMap { ModelStore.recordText(of: $0) } }
}

enum RawValueCoder<Value: RawRepresentable & Codable>: ValueCoder where Value.RawValue: ColumnValue {
    static var kind: ValueKind { Value.RawValue.valueKind }
    static var isOptional: Bool { false }
    static var representation: ValueRepresentation { .rawValue }

    static func decode(from statement: Statement, column: Int32) throws(ValueCodingFailure) -> Value {
        try decodeRawValue(Value.self, from: statement, column: column)
    }

    static func encode(_ value: Value, into statement: Statement, at index: Int32) throws {
        try value.rawValue._encode(into: statement, at: index)
    }

    static func recordText(_ value: Value) -> String? { ModelStore.recordText(of: value.rawValue) }
    static var enumCases: [String]? { enumCaseTexts(Value.self) }
}

enum OptionalRawValueCoder<Wrapped: RawRepresentable & Codable>: ValueCoder where Wrapped.RawValue: ColumnValue {
    typealias Value = Wrapped?
    static var placeholder: Wrapped?? { .some(nil) }
    static var kind: ValueKind { Wrapped.RawValue.valueKind }
    static var isOptional: Bool { true }
    static var representation: ValueRepresentation { .rawValue }

    static func decode(from statement: Statement, column: Int32) throws(ValueCodingFailure) -> Wrapped? {
        statement.storage(at: column) == .null ? nil : try decodeRawValue(Wrapped.self, from: statement, column: column)
    }

    static func encode(_ value: Wrapped?, into statement: Statement, at index: Int32) throws {
        guard let value else { return try statement.bindNull(at: index) }
        try value.rawValue._encode(into: statement, at: index)
    }

    static func recordText(_ value: Wrapped?) -> String? {
        guard let value else { return nil }
        return RawValueCoder<Wrapped>.recordText(value)
    }
    static var enumCases: [String]? { enumCaseTexts(Wrapped.self) }
}

enum JSONCoder<Value: Codable>: ValueCoder {
    static var kind: ValueKind { .codable }
    static var isOptional: Bool { false }
    static var representation: ValueRepresentation { .json }

    static func decode(from statement: Statement, column: Int32) throws(ValueCodingFailure) -> Value {
        try decodeJSON(Value.self, from: statement, column: column)
    }

    static func encode(_ value: Value, into statement: Statement, at index: Int32) throws {
        try encodeJSON(value, into: statement, at: index)
    }

    static func recordText(_ value: Value) -> String? { try? storedJSONText(value) }
    static var codableShape: String? { ValueShape.recordText(of: Value.self) }
}

enum OptionalJSONCoder<Wrapped: Codable>: ValueCoder {
    typealias Value = Wrapped?
    static var placeholder: Wrapped?? { .some(nil) }
    static var kind: ValueKind { .codable }
    static var isOptional: Bool { true }
    static var representation: ValueRepresentation { .json }

    static func decode(from statement: Statement, column: Int32) throws(ValueCodingFailure) -> Wrapped? {
        statement.storage(at: column) == .null ? nil : try decodeJSON(Wrapped.self, from: statement, column: column)
    }

    static func encode(_ value: Wrapped?, into statement: Statement, at index: Int32) throws {
        guard let value else { return try statement.bindNull(at: index) }
        try encodeJSON(value, into: statement, at: index)
    }

    static func recordText(_ value: Wrapped?) -> String? {
        guard let value else { return nil }
        return JSONCoder<Wrapped>.recordText(value)
    }
    static var codableShape: String? { JSONCoder<Wrapped>.codableShape }
}

// The coding itself lives in free generic functions, not in the coder types:
// the typed read and bind paths (`PersistentRow.value(at:as:)`,
// `Statement.bindValue(_:as:at:)`) are generic functions the app's module
// calls without specializing them, and there naming a coder type such as
// `RawValueCoder<Value>` makes the runtime look up that type's metadata on
// every call — which cost more than reading the column. A free function needs
// only `Value`'s metadata, which the caller passes.

/// Reads a value stored as its raw value.
/// - Throws: `ValueCodingFailure` when the column does not hold the raw type,
///   or when no case has the stored raw value.
@usableFromInline
func decodeRawValue<Value: RawRepresentable>(
    _ type: Value.Type, from statement: Statement, column: Int32
) throws(ValueCodingFailure) -> Value where Value.RawValue: ColumnValue {
    let rawValue = try Value.RawValue._decode(from: statement, column: column)
    guard let value = Value(rawValue: rawValue) else {
        throw ValueCodingFailure("the stored raw value matches no case of \(Value.self)")
    }
    return value
}

/// Reads a `Codable` value stored as JSON text.
/// - Throws: `ValueCodingFailure` when the column is not text or the JSON
///   does not decode.
@usableFromInline
func decodeJSON<Value: Decodable>(
    _ type: Value.Type, from statement: Statement, column: Int32
) throws(ValueCodingFailure) -> Value {
    let cell = statement.cell(at: column)
    let storage = cell.storage
    guard storage == .text else { throw .mismatch(expected: "TEXT (JSON)", found: storage) }
    do {
        return try JSONDecoder().decode(Value.self, from: Data(cell.string.utf8))
    } catch {
        throw ValueCodingFailure("the stored JSON does not decode as \(Value.self): \(describeWithoutValues(error))")
    }
}

/// Binds a `Codable` value as JSON text.
/// - Throws: `ValueCodingFailure` when the value does not encode; `SQLiteError`.
func encodeJSON<Value: Encodable>(_ value: Value, into statement: Statement, at index: Int32) throws {
    try statement.bind(try storedJSONText(value), at: index)
}

/// Describes a coding error by its kind and coding path only: the debug
/// descriptions of DecodingError and EncodingError may quote the stored
/// value, and error messages never show values (they may be private data).
func describeWithoutValues(_ error: any Error) -> String {
    func path(_ codingPath: [any CodingKey]) -> String {
        let keys = codingPath.map { $0.intValue.map { "[\($0)]" } ?? "." + $0.stringValue }.joined()
        return keys.isEmpty ? "the top level" : keys
    }
    switch error {
    case DecodingError.typeMismatch(let type, let context):
        return "expected \(type) at \(path(context.codingPath))"
    case DecodingError.valueNotFound(let type, let context):
        return "missing \(type) value at \(path(context.codingPath))"
    case DecodingError.keyNotFound(let key, let context):
        return "missing key \(key.stringValue) at \(path(context.codingPath))"
    case DecodingError.dataCorrupted(let context):
        return context.codingPath.isEmpty ? "the text is not valid JSON" : "invalid value at \(path(context.codingPath))"
    case EncodingError.invalidValue(_, let context):
        return "a value cannot be encoded at \(path(context.codingPath))"
    default:
        return String(describing: type(of: error))
    }
}
