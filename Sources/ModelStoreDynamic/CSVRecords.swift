import Foundation
import ModelStore

/// store-tool's CSV of one entity's objects: RFC 4180 (fields separated by
/// commas, quoted with `"` when they hold a comma, a quote, a line break or
/// nothing, a quote inside written twice), with a header row of property
/// names, `id` first as `export --format csv` writes it.
///
/// Nil and text are told apart as PostgreSQL's CSV `COPY` tells them: an
/// empty field that is not quoted is nil, `""` is the empty string, and
/// every other field is text, so `nil` is the three letters.
///
/// ```text
/// id,title,notes,trip
/// Stop:1,"Belém, the tower",,Trip:1
/// Stop:2,nil,"",Trip:1
/// ```
package enum CSVFormat {
    /// A field: nil as nothing, the empty string as `""`, other text quoted
    /// only when it holds a comma, a quote or a line break.
    package static func field(_ text: String?) -> String {
        guard let text else { return "" }
        guard text.isEmpty || text.utf8.contains(where: { $0 == 0x2C || $0 == 0x22 || $0 == 0x0A || $0 == 0x0D }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// A value as a field's text: `ValueText`'s form (as `list` shows it),
    /// nil for nil.
    package static func text(_ value: DynamicValue) -> String? {
        value == .null ? nil : ValueText.format(value)
    }
}

/// Reads the rows of a CSV file (`CSVFormat`) one at a time: memory for
/// one row. A row ends at a line break outside quotes (`\r\n` or `\n`); a
/// quoted field may hold line breaks, kept as they are.
struct CSVReader {
    /// Where a row begins, 1-based.
    private(set) var line = 0
    private let reader: LineReader
    private var nextLineNumber = 1

    /// - Throws: `DynamicStoreError.invalidImport` naming the file.
    init(path: String) throws {
        reader = try LineReader(path: path, keepsCarriageReturns: true)
    }

    /// Reads the header row: names of `entity`'s attributes and to-ones,
    /// each once, and `id`.
    /// - Throws: `DynamicStoreError.invalidImport` naming the line and column
    ///   of a name that is not one, or when the file is empty.
    mutating func header(of entity: Schema.Entity) throws -> [String] {
        guard let row = try nextRow() else { throw DynamicStoreError.invalidImport(["line 1: no header row of property names"]) }
        let names: [String?]
        switch row {
        case .success(let fields): names = fields
        case .failure(let failure): throw DynamicStoreError.invalidImport(["line \(line): \(failure.reason)"])
        }
        var seen = Set<String>()
        var problems: [String] = []
        for (index, name) in names.enumerated() {
            let name = name ?? ""
            let place = "line \(line), column \(index + 1)"
            if !seen.insert(name).inserted {
                problems.append("\(place): '\(name)' appears twice in the header")
            } else if let relationship = entity.relationship(named: name), relationship.isToMany {
                problems.append("\(place): \(entity.name).\(name) is a to-many relationship, which a CSV file does not hold")
            } else if name != "id" && entity.attribute(named: name) == nil && entity.relationship(named: name) == nil {
                let closest = Suggestions.closest(to: name, in: ["id"] + entity.attributes.map(\.name) + entity.relationships.map(\.name))
                problems.append(
                    "\(place): \(entity.name) has no property named '\(name)'"
                        + (closest.isEmpty ? "" : "; did you mean '\(closest.joined(separator: "', '"))'?"))
            }
        }
        guard problems.isEmpty else { throw DynamicStoreError.invalidImport(problems) }
        return names.map { $0 ?? "" }
    }

    /// The next row's fields (nil for an empty unquoted field), or a
    /// problem naming its column; nil at the end of the file.
    /// - Throws: `DynamicStoreError.invalidImport` when reading fails.
    mutating func nextRow() throws -> Result<[String?], ImportLineFailure>? {
        guard var bytes = try reader.nextLine() else { return nil }
        line = nextLineNumber
        nextLineNumber += 1
        var fields: [String?] = []
        var field: [UInt8] = []
        var isQuoted = false
        var inQuotes = false
        var afterQuote = false
        var index = bytes.startIndex
        /// Where the quoted field being read opened (1-based byte in the row).
        var quoteColumn = 0
        func finishField() -> Result<Void, ImportLineFailure> {
            var text = field
            if !isQuoted && text.last == 0x0D && index == bytes.endIndex { text.removeLast() }
            guard let string = String(validating: text, as: UTF8.self) else {
                return .failure(ImportLineFailure(reason: "column \(fields.count + 1): the field is not valid UTF-8"))
            }
            fields.append(isQuoted || !string.isEmpty ? string : nil)
            field = []
            isQuoted = false
            afterQuote = false
            return .success(())
        }
        while true {
            if index == bytes.endIndex {
                if inQuotes {
                    // A quoted field goes on over the line break.
                    guard let more = try reader.nextLine() else {
                        return .failure(ImportLineFailure(reason: "column \(quoteColumn): a quoted field is not closed before the end of the file"))
                    }
                    nextLineNumber += 1
                    field.append(0x0A)
                    let offset = index - bytes.startIndex
                    bytes = Array(bytes)[...] + more
                    index = bytes.startIndex + offset
                    continue
                }
                if case .failure(let failure) = finishField() { return .failure(failure) }
                return .success(fields)
            }
            let byte = bytes[index]
            index += 1
            // The 1-based position of `byte` in the row.
            let column = index - bytes.startIndex
            if inQuotes {
                if byte == 0x22 {
                    if index < bytes.endIndex && bytes[index] == 0x22 {
                        field.append(0x22)
                        index += 1
                    } else {
                        inQuotes = false
                        afterQuote = true
                    }
                } else {
                    field.append(byte)
                }
                continue
            }
            switch byte {
            case 0x2C:
                if case .failure(let failure) = finishField() { return .failure(failure) }
            case 0x22 where field.isEmpty && !isQuoted:
                isQuoted = true
                inQuotes = true
                quoteColumn = column
            case 0x0D where afterQuote && index == bytes.endIndex:
                continue
            default:
                let kind = afterQuote ? "after a closing quote" : byte == 0x22 ? "inside an unquoted field" : nil
                if let kind {
                    return .failure(ImportLineFailure(reason: "column \(column): \(byte == 0x22 ? "a quote" : "text") \(kind); quote the whole field and double its quotes"))
                }
                field.append(byte)
            }
        }
    }
}

extension DynamicExportFile.Record {
    /// A record from a CSV row of `entity` under `header` (property names):
    /// its key from the `id` column (`Entity:ID`), or `Entity:ROW` without
    /// one; attributes parsed from their text by type (as `set` parses
    /// them; a Codable value as JSON), to-ones as `Entity:ID` keys. A field
    /// that does not parse is in `fieldProblems`. The header's names are
    /// checked before (`CSVReader.header`).
    init(csv fields: [String?], header: [String], entity: Schema.Entity, row: Int) {
        self.init(entity: entity.name, key: "\(entity.name):\(row)")
        var attributes: [String: ExchangeJSON] = [:]
        var relationships: [String: ExchangeJSON] = [:]
        var problems: [String: String] = [:]
        for (name, field) in zip(header, fields) {
            if name == "id" {
                key = field ?? ""
                continue
            }
            if entity.relationship(named: name) != nil {
                relationships[name] = field.map { .string($0) } ?? .null
                continue
            }
            guard let field else {
                attributes[name] = .null
                continue
            }
            guard let attribute = entity.attribute(named: name) else {
                attributes[name] = .string(field)
                continue
            }
            switch Self.json(field, as: attribute.kind) {
            case .success(let json): attributes[name] = json
            case .failure(let failure): problems[name] = failure.reason
            }
        }
        self.attributes = attributes
        self.relationships = relationships
        fieldProblems = problems
    }

    /// A field's text as the JSON value an export holds for `kind`.
    private static func json(_ text: String, as kind: ValueKind) -> Result<ExchangeJSON, ImportLineFailure> {
        switch kind {
        case .string: return .success(.string(text))
        case .codable:
            do throws(ExchangeJSONParser.Failure) {
                return .success(try ExchangeJSONParser.parse(Array(text.utf8)[...]))
            } catch {
                return .failure(ImportLineFailure(reason: "expected JSON, but \(error.description)"))
            }
        default:
            let value: DynamicValue
            do throws(ValueCodingFailure) {
                value = try ValueText.parse(text, as: kind)
            } catch {
                return .failure(ImportLineFailure(reason: error.reason))
            }
            // The value's lossless JSON, as an export would hold it.
            guard let json = try? ExchangeJSONParser.parse(Array(ValueJSON.json(value).utf8)[...]) else {
                return .failure(ImportLineFailure(reason: "\(ValueText.format(value)) has no JSON form"))
            }
            return .success(json)
        }
    }
}
