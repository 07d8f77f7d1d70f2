import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// `@Model`: turns a class into a persistent model.
///
/// Like `@Observable`, it works in three roles: the member role adds the
/// per-object state, the row initializer, the property table and the
/// observation hooks; the member-attribute role marks each persisted property
/// with `@ModelStore._PersistedProperty(ordinal)`, whose own expansion adds the
/// backing field and tracked accessors; the extension role adds the
/// `PersistentModel` conformance.
///
/// Misuse is reported once, by the member role. The other roles stay silent
/// and simply generate nothing for what the member role rejects, so each
/// error appears a single time.
public struct ModelMacro {
    /// The class that `@Model` may expand, or `nil` with the reason reported
    /// into `diagnostics`.
    static func modelClass(
        _ declaration: some DeclGroupSyntax, attribute: AttributeSyntax, diagnostics: inout [Diagnostic]
    ) -> ClassDeclSyntax? {
        guard let model = declaration.as(ClassDeclSyntax.self) else {
            if let structDecl = declaration.as(StructDeclSyntax.self) {
                let keyword = structDecl.structKeyword
                diagnostics.append(
                    Diagnostic(
                        at: attribute, .notAClass, fixIt: .useFinalClass, replacing: keyword,
                        with: .identifier(
                            "final class", leadingTrivia: keyword.leadingTrivia, trailingTrivia: keyword.trailingTrivia)
                    ))
            } else {
                diagnostics.append(Diagnostic(at: attribute, .notAClass))
            }
            return nil
        }
        if let generics = model.genericParameterClause {
            diagnostics.append(Diagnostic(at: generics, .genericClass))
            return nil
        }
        return model
    }

    /// The class `@Model` expands, without reporting anything (for the silent roles).
    static func modelClass(_ declaration: some DeclGroupSyntax) -> ClassDeclSyntax? {
        guard let model = declaration.as(ClassDeclSyntax.self), model.genericParameterClause == nil else {
            return nil
        }
        return model
    }
}

extension ModelMacro: MemberMacro {
    public static func expansion(
        of node: AttributeSyntax,
        providingMembersOf declaration: some DeclGroupSyntax,
        conformingTo protocols: [TypeSyntax],
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        var diagnostics: [Diagnostic] = []
        defer { diagnostics.forEach(context.diagnose) }
        guard let model = modelClass(declaration, attribute: node, diagnostics: &diagnostics) else {
            return []
        }
        let properties = ModelProperties(model.memberBlock.members)
        diagnostics += properties.diagnostics
        let constraints = ModelConstraints(model.memberBlock.members)
        diagnostics += constraints.diagnostics
        var members = ModelMembers(
            type: model.name.trimmed, properties: properties.persisted, constraints: constraints.entries,
            originalName: originalName(of: node, diagnostics: &diagnostics))
        members.isFinal = model.modifiers.contains(.final)
        if let superclass = ModelSuperclass.superclass(of: model) {
            members.superclass = superclass
            // The entity's name and constraints live in static members that a
            // subclass cannot override; its table is its root class's.
            if !members.constraints.isEmpty || members.originalName != nil {
                diagnostics.append(Diagnostic(at: node, .subclassEntityOptions(model.name.text)))
                members.constraints = []
                members.originalName = nil
            }
        }
        return members.declarations
    }
}

extension ModelMacro {
    /// The string literal of `@Model(originalName: "…")`, if given.
    static func originalName(of node: AttributeSyntax, diagnostics: inout [Diagnostic]) -> String? {
        guard case .argumentList(let arguments) = node.arguments,
            let argument = arguments.first(where: { $0.label?.text == "originalName" })
        else { return nil }
        if argument.expression.is(NilLiteralExprSyntax.self) { return nil }
        guard let literal = argument.expression.as(StringLiteralExprSyntax.self), literal.segments.count == 1,
            case .stringSegment = literal.segments.first
        else {
            diagnostics.append(Diagnostic(at: argument.expression, .originalNameArgument))
            return nil
        }
        return literal.trimmedDescription
    }
}

extension ModelMacro: MemberAttributeMacro {
    public static func expansion(
        of node: AttributeSyntax,
        attachedTo declaration: some DeclGroupSyntax,
        providingAttributesFor member: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [AttributeSyntax] {
        guard let model = modelClass(declaration),
            let variable = member.as(VariableDeclSyntax.self),
            let property = ModelProperties(model.memberBlock.members).property(declaredBy: variable),
            !property.isConstant
        else { return [] }
        if ModelSuperclass.superclass(of: model) != nil {
            return ["@ModelStore._PersistedProperty(\(literal: property.ordinal), afterSuperclass: true)"]
        }
        return ["@ModelStore._PersistedProperty(\(literal: property.ordinal))"]
    }
}

extension ModelMacro: ExtensionMacro {
    public static func expansion(
        of node: AttributeSyntax,
        attachedTo declaration: some DeclGroupSyntax,
        providingExtensionsOf type: some TypeSyntaxProtocol,
        conformingTo protocols: [TypeSyntax],
        in context: some MacroExpansionContext
    ) throws -> [ExtensionDeclSyntax] {
        // The compiler passes only the conformances the type still lacks; the
        // syntactic check covers tools (and tests) that pass all of them.
        // A subclass has its superclass's conformance.
        guard let model = modelClass(declaration), !protocols.isEmpty, ModelSuperclass.superclass(of: model) == nil
        else { return [] }
        let inherited = model.inheritanceClause?.inheritedTypes ?? []
        if inherited.contains(where: { $0.type.isNamed("PersistentModel") }) { return [] }
        // `nonisolated`: a main-actor-isolated class (by attribute or by the
        // module's default isolation) would otherwise get a main-actor
        // conformance, which the library's nonisolated code cannot use.
        return [try ExtensionDeclSyntax("nonisolated extension \(type.trimmed): nonisolated ModelStore.PersistentModel {}")]
    }
}
