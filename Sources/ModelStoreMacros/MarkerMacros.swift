import SwiftSyntax
import SwiftSyntaxMacros

/// `@Attribute(...)`: schema options for one persisted property.
///
/// It expands to nothing. `@Model` reads its arguments syntactically while
/// building the property table, which keeps all schema knowledge in one macro
/// instead of spreading it across per-property expansions.
public struct AttributeMacro: PeerMacro {
    public static func expansion(
        of node: AttributeSyntax,
        providingPeersOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        []
    }
}

/// `@Relationship(...)`: delete rule, inverse and limits of one relationship.
///
/// It expands to nothing, like `@Attribute`: `@Model` reads its arguments
/// while building the property table.
public struct RelationshipMacro: PeerMacro {
    public static func expansion(
        of node: AttributeSyntax,
        providingPeersOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        []
    }
}

/// `@Transient`: keeps a stored property out of the store.
///
/// It expands to nothing; `@Model` skips properties that carry it. The
/// generated backing fields carry it too, which stops `@Model` from treating
/// them as persisted properties in turn.
public struct TransientMacro: PeerMacro {
    public static func expansion(
        of node: AttributeSyntax,
        providingPeersOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        []
    }
}
