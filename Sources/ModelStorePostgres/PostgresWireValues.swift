import Foundation
import PostgresNIO

// The wire forms that postgres-nio's own conformances do not give exactly:
// numeric as its decimal text, and json as its text.

/// A parameter sent in PostgreSQL's text form, which the server parses:
/// `numeric` as decimal text, exactly (postgres-nio's binary Decimal goes
/// through its own digit grouping; text leaves no room for a rounding), and
/// `json` as its text, unchanged.
struct TextParameter: PostgresDynamicTypeEncodable {
    let psqlType: PostgresDataType
    let text: String
    var psqlFormat: PostgresFormat { .text }
    func encode<JSONEncoder: PostgresJSONEncoder>(into byteBuffer: inout ByteBuffer, context: PostgresEncodingContext<JSONEncoder>) {
        byteBuffer.writeString(text)
    }
}


/// Reads PostgreSQL's binary `numeric` as decimal text (`-12.3400`), with
/// as many fraction digits as its display scale; nil for NaN, the
/// infinities, or a malformed value.
func numericText(from buffer: ByteBuffer) -> String? {
    var buffer = buffer
    guard let count = buffer.readInteger(as: Int16.self), let weight = buffer.readInteger(as: Int16.self),
        let sign = buffer.readInteger(as: UInt16.self), let scale = buffer.readInteger(as: Int16.self),
        count >= 0, scale >= 0, sign == 0 || sign == 0x4000
    else { return nil }
    var groups: [Int16] = []
    for _ in 0..<count {
        guard let group = buffer.readInteger(as: Int16.self), (0..<10_000).contains(group) else { return nil }
        groups.append(group)
    }
    guard buffer.readableBytes == 0 else { return nil }
    // Group i holds 4 digits worth 10000^(weight - i).
    func group(at exponent: Int) -> Int16 {
        let index = Int(weight) - exponent
        return index >= 0 && index < groups.count ? groups[index] : 0
    }
    func fourDigits(_ value: Int16) -> String {
        let digits = String(value)
        return String(repeating: "0", count: 4 - digits.count) + digits
    }
    var integer = ""
    if weight >= 0 {
        for exponent in stride(from: Int(weight), through: 0, by: -1) {
            integer += integer.isEmpty ? String(group(at: exponent)) : fourDigits(group(at: exponent))
        }
    }
    if integer.isEmpty || integer.allSatisfy({ $0 == "0" }) { integer = "0" }
    var fraction = ""
    var exponent = -1
    while fraction.count < Int(scale) {
        fraction += fourDigits(group(at: exponent))
        exponent -= 1
    }
    fraction = String(fraction.prefix(Int(scale)))
    let negative = sign == 0x4000 && !(integer == "0" && fraction.allSatisfy { $0 == "0" })
    return (negative ? "-" : "") + integer + (fraction.isEmpty ? "" : "." + fraction)
}

/// A parameter of no declared type (OID 0), in text form: the server gives
/// it the type its place in the statement needs (the column's type in an
/// INSERT, the other side's in a comparison) and parses the text as that.
struct UntypedParameter: PostgresNonThrowingEncodable {
    let text: String
    static var psqlType: PostgresDataType { .null }
    static var psqlFormat: PostgresFormat { .text }
    func encode<JSONEncoder: PostgresJSONEncoder>(into byteBuffer: inout ByteBuffer, context: PostgresEncodingContext<JSONEncoder>) {
        byteBuffer.writeString(text)
    }
}

/// An untyped parameter (see `UntypedParameter`) whose text is already
/// UTF-8: the array text of a batched write, written without a String.
struct UntypedBytes: PostgresNonThrowingEncodable {
    let bytes: [UInt8]
    static var psqlType: PostgresDataType { .null }
    static var psqlFormat: PostgresFormat { .text }
    func encode<JSONEncoder: PostgresJSONEncoder>(into byteBuffer: inout ByteBuffer, context: PostgresEncodingContext<JSONEncoder>) {
        byteBuffer.writeBytes(bytes)
    }
}
