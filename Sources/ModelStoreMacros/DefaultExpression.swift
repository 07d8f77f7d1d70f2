import SwiftSyntax

/// Which initial values of a persisted property are constants, so that the
/// schema record may hold them (store-tool fills them into inserts).
///
/// The macro sees only syntax: a literal (or a collection of literals) is
/// the same value every time; a member without arguments (`.planned`,
/// `Status.planned`) is a constant when the type is an enum, which only the
/// runtime knows, so it is marked apart. Anything else (a call such as
/// `Date()`, an interpolation, an operator) may be computed and is not
/// recorded.
enum DefaultExpression {
    /// `.literal`, `.member`, or nil for a value that may be computed: the
    /// `defaultKind:` argument of the property's table entry.
    static func kind(of expression: ExprSyntax) -> String? {
        if isLiteral(expression) { return ".literal" }
        if isMember(expression) { return ".member" }
        return nil
    }

    private static func isLiteral(_ expression: ExprSyntax) -> Bool {
        if expression.is(IntegerLiteralExprSyntax.self) || expression.is(FloatLiteralExprSyntax.self)
            || expression.is(BooleanLiteralExprSyntax.self) || expression.is(NilLiteralExprSyntax.self)
        {
            return true
        }
        if let string = expression.as(StringLiteralExprSyntax.self) {
            return string.segments.allSatisfy {
                if case .stringSegment = $0 { return true }
                return false
            }
        }
        if let prefix = expression.as(PrefixOperatorExprSyntax.self), prefix.operator.text == "-" {
            return prefix.expression.is(IntegerLiteralExprSyntax.self) || prefix.expression.is(FloatLiteralExprSyntax.self)
        }
        if let array = expression.as(ArrayExprSyntax.self) {
            return array.elements.allSatisfy { isLiteral($0.expression) }
        }
        if let dictionary = expression.as(DictionaryExprSyntax.self) {
            switch dictionary.content {
            case .colon: return true
            case .elements(let elements): return elements.allSatisfy { isLiteral($0.key) && isLiteral($0.value) }
            }
        }
        if let tuple = expression.as(TupleExprSyntax.self), tuple.elements.count == 1, let only = tuple.elements.first,
            only.label == nil
        {
            return isLiteral(only.expression)
        }
        return false
    }

    /// `.name`, `Type.name` or `Module.Type.name`: no call, no subscript.
    private static func isMember(_ expression: ExprSyntax) -> Bool {
        guard let member = expression.as(MemberAccessExprSyntax.self), member.declName.argumentNames == nil else {
            return false
        }
        guard let base = member.base else { return true }
        return isTypeName(base)
    }

    private static func isTypeName(_ expression: ExprSyntax) -> Bool {
        if let reference = expression.as(DeclReferenceExprSyntax.self) { return reference.argumentNames == nil }
        if let member = expression.as(MemberAccessExprSyntax.self), let base = member.base {
            return member.declName.argumentNames == nil && isTypeName(base)
        }
        return false
    }
}
