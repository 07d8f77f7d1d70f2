import Foundation

/// The JSON structure a `Codable` attribute's type decodes from, as far as
/// it can be known without the app's code: what the schema record holds for
/// a Codable attribute (`Schema.Attribute.codableShape`), so that store-tool
/// can refuse a value the app could not decode.
///
/// A shape only ever narrows what is known: `any` stands for every part
/// whose structure could not be derived (a custom `init(from:)` that
/// rejects placeholders, a recursive reference), and accepts any JSON. An
/// object accepts keys it does not name, as `JSONDecoder` ignores them.
///
/// Its record form is compact JSON with sorted keys, so that equal shapes
/// give equal record text: `"any"`, `"bool"`, `"integer"`, `"number"`,
/// `"string"`, `{"array":S}`, `{"dictionary":S}` (an object with any keys,
/// each value of shape S), `{"optional":S}` (null, or a missing key, or S),
/// `{"object":{"key":S,…}}` and `{"oneOf":[JSON,…]}` (an enum's encoded cases).
package indirect enum ValueShape: Sendable, Equatable {
    case any
    case bool
    case integer
    case number
    case string
    case array(ValueShape)
    case dictionary(ValueShape)
    case optional(ValueShape)
    case object([String: ValueShape])
    case oneOf([ExchangeJSON])

    /// The shape as compact JSON with sorted keys: the schema record's form.
    package var recordText: String { json.text }

    private var json: ExchangeJSON {
        switch self {
        case .any: .string("any")
        case .bool: .string("bool")
        case .integer: .string("integer")
        case .number: .string("number")
        case .string: .string("string")
        case .array(let element): .object(["array": element.json])
        case .dictionary(let value): .object(["dictionary": value.json])
        case .optional(let wrapped): .object(["optional": wrapped.json])
        case .object(let fields): .object(["object": .object(fields.mapValues(\.json))])
        case .oneOf(let values): .object(["oneOf": .array(values)])
        }
    }

    /// Reads a shape from its record form.
    /// - Throws: `ValueCodingFailure` naming what is not a shape (a record
    ///   edited by hand, or written by a newer ModelStore).
    package init(recordText: String) throws(ValueCodingFailure) {
        let json: ExchangeJSON
        do {
            json = try JSONDecoder().decode(ExchangeJSON.self, from: Data(recordText.utf8))
        } catch {
            throw ValueCodingFailure("the recorded structure is not JSON")
        }
        self = try Self(json: json)
    }

    private init(json: ExchangeJSON) throws(ValueCodingFailure) {
        switch json {
        case .string("any"): self = .any
        case .string("bool"): self = .bool
        case .string("integer"): self = .integer
        case .string("number"): self = .number
        case .string("string"): self = .string
        case .object(let members) where members.count == 1:
            switch members.first {
            case ("array", let element)?: self = .array(try Self(json: element))
            case ("dictionary", let value)?: self = .dictionary(try Self(json: value))
            case ("optional", let wrapped)?: self = .optional(try Self(json: wrapped))
            case ("oneOf", .array(let values))?: self = .oneOf(values)
            case ("object", .object(let fields))?:
                var shapes: [String: ValueShape] = [:]
                for (key, field) in fields { shapes[key] = try Self(json: field) }
                self = .object(shapes)
            default: throw ValueCodingFailure("the recorded structure has an unknown part \(json.summary)")
            }
        default: throw ValueCodingFailure("the recorded structure has an unknown part \(json.summary)")
        }
    }

    /// The parsed shapes of the record texts read so far: `check` asks for
    /// an attribute's shape once per row.
    private static let parsed = Locked<[String: ValueShape]>([:])

    /// The shape a record text describes, parsed once per process.
    /// - Throws: `ValueCodingFailure` when the text is not a shape.
    package static func recorded(_ text: String) throws(ValueCodingFailure) -> ValueShape {
        if let shape = parsed.withLock({ $0[text] }) { return shape }
        let shape = try ValueShape(recordText: text)
        parsed.withLock { shapes in
            // A store's record holds a handful of shapes; the bound only
            // keeps a process that reads many stores from growing without end.
            if shapes.count >= 256 { shapes.removeAll() }
            shapes[text] = shape
        }
        return shape
    }
}
