import Foundation
import ModelStore

/// One edit of a property, as store-tool's `set` and `insert` take it:
/// `key=value` (set), `key+=Entity:ID` and `key-=Entity:ID` (add to or
/// remove from a to-many), `key:=JSON` (set from a JSON value, so that
/// `notes:=null` and `notes:="nil"` can be told apart).
package struct DynamicEdit: Sendable, Equatable {
    /// What the edit does.
    package enum Operation: String, Sendable {
        case set = "=", add = "+=", remove = "-="
    }

    /// The property's name.
    package var property: String
    package var operation: Operation
    /// The value as text, parsed later by the property's type; nil for nil.
    package var value: String?

    /// Creates an edit.
    package init(property: String, operation: Operation, value: String?) {
        self.property = property
        self.operation = operation
        self.value = value
    }

    /// Parses `key=value`, `key+=value`, `key-=value` or `key:=JSON`. With
    /// `=`, the text `nil` means nil (for an optional String holding the
    /// text "nil", write `key:="nil"`).
    /// - Throws: `DynamicStoreError.invalidEdit`.
    package init(parsing text: String) throws(DynamicStoreError) {
        guard let equals = text.firstIndex(of: "=") else {
            throw .invalidEdit(text, reason: "write key=value, key+=Entity:ID, key-=Entity:ID or key:=JSON")
        }
        var name = String(text[..<equals])
        let value = String(text[text.index(after: equals)...])
        var operation = Operation.set
        var isJSON = false
        if name.hasSuffix("+") {
            operation = .add
        } else if name.hasSuffix("-") {
            operation = .remove
        } else if name.hasSuffix(":") {
            isJSON = true
        }
        if operation != .set || isJSON { name.removeLast() }
        guard !name.isEmpty else { throw .invalidEdit(text, reason: "the property name is missing") }
        property = name
        self.operation = operation
        if isJSON {
            guard let object = try? JSONSerialization.jsonObject(with: Data(value.utf8), options: .fragmentsAllowed) else {
                throw .invalidEdit(text, reason: "the value after := is not JSON")
            }
            let trimmed = value.trimmingCharacters(in: .whitespacesAndNewlines)
            switch object {
            case is NSNull: self.value = nil
            case let string as String: self.value = string
            case _ where trimmed == "true" || trimmed == "false": self.value = trimmed
            default:
                do {
                    self.value = try ValueText.canonicalJSON(value)
                } catch {
                    throw .invalidEdit(text, reason: error.reason)
                }
            }
        } else {
            self.value = value == "nil" ? nil : value
        }
    }
}
