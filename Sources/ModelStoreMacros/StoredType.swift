import SwiftSyntax

/// What `@Model` needs to know about the Swift type of a persisted property.
///
/// The macro never sees resolved types, only spellings, so this works on the
/// annotation as written (or on a literal initializer when there is none) and
/// rejects the spellings that can never map to a column.
enum StoredType {
    /// The type to name in `(T).self`, from the annotation or a literal.
    ///
    /// `T!` becomes `T?`: the row and the schema only care that the column is
    /// nullable, and `(T!).self` is not valid Swift.
    static func resolve(annotation: TypeSyntax?, initializer: ExprSyntax?) -> TypeSyntax? {
        if let annotation {
            let type = annotation.trimmed
            if let unwrapped = type.as(ImplicitlyUnwrappedOptionalTypeSyntax.self) {
                return TypeSyntax(OptionalTypeSyntax(wrappedType: unwrapped.wrappedType.trimmed))
            }
            return type
        }
        return initializer.flatMap(literalType)
    }

    /// The type Swift infers for a literal with no contextual type.
    private static func literalType(_ expression: ExprSyntax) -> TypeSyntax? {
        if expression.is(IntegerLiteralExprSyntax.self) { return "Swift.Int" }
        if expression.is(FloatLiteralExprSyntax.self) { return "Swift.Double" }
        if expression.is(StringLiteralExprSyntax.self) { return "Swift.String" }
        if expression.is(BooleanLiteralExprSyntax.self) { return "Swift.Bool" }
        if let prefix = expression.as(PrefixOperatorExprSyntax.self), prefix.operator.text == "-" {
            if prefix.expression.is(IntegerLiteralExprSyntax.self) { return "Swift.Int" }
            if prefix.expression.is(FloatLiteralExprSyntax.self) { return "Swift.Double" }
        }
        return nil
    }

    /// Why a value of `type` cannot be stored, or `nil` if it may be.
    ///
    /// Only the outermost shape is checked (through one level of optional):
    /// element types of collections are the library's business at runtime.
    static func unstorableReason(_ type: TypeSyntax) -> String? {
        var type = type.withoutParentheses
        if let wrapped = type.optionalWrapped {
            if wrapped.optionalWrapped != nil {
                return "nested optionals cannot be told apart in a nullable column"
            }
            type = wrapped
        }
        if type.is(FunctionTypeSyntax.self) {
            return "functions have no stored representation"
        }
        if let attributed = type.as(AttributedTypeSyntax.self),
            attributed.baseType.withoutParentheses.is(FunctionTypeSyntax.self)
        {
            return "functions have no stored representation"
        }
        if type.is(TupleTypeSyntax.self) {
            return "tuples are not supported; use a Codable struct"
        }
        if let someOrAny = type.as(SomeOrAnyTypeSyntax.self) {
            return someOrAny.someOrAnySpecifier.tokenKind == .keyword(.some)
                ? "opaque types have no single stored representation"
                : "existential types have no single stored representation"
        }
        if type.isSwiftType("Any") || type.isSwiftType("AnyObject") {
            return "'\(type.trimmedDescription)' has no single stored representation"
        }
        return nil
    }
}

extension TypeSyntax {
    /// `(T)` is a one-element tuple type in the syntax tree; this is `T`.
    var withoutParentheses: TypeSyntax {
        if let tuple = self.as(TupleTypeSyntax.self), tuple.elements.count == 1,
            let only = tuple.elements.first, only.firstName == nil, only.ellipsis == nil
        {
            return only.type.withoutParentheses
        }
        return self
    }

    /// The wrapped type of `T?`, `T!` or `Optional<T>`, without parentheses.
    var optionalWrapped: TypeSyntax? {
        let type = withoutParentheses
        if let optional = type.as(OptionalTypeSyntax.self) {
            return optional.wrappedType.withoutParentheses
        }
        if let unwrapped = type.as(ImplicitlyUnwrappedOptionalTypeSyntax.self) {
            return unwrapped.wrappedType.withoutParentheses
        }
        let generic: GenericArgumentClauseSyntax?
        if let identifier = type.as(IdentifierTypeSyntax.self), identifier.name.text == "Optional" {
            generic = identifier.genericArgumentClause
        } else if let member = type.as(MemberTypeSyntax.self), member.name.text == "Optional",
            member.baseType.as(IdentifierTypeSyntax.self)?.name.text == "Swift"
        {
            generic = member.genericArgumentClause
        } else {
            generic = nil
        }
        guard let arguments = generic?.arguments, arguments.count == 1,
            let argument = arguments.first, case .type(let wrapped) = argument.argument
        else { return nil }
        return wrapped.withoutParentheses
    }

    /// Whether the type is spelled `name` or `Swift.name`.
    fileprivate func isSwiftType(_ name: String) -> Bool {
        if let identifier = self.as(IdentifierTypeSyntax.self) {
            return identifier.name.text == name
        }
        if let member = self.as(MemberTypeSyntax.self) {
            return member.name.text == name
                && member.baseType.as(IdentifierTypeSyntax.self)?.name.text == "Swift"
        }
        return false
    }
}
