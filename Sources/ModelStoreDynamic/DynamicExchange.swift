import Foundation
import ModelStore

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
package enum DynamicExchange {
    /// The value of the file's `format` member.
    package static let formatName = "modelstore-export"
    /// The version of the file's layout.
    package static let version = 1

    /// The opening of an export file, up to the first entity.
    /// - Throws: `EncodingError`, which plain schema values do not cause.
    package static func header(schema: Schema) throws -> String {
        let schemaText = String(decoding: try schema.recordData(), as: UTF8.self)
        return "{\"format\":\(ValueJSON.quote(formatName)),\"version\":\(version),\"schema\":\(schemaText),\"entities\":{"
    }

    /// One object as a record: `{"key":…,"attributes":{…},"relationships":{…}}`.
    /// To-manys must hold their members (`includesToManyMembers`).
    /// A stored value that could not be read is written as a marker
    /// (`unreadable(_:)`) that an import refuses.
    package static func record(_ object: DynamicObject, entity: Schema.Entity) -> String {
        let attributes = entity.attributes.map { attribute in
            let value = object.unreadable[attribute.name].map(unreadable) ?? ValueJSON.json(object[attribute.name] ?? .null)
            return ValueJSON.quote(attribute.name) + ":" + value
        }
        let relationships = entity.relationships.map { ValueJSON.quote($0.name) + ":" + ValueJSON.json(object[$0.name] ?? .null) }
        return "{\"key\":\(ValueJSON.quote(object.id.description)),\"attributes\":{" + attributes.joined(separator: ",")
            + "},\"relationships\":{" + relationships.joined(separator: ",") + "}}"
    }
}

extension DynamicExchange {
    /// A stored value that could not be read, as JSON:
    /// `{"$unreadable":{"problem":"…","stored":…}}`, the stored value as
    /// SQLite holds it (a blob as `x'…'` hex text).
    package static func unreadable(_ value: UnreadableValue) -> String {
        let stored: String
        switch value.stored {
        case .null: stored = "null"
        case .integer(let number): stored = String(number)
        case .real(let number): stored = ValueJSON.number(number)
        case .text(let text): stored = ValueJSON.quote(text)
        case .blob(let data): stored = ValueJSON.quote("x'" + data.map { String(format: "%02x", $0) }.joined() + "'")
        }
        return "{" + ValueJSON.quote(ValueJSON.unreadableMarker) + ":{\"problem\":" + ValueJSON.quote(value.reason)
            + ",\"stored\":" + stored + "}}"
    }
}

/// A JSON export file, read: the schema it records and its records.
package struct DynamicExportFile: Sendable {
    /// One exported object, before it is checked against a schema.
    package struct Record: Sendable {
        /// The entity it was exported from (the member of `entities` it is in).
        package var entity: String = ""
        /// Its exported key, `Entity:ID`.
        package var key: String
        /// Attribute values by name.
        package var attributes: [String: ExchangeJSON]?
        /// Relationships by name: `"Entity:ID"`, null, or an array of them.
        package var relationships: [String: ExchangeJSON]?
        /// Attributes whose text (in a CSV file) does not parse as their
        /// type, with the reason; the check reports them.
        package var fieldProblems: [String: String] = [:]
    }

    /// The schema record of the exported store.
    package let schema: Schema
    /// Every record, entity by entity (sorted by name), in file order within one.
    package let records: [Record]

    /// Reads an export file, whole: its JSON is parsed once
    /// (`ExchangeJSONParser`), so it takes memory in proportion to the file.
    /// - Throws: `DynamicStoreError.invalidImport` with one line when the
    ///   data is not a ModelStore JSON export of a version this reads.
    package init(data: Data) throws(DynamicStoreError) {
        let notAnExport = "the file is not a ModelStore JSON export: "
        let json: ExchangeJSON
        do throws(ExchangeJSONParser.Failure) {
            json = try ExchangeJSONParser.parse([UInt8](data)[...])
        } catch {
            throw .invalidImport([notAnExport + error.description])
        }
        guard case .object(let top) = json else { throw .invalidImport([notAnExport + "it is \(json.summary), not an object"]) }
        schema = try Self.schema(header: top)
        guard case .object(let entities)? = top["entities"] else {
            throw .invalidImport([notAnExport + "no object member 'entities'"])
        }
        var records: [Record] = []
        for name in entities.keys.sorted() {
            guard case .array(let items)? = entities[name] else {
                throw .invalidImport([notAnExport + "at .entities.\(name): expected an array of records"])
            }
            for (index, item) in items.enumerated() {
                do throws(ImportLineFailure) {
                    var record = try Record(json: item)
                    record.entity = name
                    records.append(record)
                } catch {
                    throw .invalidImport([notAnExport + "at .entities.\(name)[\(index)]: " + error.reason])
                }
            }
        }
        self.records = records
    }

    /// The schema an export's top-level members record, after checking its
    /// `format` and `version`.
    /// - Throws: `DynamicStoreError.invalidImport` with one line.
    static func schema(header top: [String: ExchangeJSON]) throws(DynamicStoreError) -> Schema {
        let notAnExport = "the file is not a ModelStore JSON export: "
        guard case .string(let format)? = top["format"] else { throw .invalidImport([notAnExport + "no member 'format'"]) }
        guard format == DynamicExchange.formatName else {
            throw .invalidImport(["the file's format is '\(format)', not '\(DynamicExchange.formatName)'"])
        }
        guard case .int(let version)? = top["version"] else { throw .invalidImport([notAnExport + "no integer member 'version'"]) }
        guard version <= DynamicExchange.version else {
            throw .invalidImport(["the export has layout version \(version); this ModelStore reads up to \(DynamicExchange.version)"])
        }
        guard let schemaJSON = top["schema"] else { throw .invalidImport([notAnExport + "no member 'schema'"]) }
        do {
            return try JSONDecoder().decode(Schema.self, from: Data(schemaJSON.text.utf8))
        } catch let error as DecodingError {
            throw .invalidImport([notAnExport + "at .schema: " + Self.describe(error)])
        } catch {
            throw .invalidImport([notAnExport + "at .schema: \(error)"])
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
