import SwiftDiagnostics
import SwiftSyntax

/// One property that `@Model` stores in a column.
struct PersistedProperty {
    /// The name without backticks: the schema name and the backing field's suffix.
    let name: String
    /// The name as written, so that key paths to keywords stay escaped.
    let identifier: TokenSyntax
    /// The type to name in `(T).self`; see ``StoredType/resolve(annotation:initializer:)``.
    /// Nil when the declaration leaves it to inference (`var created = Date()`):
    /// the generated code then names it through the property's key path.
    let type: TypeSyntax?
    /// True for a `let`: set once (by the app's `init`, or from the row),
    /// never changed, so it has no tracked accessors and no backing field.
    var isConstant = false
    /// The 0-based position among persisted properties, in declaration order.
    let ordinal: Int
    /// The unlabeled `@Attribute` arguments, copied verbatim.
    let options: [ExprSyntax]
    /// The `originalName:` argument of `@Attribute`, copied verbatim.
    let originalName: ExprSyntax?
    /// The arguments of `@Relationship` by label ("" for the options), copied
    /// verbatim; nil when the property has no `@Relationship`.
    let relationshipArguments: [(label: String, expression: ExprSyntax)]?
    /// The initial value (`= …`), which migrations use to fill the column of
    /// a new or newly required attribute, and which the schema record holds
    /// when it is a constant (see ``DefaultExpression``).
    var defaultValue: ExprSyntax? = nil

    /// The `.transformable(by: …)` option among the `@Attribute` options, as
    /// written: such a property is stored through its value transformer
    /// (the generated code passes the option along), whatever its type.
    var transformer: ExprSyntax? {
        options.last { option in
            guard let call = option.as(FunctionCallExprSyntax.self),
                let member = call.calledExpression.as(MemberAccessExprSyntax.self)
            else { return false }
            return member.declName.baseName.text == "transformable"
        }
    }
}

/// The stored properties of a `@Model` class, sorted into persisted ones and misuses.
///
/// Every role of `@Model` builds this from the same original member list, so
/// the ordinal that the member-attribute role writes on a property always
/// matches the column index that the generated `init(_$row:)` reads. A property
/// with an error is left out entirely: it stays a plain stored property, and
/// only its diagnostic is reported.
struct ModelProperties {
    private(set) var persisted: [PersistedProperty] = []
    private(set) var diagnostics: [Diagnostic] = []

    init(_ members: MemberBlockItemListSyntax) {
        for member in members {
            guard let variable = member.decl.as(VariableDeclSyntax.self) else { continue }
            analyze(variable)
        }
    }

    /// The persisted property declared by `variable`, if it is one.
    ///
    /// Matched by name: the compiler hands the member-attribute role a copy of
    /// the member, not a node of the class's tree, and names are unique anyway.
    func property(declaredBy variable: VariableDeclSyntax) -> PersistedProperty? {
        guard variable.bindings.count == 1,
            let pattern = variable.bindings.first?.pattern.as(IdentifierPatternSyntax.self)
        else { return nil }
        return persisted.first { $0.name == pattern.identifier.bareName }
    }

    private mutating func analyze(_ variable: VariableDeclSyntax) {
        let modifiers = variable.modifiers
        if modifiers.contains(.static) || modifiers.contains(.class) { return }

        let transient = variable.attributes.attribute(named: "Transient")
        let attribute = variable.attributes.attribute(named: "Attribute")
        let relationship = variable.attributes.attribute(named: "Relationship")
        if let transient, attribute != nil {
            diagnostics.append(Diagnostic(at: transient, .transientAndAttribute))
            return
        }
        if let transient, relationship != nil {
            diagnostics.append(Diagnostic(at: transient, .transientAndRelationship))
            return
        }
        if let attribute, relationship != nil {
            diagnostics.append(Diagnostic(at: attribute, .attributeAndRelationship))
            return
        }
        let exclusion =
            transient != nil
            ? "Transient" : variable.attributes.contains(attributeNamed: "ObservationIgnored") ? "ObservationIgnored" : nil

        if variable.bindingSpecifier.tokenKind == .keyword(.let) {
            if let exclusion {
                checkLet(variable, exclusion: exclusion)
            } else {
                analyzeLet(variable, attribute: attribute, relationship: relationship)
            }
            return
        }
        if let exclusion {
            checkDefaultValues(variable, attribute: exclusion)
            return
        }
        // A getter anywhere means a computed property, which has nothing to store.
        if variable.bindings.contains(where: { $0.accessorBlock.map { !$0.isObserversOnly } ?? false }) {
            return
        }
        if let lazy = modifiers.first(where: { $0.name.tokenKind == .keyword(.lazy) }) {
            for name in variable.bindings.names {
                diagnostics.append(Diagnostic(at: lazy, .lazyProperty(name)))
            }
            return
        }
        guard let (binding, pattern) = singleBinding(of: variable) else { return }
        let name = pattern.identifier.bareName
        if let observers = binding.accessorBlock {
            diagnostics.append(Diagnostic(at: observers, .observers(name)))
            return
        }
        let annotation = binding.typeAnnotation?.type
        let type = StoredType.resolve(annotation: annotation, initializer: binding.initializer?.value)
        if let annotation, let reason = StoredType.unstorableReason(annotation) {
            diagnostics.append(Diagnostic(at: annotation, .unstorableType(name, reason: reason)))
            return
        }
        let (options, originalName) = Self.schemaArguments(of: attribute)
        persisted.append(
            PersistedProperty(
                name: name, identifier: pattern.identifier.trimmed, type: type,
                ordinal: persisted.count, options: options, originalName: originalName,
                relationshipArguments: relationship.map(Self.labeledArguments),
                defaultValue: binding.initializer?.value.trimmed))
    }

    /// The one binding of a persisted declaration; nil, with the
    /// diagnostic, for `var a, b: Int` or a pattern.
    private mutating func singleBinding(of variable: VariableDeclSyntax) -> (PatternBindingSyntax, IdentifierPatternSyntax)? {
        guard variable.bindings.count == 1, let binding = variable.bindings.first,
            let pattern = binding.pattern.as(IdentifierPatternSyntax.self)
        else {
            diagnostics.append(Diagnostic(at: variable.bindings, .multipleBindings))
            return nil
        }
        return (binding, pattern)
    }

    /// An excluded `let` is not read from the row, so `init(_$row:)` relies
    /// on its initial value.
    private mutating func checkLet(_ variable: VariableDeclSyntax, exclusion: String) {
        for binding in variable.bindings where binding.initializer == nil {
            guard let name = binding.pattern.as(IdentifierPatternSyntax.self)?.identifier.bareName else { continue }
            diagnostics.append(Diagnostic(at: binding.pattern, .missingDefault(name, attribute: exclusion)))
        }
    }

    /// A persisted `let`, as SwiftData persists one: the app's `init` sets
    /// it, `init(_$row:)` sets it from the row, and nothing changes it after.
    /// One with an initial value cannot take a stored value in
    /// `init(_$row:)`: a literal (`let kind = "trip"`) is the same for every
    /// object and is left alone; any other (`let created = Date()`) is
    /// refused, since a fetched object would show a new value.
    private mutating func analyzeLet(_ variable: VariableDeclSyntax, attribute: AttributeSyntax?, relationship: AttributeSyntax?) {
        guard let (binding, pattern) = singleBinding(of: variable) else { return }
        let name = pattern.identifier.bareName
        let useVar = { (message: ModelDiagnostic) in
            Diagnostic(
                at: variable.bindingSpecifier, message, fixIt: .useVar, replacing: variable.bindingSpecifier,
                with: .keyword(
                    .var, leadingTrivia: variable.bindingSpecifier.leadingTrivia,
                    trailingTrivia: variable.bindingSpecifier.trailingTrivia))
        }
        if let value = binding.initializer?.value {
            // A literal is the same for every object: the constant is not
            // stored and reads right. Anything else (`Date()`, `UUID()`,
            // `.now`) may differ per object, and a fetched object would show
            // a new value instead of its own.
            if DefaultExpression.kind(of: value) != ".literal" {
                diagnostics.append(useVar(.letWithInitialValue(name)))
            }
            return
        }
        if relationship != nil {
            diagnostics.append(useVar(.letRelationship(name)))
            return
        }
        guard let annotation = binding.typeAnnotation?.type else { return }  // Swift itself reports it.
        if let reason = StoredType.unstorableReason(annotation) {
            diagnostics.append(Diagnostic(at: annotation, .unstorableType(name, reason: reason)))
            return
        }
        let (options, originalName) = Self.schemaArguments(of: attribute)
        persisted.append(
            PersistedProperty(
                name: name, identifier: pattern.identifier.trimmed,
                type: StoredType.resolve(annotation: annotation, initializer: nil), isConstant: true,
                ordinal: persisted.count, options: options, originalName: originalName, relationshipArguments: nil))
    }

    /// An excluded property is not read from the row, so `init(_$row:)` relies
    /// on its default value (an optional's implicit `nil` counts).
    private mutating func checkDefaultValues(_ variable: VariableDeclSyntax, attribute: String) {
        let bindings = Array(variable.bindings)
        for (offset, binding) in bindings.enumerated() {
            guard binding.initializer == nil,
                binding.accessorBlock.map(\.isObserversOnly) ?? true,
                let pattern = binding.pattern.as(IdentifierPatternSyntax.self)
            else { continue }
            // In `var a, b: Int?` only the last binding carries the annotation.
            let type = bindings[offset...].lazy.compactMap(\.typeAnnotation).first?.type
            if type?.optionalWrapped == nil {
                diagnostics.append(
                    Diagnostic(at: pattern, .missingDefault(pattern.identifier.bareName, attribute: attribute)))
            }
        }
    }

    private static func labeledArguments(of attribute: AttributeSyntax) -> [(label: String, expression: ExprSyntax)] {
        guard case .argumentList(let arguments) = attribute.arguments else { return [] }
        return arguments.map { ($0.label?.text ?? "", $0.expression.trimmed) }
    }

    private static func schemaArguments(of attribute: AttributeSyntax?) -> ([ExprSyntax], ExprSyntax?) {
        guard case .argumentList(let arguments) = attribute?.arguments else { return ([], nil) }
        var options: [ExprSyntax] = []
        var originalName: ExprSyntax?
        for argument in arguments {
            switch argument.label?.text {
            case nil: options.append(argument.expression.trimmed)
            case "originalName": originalName = argument.expression.trimmed
            default: break
            }
        }
        return (options, originalName)
    }
}

extension PatternBindingListSyntax {
    /// The names of the simple identifier bindings, for diagnostics.
    fileprivate var names: [String] {
        compactMap { $0.pattern.as(IdentifierPatternSyntax.self)?.identifier.bareName }
    }
}
