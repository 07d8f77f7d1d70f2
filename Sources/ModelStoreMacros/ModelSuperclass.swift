import SwiftSyntax

/// Whether a `@Model` class inherits from another `@Model` class, decided
/// from syntax alone.
///
/// A macro cannot look types up, so the first type of the inheritance
/// clause (the only place Swift allows a superclass) is taken as the
/// superclass unless it is one of the standard protocols a model commonly
/// conforms to. The generated code then names it through
/// `ModelStore._$superclassPropertyCount(of:)`, whose overloads make the
/// compiler report a superclass that is not a `@Model` class (or a protocol
/// taken for one) with a message saying so; a model conforms to its own
/// protocols after the superclass, or in an extension.
enum ModelSuperclass {
    /// Protocols that are never a superclass, spelled bare or `Swift.`/`Foundation.`/`ModelStore.`-qualified.
    private static let standardProtocols: Set<String> = [
        "AnyObject", "PersistentModel", "Observable", "Identifiable", "Hashable", "Equatable", "Comparable",
        "Codable", "Encodable", "Decodable", "Sendable", "CustomStringConvertible", "CustomDebugStringConvertible",
        "CustomReflectable", "CaseIterable",
    ]

    /// The superclass a `@Model` class names, or nil for a root model class.
    static func superclass(of model: ClassDeclSyntax) -> TypeSyntax? {
        guard let first = model.inheritanceClause?.inheritedTypes.first?.type else { return nil }
        if first.is(AttributedTypeSyntax.self) { return nil }  // `@unchecked Sendable`, `@MainActor P`
        let name: String
        if let identifier = first.as(IdentifierTypeSyntax.self) {
            name = identifier.name.text
        } else if let member = first.as(MemberTypeSyntax.self) {
            let module = member.baseType.as(IdentifierTypeSyntax.self)?.name.text
            if let module, ["Swift", "Foundation", "Observation", "ModelStore"].contains(module),
                standardProtocols.contains(member.name.text)
            {
                return nil
            }
            return first.trimmed
        } else {
            return nil  // a composition or another shape: never a superclass
        }
        return standardProtocols.contains(name) ? nil : first.trimmed
    }
}
