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
        // Bytes in an array, made a ByteBuffer once: appending to an array
        // costs a fraction of a ByteBuffer write per integer.
        var bytes = Writer(capacity: 20 + values.count * 16)
        // The header: one dimension, the null flag (set below once a NULL
        // is written), the element type, the dimension's length and its
        // lower bound (1); an empty array has no dimension.
        bytes.int32(values.isEmpty ? 0 : 1)
        let nullFlag = bytes.bytes.count
        bytes.int32(0)
        bytes.int32(Int32(bitPattern: element.oid.rawValue))
        if !values.isEmpty {
            bytes.int32(Int32(values.count))
            bytes.int32(1)
        }
        var hasNull = false
        for (index, value) in values.enumerated() {
            if case .null = value { hasNull = true }
            guard try write(value, as: element, to: &bytes, index: index) else { return nil }
        }
        // The flag is big-endian 1: its last byte.
        if hasNull { bytes.bytes[nullFlag + 3] = 1 }
        return BinaryArrayParameter(psqlType: element.arrayOID, bytes: ByteBuffer(bytes: bytes.bytes))
    }

    /// Big-endian integers and raw bytes appended to an array.
    struct Writer {
        var bytes: [UInt8] = []

        init(capacity: Int) { bytes.reserveCapacity(capacity) }

        mutating func int32(_ value: Int32) { uint(UInt64(UInt32(bitPattern: value)), byteCount: 4) }
        mutating func int64(_ value: Int64) { uint(UInt64(bitPattern: value), byteCount: 8) }

        /// The low `byteCount` bytes of `value`, most significant first.
        mutating func uint(_ value: UInt64, byteCount: Int) {
            var shift = (byteCount - 1) * 8
            while shift >= 0 {
                bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
                shift -= 8
            }
        }

        mutating func append(_ more: some Sequence<UInt8>) { bytes.append(contentsOf: more) }
    }

    /// Writes one element (its length, then its bytes); false when it must go as text.
    private static func write(_ value: SQLiteValue, as element: Element, to bytes: inout Writer, index: Int)
        throws(PostgresArrayText.NULCharacter) -> Bool
    {
        switch (element, value) {
        case (_, .null):
            bytes.int32(-1)
        case (.int8, .integer(let integer)):
            bytes.int32(8)
            bytes.int64(integer)
        case (.int4, .integer(let integer)):
            guard let narrow = Int32(exactly: integer) else { return false }
            bytes.int32(4)
            bytes.int32(narrow)
        case (.int2, .integer(let integer)):
            guard let narrow = Int16(exactly: integer) else { return false }
            bytes.int32(2)
            bytes.uint(UInt64(UInt16(bitPattern: narrow)), byteCount: 2)
        case (.float8, .real(let real)):
            bytes.int32(8)
            bytes.uint(real.bitPattern, byteCount: 8)
        case (.float8, .integer(let integer)):
            // As the server reads the integer's text into float8: the nearest double.
            bytes.int32(8)
            bytes.uint(Double(integer).bitPattern, byteCount: 8)
        case (.float8, .text("NaN")):
            bytes.int32(8)
            bytes.uint(Double.nan.bitPattern, byteCount: 8)
        case (.float4, .real(let real)):
            // Float(_:) rounds to the nearest float, as float4's input does
            // with the shortest digits of the double.
            bytes.int32(4)
            bytes.uint(UInt64(Float(real).bitPattern), byteCount: 4)
        case (.float4, .integer(let integer)):
            bytes.int32(4)
            bytes.uint(UInt64(Float(integer).bitPattern), byteCount: 4)
        case (.float4, .text("NaN")):
            bytes.int32(4)
            bytes.uint(UInt64(Float.nan.bitPattern), byteCount: 4)
        case (.text, .text(var text)), (.json, .text(var text)):
            let hasNUL = text.withUTF8 { utf8 in
                bytes.int32(Int32(utf8.count))
                bytes.append(utf8)
                guard let base = utf8.baseAddress else { return false }
                return memchr(base, 0, utf8.count) != nil
            }
            if hasNUL { throw PostgresArrayText.NULCharacter(index: index) }
        case (.bytea, .blob(let data)):
            bytes.int32(Int32(data.count))
            bytes.append(data)
        case (.bool, .integer(let integer)):
            guard integer == 0 || integer == 1 else { return false }
            bytes.int32(1)
            bytes.uint(UInt64(integer), byteCount: 1)
        case (.uuid, .text(let text)):
            guard let uuid = UUID(uuidString: text) else { return false }
            let raw = uuid.uuid
            bytes.int32(16)
            bytes.append([
                raw.0, raw.1, raw.2, raw.3, raw.4, raw.5, raw.6, raw.7,
                raw.8, raw.9, raw.10, raw.11, raw.12, raw.13, raw.14, raw.15,
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
