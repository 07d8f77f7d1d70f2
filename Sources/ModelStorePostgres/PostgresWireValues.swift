import Foundation
import PostgresNIO

// The wire forms that postgres-nio's own conformances do not give exactly:
// numeric as its decimal text, json as its text, and timestamptz rounded to
// the nearest microsecond (postgres-nio's Date truncates toward zero, so a
// date before 2000 would move a microsecond later than one after it).

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

/// A `timestamptz` as microseconds since 2000-01-01 UTC, PostgreSQL's
/// binary form.
struct TimestampMicroseconds: PostgresNonThrowingEncodable {
    let microseconds: Int64
    static var psqlType: PostgresDataType { .timestamptz }
    static var psqlFormat: PostgresFormat { .binary }
    func encode<JSONEncoder: PostgresJSONEncoder>(into byteBuffer: inout ByteBuffer, context: PostgresEncodingContext<JSONEncoder>) {
        byteBuffer.writeInteger(microseconds)
    }

    /// Seconds from Foundation's reference date (2001-01-01) to PostgreSQL's
    /// epoch (2000-01-01): the 366 days of 2000.
    static let referenceDateOffset: Int64 = 366 * 86_400 * 1_000_000

    /// PostgreSQL's range: 4713 BC to 294276 AD (MIN_TIMESTAMP and
    /// END_TIMESTAMP in its datatype/timestamp.h). Int64.min and max stand
    /// for -infinity and infinity, which no Date is.
    static let range: Range<Int64> = -211_813_488_000_000_000..<9_223_371_331_200_000_000

    /// The date rounded to the nearest microsecond (halves away from zero):
    /// PostgreSQL keeps no finer time. Nil when PostgreSQL cannot hold it.
    init?(_ date: Date) {
        let scaled = (date.timeIntervalSinceReferenceDate * 1_000_000).rounded()
        guard scaled.isFinite, let sinceReference = Int64(exactly: scaled) else { return nil }
        let (value, overflow) = sinceReference.addingReportingOverflow(Self.referenceDateOffset)
        guard !overflow, Self.range.contains(value) else { return nil }
        microseconds = value
    }

    init(microseconds: Int64) { self.microseconds = microseconds }

    /// The date: the nearest Double to the exact instant (the integer count
    /// of microseconds since the reference date, divided once), so that a
    /// date that was a whole number of microseconds comes back equal.
    var date: Date {
        Date(timeIntervalSinceReferenceDate: Double(microseconds - Self.referenceDateOffset) / 1_000_000)
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
