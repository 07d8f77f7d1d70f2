import Foundation

// What the schema record says about an attribute's values: its enum cases and
// its constant default, in store-tool's text form (what `key=value` takes),
// so that a tool without the app's code can fill defaults and check cases.

/// A value of a column type in store-tool's text form: integers and reals as
/// digits, Bools as `true`/`false`, strings as themselves, decimals, UUIDs
/// and URLs as their stored text, `Data` as base64. Nil for a value with no
/// constant text form (a date, a non-finite real).
func recordText(of value: Any) -> String? {
    switch value {
    case let value as Bool: value ? "true" : "false"
    case let value as any BinaryInteger: "\(value)"
    case let value as Double: value.isFinite ? "\(value)" : nil
    case let value as Float: value.isFinite ? "\(value)" : nil
    case let value as String: value
    case let value as Decimal: value.storedText
    case let value as UUID: value.uuidString
    case let value as URL: value.absoluteString
    case let value as Data: value.base64EncodedString()
    default: nil
    }
}

/// The raw values of `type`'s cases in text form, in declaration order, when
/// the type is `CaseIterable`; nil otherwise.
func enumCaseTexts<Value: RawRepresentable>(_ type: Value.Type) -> [String]? {
    guard let iterable = type as? any CaseIterable.Type else { return nil }
    let texts = allCases(of: iterable).compactMap { ($0 as? Value).flatMap { recordText(of: $0.rawValue) } }
    return texts.isEmpty ? nil : texts
}

private func allCases<T: CaseIterable>(of type: T.Type) -> [Any] {
    T.allCases.map { $0 as Any }
}

/// A `Codable` value as the JSON text typed models store: compact, keys
/// sorted, slashes unescaped.
/// - Throws: `ValueCodingFailure` when the value does not encode.
func storedJSONText<Value: Encodable>(_ value: Value) throws(ValueCodingFailure) -> String {
    let encoder = JSONEncoder()
    // Sorted keys: equal values give equal text, so the file diffs and
    // compares cleanly.
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    do {
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    } catch {
        throw ValueCodingFailure("the value does not encode as JSON: \(describeWithoutValues(error))")
    }
}
