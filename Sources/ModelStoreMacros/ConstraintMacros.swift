import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxMacros

/// `#Unique<T>([\.a, \.b], …)` and `#Index<T>([\.a], …)` inside a `@Model`
/// class: compound unique constraints and indexes, with SwiftData's names.
///
/// They expand to nothing. `@Model` reads them from the class body (see
/// ``ModelConstraints``) and lists them in the generated `_$constraints`, so
/// that all schema knowledge stays in one macro, as with `@Attribute`.
public struct UniqueMacro: DeclarationMacro {
    public static func expansion(
        of node: some FreestandingMacroExpansionSyntax, in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        []
    }
}

/// `#Index<T>(…)`: see ``UniqueMacro``.
public struct IndexMacro: DeclarationMacro {
    public static func expansion(
        of node: some FreestandingMacroExpansionSyntax, in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        []
    }
}

/// The `#Unique` and `#Index` declarations of a model class, as property names.
struct ModelConstraints {
    /// `.unique(["a", "b"])` and `.index(["a"])` expressions, in declaration order.
    private(set) var entries: [String] = []
    private(set) var diagnostics: [Diagnostic] = []

    init(_ members: MemberBlockItemListSyntax) {
        for member in members {
            guard let expansion = member.decl.as(MacroExpansionDeclSyntax.self) else { continue }
            let kind: String
            switch expansion.macroName.text {
            case "Unique": kind = "unique"
            case "Index": kind = "index"
            default: continue
            }
            for argument in expansion.arguments {
                guard let array = Self.keyPathArray(argument.expression, allowingIndexTypes: kind == "index") else {
                    diagnostics.append(Diagnostic(at: argument.expression, .constraintArgument(expansion.macroName.text)))
                    continue
                }
                var names: [String] = []
                for element in array.elements {
                    guard let name = Self.propertyName(element.expression) else {
                        diagnostics.append(Diagnostic(at: element.expression, .constraintArgument(expansion.macroName.text)))
                        continue
                    }
                    names.append("\"\(name)\"")
                }
                if !names.isEmpty { entries.append(".\(kind)([\(names.joined(separator: ", "))])") }
            }
        }
    }

    /// The array of key paths an argument holds: `[\.a, \.b]`, or for
    /// `#Index` also SwiftData's `.binary([…])` and `.rtree([…])`. SQLite has
    /// no R-tree index over a table's columns (only R-tree virtual tables),
    /// so an `.rtree` index is an ordinary index over the same columns.
    private static func keyPathArray(_ expression: ExprSyntax, allowingIndexTypes: Bool) -> ArrayExprSyntax? {
        if let array = expression.as(ArrayExprSyntax.self) { return array }
        guard allowingIndexTypes, let call = expression.as(FunctionCallExprSyntax.self),
            let member = call.calledExpression.as(MemberAccessExprSyntax.self),
            ["binary", "rtree"].contains(member.declName.baseName.text),
            call.arguments.count == 1, call.arguments.first?.label == nil
        else { return nil }
        return call.arguments.first?.expression.as(ArrayExprSyntax.self)
    }

    /// The property a key path such as `\.name` or `\Trip.name` names.
    private static func propertyName(_ expression: ExprSyntax) -> String? {
        guard let keyPath = expression.as(KeyPathExprSyntax.self), keyPath.components.count == 1,
            let component = keyPath.components.first?.component.as(KeyPathPropertyComponentSyntax.self)
        else { return nil }
        return component.declName.baseName.bareName
    }
}
