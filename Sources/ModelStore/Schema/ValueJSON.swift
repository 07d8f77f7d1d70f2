import Foundation

// Values as JSON text, losslessly: the form of store-tool's exports and
// imports, and of the values the change history records. They live with the
// schema's values (not in the dynamic layer) because the context writes and
// reads history with them.

/// A JSON value as an export file holds it: integers and reals kept apart,
/// so that an `Int64` survives exactly.
package enum ExchangeJSON: Sendable, Equatable, Decodable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case array([ExchangeJSON])
    case object([String: ExchangeJSON])

    /// Decodes any JSON value.
    /// - Throws: `DecodingError` when the input is not JSON.
    package init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .int(value)
        } else if let value = try? container.decode(Double.self) {
            self = .double(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([ExchangeJSON].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: ExchangeJSON].self))
        }
    }

    /// Compact JSON text with sorted keys (the form typed models store).
    package var text: String {
        switch self {
        case .null: "null"
        case .bool(let value): value ? "true" : "false"
        case .int(let value): String(value)
        case .double(let value): ValueJSON.number(value)
        case .string(let value): ValueJSON.quote(value)
        case .array(let values): "[" + values.map(\.text).joined(separator: ",") + "]"
        case .object(let members):
            "{" + members.keys.sorted().map { ValueJSON.quote($0) + ":" + (members[$0]?.text ?? "null") }
                .joined(separator: ",") + "}"
        }
    }

    /// A short description for error messages.
    package var summary: String {
        switch self {
        case .null: "null"
        case .bool, .int, .double: text
        case .string(let value): ValueJSON.quote(value.count > 40 ? String(value.prefix(40)) + "…" : value)
        case .array: "an array"
        case .object: "an object"
        }
    }
}

/// Dynamic values as lossless JSON text, and JSON back as values of a kind.
package enum ValueJSON {
    /// A value as lossless JSON text.
    package static func json(_ value: DynamicValue) -> String {
        switch value {
        case .null: "null"
        case .bool(let value): value ? "true" : "false"
        case .int(let value): String(value)
        case .double(let value): value.isFinite ? number(value) : quote(ValueText.formatDouble(value))
        case .string(let value): quote(value)
        case .date(let value): number(value.timeIntervalSince1970)
        case .uuid(let value): quote(value.uuidString)
        case .data(let value): quote(value.base64EncodedString())
        case .url(let value): quote(value.storedText)
        case .decimal(let value): quote(value.storedText)
        case .json(let text): text
        case .object(let id): quote(id.description)
        case .objects(let ids): "[" + ids.map { quote($0.description) }.joined(separator: ",") + "]"
        case .count(let count): String(count)
        }
    }

    /// A finite real as the shortest JSON number that reads back exactly.
    package static func number(_ value: Double) -> String {
        guard value.isFinite else { return "null" }
        return "\(value)"
    }

    /// A JSON string literal; control characters escaped.
    package static func quote(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }

    /// The key of the object that an export writes in place of a stored
    /// value that could not be read as its type:
    /// `{"$unreadable":{"problem":…,"stored":…}}`. Reading one back fails,
    /// so that an import never takes the marker for a value.
    package static let unreadableMarker = "$unreadable"

    /// Reads an export value as an attribute of `kind`; nil with the reason
    /// when it has another type. `null` is handled by the caller.
    package static func value(_ json: ExchangeJSON, as kind: ValueKind) -> Result<DynamicValue, ValueCodingFailure> {
        do throws(ValueCodingFailure) {
            if case .object(let members) = json, members.count == 1, let marked = members[unreadableMarker] {
                var problem = ""
                if case .object(let details) = marked, case .string(let text)? = details["problem"] { problem = ": " + text }
                throw ValueCodingFailure(
                    "the export marks this value as unreadable in the store it came from\(problem); "
                        + "repair it there (store-tool set) or put a value in the file")
            }
            switch (kind, json) {
            case (.bool, .bool(let value)): return .success(.bool(value))
            case (_, .int(let value)) where ValueText.isInteger(kind):
                guard ValueText.integerRange(of: kind).contains(value) else {
                    throw ValueCodingFailure("\(value) is out of the range of \(kind.rawValue)")
                }
                return .success(.int(value))
            case (.double, .int(let value)), (.float, .int(let value)): return .success(.double(Double(value)))
            case (.double, .double(let value)), (.float, .double(let value)): return .success(.double(value))
            case (.double, .string(let text)), (.float, .string(let text)):
                switch text {
                case "nan": return .success(.double(.nan))
                case "inf": return .success(.double(.infinity))
                case "-inf": return .success(.double(-.infinity))
                default: throw ValueCodingFailure("expected a number, found \(json.summary)")
                }
            case (.string, .string(let text)): return .success(.string(text))
            case (.date, .int(let value)): return .success(.date(Date(timeIntervalSince1970: Double(value))))
            case (.date, .double(let value)): return .success(.date(Date(timeIntervalSince1970: value)))
            case (.date, .string(let text)):
                guard let date = ValueText.parseISO8601(text) else { throw ValueCodingFailure("expected a date, found \(json.summary)") }
                return .success(.date(date))
            case (.uuid, .string(let text)), (.data, .string(let text)), (.url, .string(let text)), (.decimal, .string(let text)):
                return .success(try ValueText.parse(text, as: kind))
            case (.codable, _): return .success(.json(json.text))
            default:
                throw ValueCodingFailure("expected \(expectation(kind)), found \(json.summary)")
            }
        } catch {
            return .failure(error)
        }
    }

    private static func expectation(_ kind: ValueKind) -> String {
        switch kind {
        case .date: "seconds since 1970 or an ISO 8601 string"
        case .decimal: "a decimal as a string"
        default: ValueText.isInteger(kind) ? "an integer (\(kind.rawValue))" : ValueText.expectation(for: kind)
        }
    }
}
