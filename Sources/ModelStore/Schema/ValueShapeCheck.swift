import Foundation

// Whether a Codable attribute's JSON fits the structure its type decodes
// from (`ValueShape`): what store-tool's `set`, `insert` and `import` ask of
// a value before writing it, and `check` of every stored one.

extension ValueShape {
    /// The first place where `json` does not fit the shape, as
    /// `path: expected …, found …` (`budget.amount: expected a number,
    /// found the string "lots"`); nil when it fits.
    ///
    /// Only what the shape records is checked: `any` parts accept anything,
    /// and objects accept keys the shape does not name.
    /// - Parameter path: The value's name in the message, usually the
    ///   attribute's name; keys and indexes are appended to it.
    /// - Complexity: O(size of `json`).
    package func mismatch(in json: ExchangeJSON, path: String) -> String? {
        switch (self, json) {
        case (.any, _), (.optional, .null): return nil
        case (.optional(let wrapped), _): return wrapped.mismatch(in: json, path: path)
        case (.bool, .bool), (.string, .string), (.number, .int), (.number, .double), (.integer, .int): return nil
        // JSONDecoder reads an integer from a number such as 3.0 that has
        // no fraction.
        case (.integer, .double(let value)) where value.rounded() == value && value.isFinite: return nil
        case (.array(let element), .array(let values)):
            for (index, value) in values.enumerated() {
                if let problem = element.mismatch(in: value, path: "\(path)[\(index)]") { return problem }
            }
            return nil
        case (.dictionary(let valueShape), .object(let members)):
            for key in members.keys.sorted() {
                if let value = members[key], let problem = valueShape.mismatch(in: value, path: "\(path).\(key)") { return problem }
            }
            return nil
        case (.object(let fields), .object(let members)):
            for key in fields.keys.sorted() {
                guard let field = fields[key] else { continue }
                guard let value = members[key] else {
                    if case .optional = field { continue }
                    if case .any = field { continue }
                    return "\(path): missing the key \(ValueJSON.quote(key)) (\(field.expectation))"
                }
                if let problem = field.mismatch(in: value, path: "\(path).\(key)") { return problem }
            }
            return nil
        case (.oneOf(let values), _):
            return values.contains(json) ? nil : "\(path): expected \(expectation), found \(Self.describe(json))"
        default:
            return "\(path): expected \(expectation), found \(Self.describe(json))"
        }
    }

    /// What a value of the shape looks like, for messages.
    package var expectation: String {
        switch self {
        case .any: "any JSON value"
        case .bool: "true or false"
        case .integer: "an integer"
        case .number: "a number"
        case .string: "a string"
        case .array(let element): "an array of \(element.pluralExpectation)"
        case .dictionary: "an object"
        case .optional(let wrapped): "\(wrapped.expectation) or null"
        case .object(let fields) where fields.isEmpty: "an object"
        case .object(let fields): "an object with the keys " + fields.keys.sorted().joined(separator: ", ")
        case .oneOf(let values): "one of " + values.map(\.text).joined(separator: ", ")
        }
    }

    private var pluralExpectation: String {
        switch self {
        case .bool: "true or false"
        case .integer: "integers"
        case .number: "numbers"
        case .string: "strings"
        case .any: "any values"
        default: "values such as " + expectation
        }
    }

    private static func describe(_ json: ExchangeJSON) -> String {
        switch json {
        case .null: "null"
        case .bool(let value): value ? "true" : "false"
        case .int, .double: "the number \(json.text)"
        case .string: "the string \(json.summary)"
        case .array: "an array"
        case .object: "an object"
        }
    }
}
