import Foundation

/// Strict parsing of typed values from text, and their readable text: what
/// store-tool accepts in `key=value` and filters, and what it prints.
///
/// Parsing never guesses: "123abc" is not an Int, "2025-13-01" is not a date,
/// "1.5" is not an Int, and a value outside the kind's range is an error.
package enum ValueText {
    /// Parses `text` as a value of `kind`.
    /// - Throws: `ValueCodingFailure` saying what was expected.
    package static func parse(_ text: String, as kind: ValueKind) throws(ValueCodingFailure) -> DynamicValue {
        switch kind {
        case .bool:
            switch text {
            case "true": return .bool(true)
            case "false": return .bool(false)
            default: throw ValueCodingFailure("expected true or false")
            }
        case .int, .int8, .int16, .int32, .int64, .uint, .uint8, .uint16, .uint32, .uint64:
            guard let value = Int64(text), !text.hasPrefix("+") else {
                throw ValueCodingFailure("expected an integer (\(kind.rawValue))")
            }
            guard integerRange(of: kind).contains(value) else {
                throw ValueCodingFailure("\(text) is out of the range of \(kind.rawValue)")
            }
            return .int(value)
        case .double, .float:
            guard let value = Double(text), !text.lowercased().hasPrefix("0x"), !text.hasPrefix("+") else {
                throw ValueCodingFailure("expected a number (\(kind.rawValue))")
            }
            return .double(value)
        case .string:
            return .string(text)
        case .date:
            guard let date = parseISO8601(text) else {
                throw ValueCodingFailure("expected an ISO 8601 date such as 2025-05-14 or 2025-05-14T09:30:00Z")
            }
            return .date(date)
        case .uuid:
            guard let uuid = UUID(uuidString: text) else { throw ValueCodingFailure("expected a UUID") }
            return .uuid(uuid)
        case .data:
            guard let data = Data(base64Encoded: text) else { throw ValueCodingFailure("expected base64 data") }
            return .data(data)
        case .url:
            guard !text.isEmpty, let url = URL(string: text) else { throw ValueCodingFailure("expected a URL") }
            return .url(url)
        case .decimal:
            guard isDecimalLiteral(text), let value = Decimal(storedText: text) else {
                throw ValueCodingFailure("expected a decimal number such as 12.50")
            }
            return .decimal(value)
        case .codable:
            return .json(try canonicalJSON(text))
        }
    }

    /// True for the integer kinds.
    package static func isInteger(_ kind: ValueKind) -> Bool {
        switch kind {
        case .int, .int8, .int16, .int32, .int64, .uint, .uint8, .uint16, .uint32, .uint64: true
        default: false
        }
    }

    /// What a value of `kind` looks like, for error messages.
    package static func expectation(for kind: ValueKind) -> String {
        switch kind {
        case .bool: "true or false"
        case .double, .float: "a number"
        case .string: "a string"
        case .date: "a date string such as \"2025-05-14\""
        case .uuid: "a UUID string"
        case .data: "a base64 string"
        case .url: "a URL string"
        case .decimal: "a number"
        case .codable: "a JSON string"
        default: "an integer"
        }
    }

    /// The values an integer kind can hold (as stored: 64-bit signed).
    package static func integerRange(of kind: ValueKind) -> ClosedRange<Int64> {
        switch kind {
        case .int8: Int64(Int8.min)...Int64(Int8.max)
        case .int16: Int64(Int16.min)...Int64(Int16.max)
        case .int32: Int64(Int32.min)...Int64(Int32.max)
        case .uint, .uint64: 0...Int64.max
        case .uint8: 0...Int64(UInt8.max)
        case .uint16: 0...Int64(UInt16.max)
        case .uint32: 0...Int64(UInt32.max)
        default: Int64.min...Int64.max
        }
    }

    private static func isDecimalLiteral(_ text: String) -> Bool {
        text.wholeMatch(of: /-?[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?/) != nil
    }

    /// `text` as compact JSON with sorted keys, as typed models store it.
    /// - Throws: `ValueCodingFailure` when it is not JSON.
    package static func canonicalJSON(_ text: String) throws(ValueCodingFailure) -> String {
        do {
            let object = try JSONSerialization.jsonObject(with: Data(text.utf8), options: .fragmentsAllowed)
            let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .fragmentsAllowed])
            return String(decoding: data, as: UTF8.self)
        } catch {
            throw ValueCodingFailure("expected a JSON value")
        }
    }

    /// Parses `2025-05-14`, `2025-05-14T09:30`, `2025-05-14T09:30:00Z`,
    /// `2025-05-14T09:30:00.250+02:00` (no zone means UTC). Nil for anything else,
    /// including impossible dates.
    package static func parseISO8601(_ text: String) -> Date? {
        let pattern = /([0-9]{4})-([0-9]{2})-([0-9]{2})(?:[T ]([0-9]{2}):([0-9]{2})(?::([0-9]{2})(\.[0-9]{1,9})?)?(Z|[+-][0-9]{2}:?[0-9]{2})?)?/
        guard let match = text.wholeMatch(of: pattern) else { return nil }
        var components = DateComponents()
        components.year = Int(match.1)
        components.month = Int(match.2)
        components.day = Int(match.3)
        components.hour = match.4.flatMap { Int($0) } ?? 0
        components.minute = match.5.flatMap { Int($0) } ?? 0
        components.second = match.6.flatMap { Int($0) } ?? 0
        var offset = 0
        if let zone = match.8, zone != "Z" {
            let digits = zone.dropFirst().filter(\.isNumber)
            guard digits.count == 4, let hours = Int(digits.prefix(2)), let minutes = Int(digits.suffix(2)),
                hours < 24, minutes < 60
            else { return nil }
            offset = (hours * 60 + minutes) * 60 * (zone.hasPrefix("-") ? -1 : 1)
        }
        var calendar = Calendar(identifier: .gregorian)
        guard let utc = TimeZone(identifier: "UTC") else { return nil }
        calendar.timeZone = utc
        guard let date = calendar.date(from: components) else { return nil }
        // Reject dates the calendar rolled over (2025-02-30, 24:61).
        let check = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        guard check.year == components.year, check.month == components.month, check.day == components.day,
            check.hour == components.hour, check.minute == components.minute, check.second == components.second
        else { return nil }
        let fraction = match.7.flatMap { Double("0" + $0) } ?? 0
        return Date(timeIntervalSince1970: date.timeIntervalSince1970 - Double(offset) + fraction)
    }

    /// ISO 8601 in UTC: `2025-05-14T09:30:00Z`, with the fraction of a
    /// second when there is one (to the microsecond).
    package static func formatISO8601(_ date: Date) -> String {
        let seconds = date.timeIntervalSince1970
        let whole = seconds.rounded(.down)
        var text = Date(timeIntervalSince1970: whole).formatted(.iso8601)
        let fraction = seconds - whole
        guard fraction > 0, text.hasSuffix("Z") else { return text }
        var digits = String(Int((fraction * 1_000_000).rounded()))
        guard digits != "0", digits != "1000000" else { return text }
        digits = String(repeating: "0", count: max(0, 6 - digits.count)) + digits
        while digits.hasSuffix("0") { digits.removeLast() }
        text.removeLast()
        return text + "." + digits + "Z"
    }

    /// The value as people read it: dates ISO 8601, UUIDs, enums by raw
    /// value, JSON compact, data as base64, a to-one as `Entity:ID`, a
    /// to-many as its identifiers (or its count), nil as `nil`.
    package static func format(_ value: DynamicValue) -> String {
        switch value {
        case .null: "nil"
        case .bool(let value): value ? "true" : "false"
        case .int(let value): String(value)
        case .double(let value): formatDouble(value)
        case .string(let value): value
        case .date(let value): formatISO8601(value)
        case .uuid(let value): value.uuidString
        case .data(let value): value.base64EncodedString()
        case .url(let value): value.absoluteString
        case .decimal(let value): value.storedText
        case .json(let value): value
        case .object(let id): id.description
        case .objects(let ids): "[" + ids.map(\.description).joined(separator: ", ") + "]"
        case .count(let count): "\(count) object\(count == 1 ? "" : "s")"
        }
    }

    package static func formatDouble(_ value: Double) -> String {
        if value.isNaN { return "nan" }
        if value.isInfinite { return value < 0 ? "-inf" : "inf" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return "\(value)"
    }
}
