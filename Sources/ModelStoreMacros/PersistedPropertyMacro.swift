import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// `@_PersistedProperty(ordinal)`: the tracked accessors and backing field of
/// one persisted property.
///
/// `@Model` attaches it; users never write it. The accessors route every read
/// through observation and every write through the model's change tracking,
/// which needs the ordinal to set the property's dirty bit. The value itself
/// lives in the `_name` peer, marked `@Transient` so that `@Model` does not try
/// to persist the backing field as well.
public struct PersistedPropertyMacro {
    /// The single identifier binding the macro can expand, or `nil`.
    ///
    /// `@Model` has already diagnosed every other shape, so anything else is
    /// skipped without a second report.
    static func binding(of declaration: some DeclSyntaxProtocol) -> (PatternBindingSyntax, TokenSyntax)? {
        guard let variable = declaration.as(VariableDeclSyntax.self),
            variable.bindingSpecifier.tokenKind == .keyword(.var),
            variable.bindings.count == 1, let binding = variable.bindings.first,
            binding.accessorBlock == nil,
            let identifier = binding.pattern.as(IdentifierPatternSyntax.self)?.identifier.trimmed
        else { return nil }
        return (binding, identifier)
    }
}

extension PersistedPropertyMacro: AccessorMacro {
    public static func expansion(
        of node: AttributeSyntax,
        providingAccessorsOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [AccessorDeclSyntax] {
        guard let (_, name) = binding(of: declaration) else { return [] }
        guard let ordinal = ordinal(of: node) else {
            context.diagnose(Diagnostic(at: node, .invalidOrdinal))
            return []
        }
        let storage = "_\(name.bareName)"
        // A relationship that is not loaded yet (a fault) is loaded on first
        // access. For an attribute the test is one inline bit test that is
        // never true, and `_$faultValue` resolves to a generic no-op. Faults
        // live in the state: an object without one has none. A fault that is
        // still one after loading belongs to an object whose context went:
        // the getter returns the value without keeping it (so that such
        // objects never hold each other). A write first makes the property
        // stop being a fault, so that what it writes is what is read after.
        let loadFault = """
            if _$modelStateIfMade?.isFault(\(ordinal)) == true, let value = _$faultValue(\(ordinal), as: Swift.type(of: \(storage))) {
            if _$modelStateIfMade?.isFault(\(ordinal)) == true {
            return value
            }
            \(storage) = value
            }
            """
        let loadFaultBeforeWrite = """
            if _$modelStateIfMade?.isFault(\(ordinal)) == true, let value = _$faultValueBeforeWrite(\(ordinal), as: Swift.type(of: \(storage))) {
            \(storage) = value
            }
            """
        return [
            """
            @storageRestrictions(initializes: \(raw: storage))
            init(initialValue) {
            \(raw: storage) = initialValue
            }
            """,
            """
            get {
            access(keyPath: \\.\(name))
            \(raw: loadFault)
            return \(raw: storage)
            }
            """,
            """
            set {
            \(raw: loadFaultBeforeWrite)
            guard _$willChange(\(ordinal), from: \(raw: storage), to: newValue) else {
            return
            }
            withMutation(keyPath: \\.\(name)) {
            \(raw: storage) = newValue
            }
            }
            """,
            // `_$willModify` reports the read (`access`) itself: it needs to
            // know whether the object had a registrar before it.
            """
            _modify {
            \(raw: loadFaultBeforeWrite)
            let observed = _$willModify(\(ordinal), keyPath: \\.\(name), current: \(raw: storage))
            defer {
            _$didModify(\(ordinal), keyPath: \\.\(name), current: \(raw: storage), observed: observed)
            }
            yield &\(raw: storage)
            }
            """,
        ]
    }

    /// The ordinal argument, which must be a plain integer literal: it becomes
    /// part of the generated code and indexes the dirty bits. With
    /// `afterSuperclass: true` (a property of a `@Model` subclass) it counts
    /// from the superclass's properties, whose number `@Model` keeps in the
    /// subclass's `_$Ordinals.base`.
    private static func ordinal(of node: AttributeSyntax) -> ExprSyntax? {
        guard case .argumentList(let arguments) = node.arguments, (1...2).contains(arguments.count),
            let argument = arguments.first, argument.label == nil,
            let literal = argument.expression.as(IntegerLiteralExprSyntax.self)
        else { return nil }
        guard arguments.count == 2 else { return ExprSyntax(literal.trimmed) }
        guard let flag = arguments.last, flag.label?.text == "afterSuperclass",
            let value = flag.expression.as(BooleanLiteralExprSyntax.self)
        else { return nil }
        if value.literal.tokenKind == .keyword(.false) { return ExprSyntax(literal.trimmed) }
        return "(_$Ordinals.base + \(literal.trimmed))"
    }
}

extension PersistedPropertyMacro: PeerMacro {
    public static func expansion(
        of node: AttributeSyntax,
        providingPeersOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        guard let variable = declaration.as(VariableDeclSyntax.self),
            let (binding, name) = binding(of: variable)
        else { return [] }
        let storage = PatternBindingSyntax(
            pattern: IdentifierPatternSyntax(identifier: .identifier("_\(name.bareName)")),
            typeAnnotation: binding.typeAnnotation?.trimmed,
            initializer: binding.initializer?.trimmed)
        let modifiers = variable.modifiers.withoutAccessControl
            .filter { $0.name.tokenKind != .keyword(.nonisolated) }
            .map { $0.trimmedDescription + " " }.joined()
        // `nonisolated(unsafe)`: the generated row initializer and
        // `_$bindValue` are nonisolated (see `ModelMembers.modelState`) and
        // touch the field directly; the property itself keeps the class's
        // isolation, so app code still reaches the value only through it.
        return ["@ModelStore.Transient nonisolated(unsafe) private \(raw: modifiers)var \(storage)"]
    }
}
