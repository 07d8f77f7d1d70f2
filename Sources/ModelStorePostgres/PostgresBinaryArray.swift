import Foundation
import ModelStore
import PostgresNIO

/// One column of held-back rows as a binary array parameter (the format
/// PostgreSQL's `array_recv` reads): no digits to print on this side or to
/// parse on the server's, where the array text of `PostgresArrayText`
/// costs both.
///
/// Only element types whose binary form is the value itself are sent so:
/// integers, floating point, text, json (its text), bytea, boolean and
/// uuid. A column of another type (numeric), or holding a value that its
/// type does not take as it is (a boolean other than 0 or 1, an integer out
/// of a narrow column's range, text in a number column), is sent as array
/// text instead, so that the server reads it, or refuses it with its own
/// error, exactly as when the value is sent alone.
package enum PostgresBinaryArray {
    /// An element type with a binary form written here.
    package enum Element: Sendable, Equatable {
        case int8, int4, int2, float8, float4, text, json, bytea, bool, uuid

        /// The element type of a column of `type` (as `format_type` spells
        /// it), or nil for one sent as text.
        package init?(columnType type: String) {
            switch type {
            case "bigint": self = .int8
            case "integer": self = .int4
            case "smallint": self = .int2
            case "double precision": self = .float8
            case "real": self = .float4
            case "text": self = .text
            case "json": self = .json
            case "bytea": self = .bytea
            case "boolean": self = .bool
            case "uuid": self = .uuid
            default: return nil
            }
        }

        var oid: PostgresDataType {
            switch self {
            case .int8: .int8
            case .int4: .int4
            case .int2: .int2
            case .float8: .float8
            case .float4: .float4
            case .text: .text
            case .json: .json
            case .bytea: .bytea
            case .bool: .bool
            case .uuid: .uuid
            }
        }

        var arrayOID: PostgresDataType {
            switch self {
            case .int8: .int8Array
            case .int4: .int4Array
            case .int2: .int2Array
            case .float8: .float8Array
            case .float4: .float4Array
            case .text: .textArray
            case .json: .jsonArray
            case .bytea: .byteaArray
            case .bool: .boolArray
            case .uuid: .uuidArray
            }
        }
    }

    /// `values` as a binary array of `element`, or nil when a value must go
    /// as text (see the type's comment).
    /// - Throws: `PostgresArrayText.NULCharacter` for text holding NUL.
    static func parameter(_ values: some Collection<SQLiteValue>, as element: Element) throws(PostgresArrayText.NULCharacter)
        -> BinaryArrayParameter?
    {
        var buffer = ByteBufferAllocator().buffer(capacity: 20 + values.count * 16)
        let hasNull = values.contains { if case .null = $0 { true } else { false } }
        // The header: one dimension, the null flag, the element type, the
        // dimension's length and its lower bound (1); an empty array has
        // no dimension.
        buffer.writeInteger(Int32(values.isEmpty ? 0 : 1))
        buffer.writeInteger(Int32(hasNull ? 1 : 0))
        buffer.writeInteger(Int32(bitPattern: element.oid.rawValue))
        if !values.isEmpty {
            buffer.writeInteger(Int32(values.count))
            buffer.writeInteger(Int32(1))
        }
        for (index, value) in values.enumerated() {
            guard try write(value, as: element, to: &buffer, index: index) else { return nil }
        }
        return BinaryArrayParameter(psqlType: element.arrayOID, bytes: buffer)
    }

    /// Writes one element (its length, then its bytes); false when it must go as text.
    private static func write(_ value: SQLiteValue, as element: Element, to buffer: inout ByteBuffer, index: Int)
        throws(PostgresArrayText.NULCharacter) -> Bool
    {
        switch (element, value) {
        case (_, .null):
            buffer.writeInteger(Int32(-1))
        case (.int8, .integer(let integer)):
            buffer.writeInteger(Int32(8))
            buffer.writeInteger(integer)
        case (.int4, .integer(let integer)):
            guard let narrow = Int32(exactly: integer) else { return false }
            buffer.writeInteger(Int32(4))
            buffer.writeInteger(narrow)
        case (.int2, .integer(let integer)):
            guard let narrow = Int16(exactly: integer) else { return false }
            buffer.writeInteger(Int32(2))
            buffer.writeInteger(narrow)
        case (.float8, .real(let real)):
            buffer.writeInteger(Int32(8))
            buffer.writeInteger(real.bitPattern)
        case (.float8, .integer(let integer)):
            // As the server reads the integer's text into float8: the nearest double.
            buffer.writeInteger(Int32(8))
            buffer.writeInteger(Double(integer).bitPattern)
        case (.float8, .text("NaN")):
            buffer.writeInteger(Int32(8))
            buffer.writeInteger(Double.nan.bitPattern)
        case (.float4, .real(let real)):
            // Float(_:) rounds to the nearest float, as float4's input does
            // with the shortest digits of the double.
            buffer.writeInteger(Int32(4))
            buffer.writeInteger(Float(real).bitPattern)
        case (.float4, .text("NaN")):
            buffer.writeInteger(Int32(4))
            buffer.writeInteger(Float.nan.bitPattern)
        case (.text, .text(let text)), (.json, .text(let text)):
            if text.utf8.contains(0) { throw PostgresArrayText.NULCharacter(index: index) }
            buffer.writeInteger(Int32(text.utf8.count))
            buffer.writeString(text)
        case (.bytea, .blob(let data)):
            buffer.writeInteger(Int32(data.count))
            buffer.writeBytes(data)
        case (.bool, .integer(let integer)):
            guard integer == 0 || integer == 1 else { return false }
            buffer.writeInteger(Int32(1))
            buffer.writeInteger(UInt8(integer))
        case (.uuid, .text(let text)):
            guard let uuid = UUID(uuidString: text) else { return false }
            buffer.writeInteger(Int32(16))
            let bytes = uuid.uuid
            buffer.writeBytes([
                bytes.0, bytes.1, bytes.2, bytes.3, bytes.4, bytes.5, bytes.6, bytes.7,
                bytes.8, bytes.9, bytes.10, bytes.11, bytes.12, bytes.13, bytes.14, bytes.15,
            ])
        default:
            return false
        }
        return true
    }
}

/// A binary array parameter, typed with its array type.
struct BinaryArrayParameter: PostgresDynamicTypeEncodable {
    let psqlType: PostgresDataType
    let bytes: ByteBuffer
    var psqlFormat: PostgresFormat { .binary }
    func encode<JSONEncoder: PostgresJSONEncoder>(into byteBuffer: inout ByteBuffer, context: PostgresEncodingContext<JSONEncoder>) {
        byteBuffer.writeImmutableBuffer(bytes)
    }
}
