import Foundation
import ModelStore

// What the schema record says about an attribute's values, applied by the
// dynamic layer: an enum's cases and a Codable type's structure limit the
// values `set`, `insert` and `import` accept (and `check` finds stored), and
// a constant default fills an insert that leaves the attribute out.

extension Schema.Attribute {
    /// The Swift type's name as people write it: `TripStatus`, not
    /// `Optional<TripStatus>`.
    package var typeName: String {
        if swiftType.hasPrefix("Optional<"), swiftType.hasSuffix(">") { return String(swiftType.dropFirst(9).dropLast()) }
        return swiftType
    }

    /// Why `value` is not a value the record allows for the attribute: not
    /// one of its enum's cases (`caseProblem`), or JSON that does not fit its
    /// Codable type's recorded structure (`shapeProblem`); nil when it is
    /// allowed. What `set`, `insert`, `import` and `check` ask of a value.
    package func valueProblem(_ value: DynamicValue) -> String? {
        caseProblem(value) ?? shapeProblem(value)
    }

    /// Why `value` is not one of the enum's recorded cases, naming the value
    /// and every case; nil when it is one, when it is nil, or when the record
    /// holds no cases for the attribute.
    package func caseProblem(_ value: DynamicValue) -> String? {
        guard let enumCases, !value.isNull else { return nil }
        let cases = enumCases.compactMap { try? ValueText.parse($0, as: kind) }
        guard !cases.contains(value) else { return nil }
        return "'\(ValueText.format(value))' is not a case of \(typeName); the cases are "
            + enumCases.joined(separator: ", ")
    }

    /// The recorded default value, parsed by the attribute's kind; nil when
    /// the record holds none.
    /// - Throws: `ValueCodingFailure` when the recorded text does not parse
    ///   (a record edited by hand).
    package func recordedDefault() throws(ValueCodingFailure) -> DynamicValue? {
        guard let defaultValue else { return nil }
        do {
            return try ValueText.parse(defaultValue, as: kind)
        } catch {
            throw ValueCodingFailure("the recorded default '\(defaultValue)' is not a valid value: \(error.reason)")
        }
    }
}
