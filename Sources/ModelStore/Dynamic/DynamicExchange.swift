import Foundation

/// A JSON value as an export file holds it: integers and reals kept apart,
/// so that an `Int64` survives exactly.
public enum ExchangeJSON: Sendable, Equatable, Decodable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case array([ExchangeJSON])
    case object([String: ExchangeJSON])

    /// Decodes any JSON value.
    /// - Throws: `DecodingError` when the input is not JSON.
    public init(from decoder: any Decoder) throws {
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
    public var text: String {
        switch self {
        case .null: "null"
        case .bool(let value): value ? "true" : "false"
        case .int(let value): String(value)
        case .double(let value): DynamicExchange.number(value)
        case .string(let value): DynamicExchange.quote(value)
        case .array(let values): "[" + values.map(\.text).joined(separator: ",") + "]"
        case .object(let members):
            "{" + members.keys.sorted().map { DynamicExchange.quote($0) + ":" + (members[$0]?.text ?? "null") }
                .joined(separator: ",") + "}"
        }
    }

    /// A short description for error messages.
    var summary: String {
        switch self {
        case .null: "null"
        case .bool, .int, .double: text
        case .string(let value): DynamicExchange.quote(value.count > 40 ? String(value.prefix(40)) + "…" : value)
        case .array: "an array"
        case .object: "an object"
        }
    }
}

/// store-tool's JSON export: the schema record, then every object of each
/// entity with its key, typed attribute values and relationships.
///
/// ```json
/// {"format":"modelstore-export","version":1,"schema":{…},"entities":{
/// "Trip":[
/// {"key":"Trip:1","attributes":{"name":"Lisbon","startDate":1749513600.0},"relationships":{"stops":["Stop:2","Stop:1"]}}
/// ]}}
/// ```
///
/// Values are lossless: dates are seconds since 1970, `Data` base64,
/// decimals, UUIDs and URLs strings, Codable values their JSON, non-finite
/// reals `"nan"`, `"inf"`, `"-inf"`; a to-one is `"Entity:ID"` or null, a
/// to-many an ordered array of them.
public enum DynamicExchange {
    /// The value of the file's `format` member.
    public static let formatName = "modelstore-export"
    /// The version of the file's layout.
    public static let version = 1

    /// The opening of an export file, up to the first entity.
    /// - Throws: `EncodingError`, which plain schema values do not cause.
    public static func header(schema: Schema) throws -> String {
        let schemaText = String(decoding: try schema.recordData(), as: UTF8.self)
        return "{\"format\":\(quote(formatName)),\"version\":\(version),\"schema\":\(schemaText),\"entities\":{"
    }

    /// One object as a record: `{"key":…,"attributes":{…},"relationships":{…}}`.
    /// To-manys must hold their members (`includesToManyMembers`).
    public static func record(_ object: DynamicObject, entity: Schema.Entity) -> String {
        let attributes = entity.attributes.map { quote($0.name) + ":" + json(object[$0.name] ?? .null) }
        let relationships = entity.relationships.map { quote($0.name) + ":" + json(object[$0.name] ?? .null) }
        return "{\"key\":\(quote(object.id.description)),\"attributes\":{" + attributes.joined(separator: ",")
            + "},\"relationships\":{" + relationships.joined(separator: ",") + "}}"
    }

    /// A value as lossless JSON text.
    public static func json(_ value: DynamicValue) -> String {
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
    static func number(_ value: Double) -> String {
        guard value.isFinite else { return "null" }
        return "\(value)"
    }

    /// A JSON string literal; control characters escaped.
    public static func quote(_ text: String) -> String {
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

    /// Reads an export value as an attribute of `kind`; nil with the reason
    /// when it has another type. `null` is handled by the caller.
    static func value(_ json: ExchangeJSON, as kind: ValueKind) -> Result<DynamicValue, ValueCodingFailure> {
        do throws(ValueCodingFailure) {
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

/// A JSON export file, read: the schema it records and its records.
public struct DynamicExportFile: Sendable {
    /// One exported object, before it is checked against a schema.
    public struct Record: Sendable, Decodable {
        /// The entity it was exported from (the member of `entities` it is in).
        public var entity: String = ""
        /// Its exported key, `Entity:ID`.
        public var key: String
        /// Attribute values by name.
        public var attributes: [String: ExchangeJSON]?
        /// Relationships by name: `"Entity:ID"`, null, or an array of them.
        public var relationships: [String: ExchangeJSON]?

        private enum CodingKeys: String, CodingKey { case key, attributes, relationships }
    }

    private struct Shape: Decodable {
        var format: String
        var version: Int
        var schema: Schema
        var entities: [String: [Record]]
    }

    /// The schema record of the exported store.
    public let schema: Schema
    /// Every record, entity by entity (sorted by name), in file order within one.
    public let records: [Record]

    /// Reads an export file.
    /// - Throws: `DynamicStoreError.invalidImport` with one line when the
    ///   data is not a ModelStore JSON export of a version this reads.
    public init(data: Data) throws(DynamicStoreError) {
        let shape: Shape
        do {
            shape = try JSONDecoder().decode(Shape.self, from: data)
        } catch let error as DecodingError {
            throw .invalidImport(["the file is not a ModelStore JSON export: \(Self.describe(error))"])
        } catch {
            throw .invalidImport(["the file is not a ModelStore JSON export: \(error)"])
        }
        guard shape.format == DynamicExchange.formatName else {
            throw .invalidImport(["the file's format is '\(shape.format)', not '\(DynamicExchange.formatName)'"])
        }
        guard shape.version <= DynamicExchange.version else {
            throw .invalidImport(["the export has layout version \(shape.version); this ModelStore reads up to \(DynamicExchange.version)"])
        }
        schema = shape.schema
        records = shape.entities.keys.sorted().flatMap { name in
            (shape.entities[name] ?? []).map { record in
                var record = record
                record.entity = name
                return record
            }
        }
    }

    static func describe(_ error: DecodingError) -> String {
        switch error {
        case .dataCorrupted(let context), .keyNotFound(_, let context), .typeMismatch(_, let context),
            .valueNotFound(_, let context):
            let path = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
            return (path.isEmpty ? "" : "at \(path): ") + context.debugDescription
        @unknown default:
            return "\(error)"
        }
    }
}
