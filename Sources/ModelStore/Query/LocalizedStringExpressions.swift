import Foundation

// SwiftData apps search with `localizedStandardContains`, and compare with
// `caseInsensitiveCompare` and `localizedCompare`. On Linux the `#Predicate`
// macro accepts them and expands them to `PredicateExpressions.build_…`
// functions that Foundation there does not define; ModelStore defines them,
// so that such predicates compile unchanged. Each expression evaluates in
// memory with Foundation's String methods, and compiles to an SQL function
// that calls the same methods (see `QueryFunctions`).

extension PredicateExpressions {
    /// `root.localizedStandardContains(other)`: case- and diacritic-insensitive search.
    public struct StringLocalizedStandardContains<Root: PredicateExpression, Other: PredicateExpression>: PredicateExpression
    where Root.Output: StringProtocol, Other.Output: StringProtocol {
        /// The string searched.
        public let root: Root
        /// The string searched for.
        public let other: Other

        /// Creates the expression.
        public init(root: Root, other: Other) {
            self.root = root
            self.other = other
        }

        /// True when `root` contains `other`, ignoring case and diacritics.
        /// - Throws: what evaluating an operand throws.
        public func evaluate(_ bindings: PredicateBindings) throws -> Bool {
            modelStoreLocalizedStandardContains(String(try root.evaluate(bindings)), String(try other.evaluate(bindings)))
        }
    }

    /// `root.caseInsensitiveCompare(other)`.
    public struct StringCaseInsensitiveCompare<Root: PredicateExpression, Other: PredicateExpression>: PredicateExpression
    where Root.Output: StringProtocol, Other.Output: StringProtocol {
        /// The string compared.
        public let root: Root
        /// The string it is compared with.
        public let other: Other

        /// Creates the expression.
        public init(root: Root, other: Other) {
            self.root = root
            self.other = other
        }

        /// The order of the two strings, ignoring case.
        /// - Throws: what evaluating an operand throws.
        public func evaluate(_ bindings: PredicateBindings) throws -> ComparisonResult {
            String(try root.evaluate(bindings)).caseInsensitiveCompare(String(try other.evaluate(bindings)))
        }
    }

    /// `root.localizedCompare(other)`.
    public struct StringLocalizedCompare<Root: PredicateExpression, Other: PredicateExpression>: PredicateExpression
    where Root.Output: StringProtocol, Other.Output: StringProtocol {
        /// The string compared.
        public let root: Root
        /// The string it is compared with.
        public let other: Other

        /// Creates the expression.
        public init(root: Root, other: Other) {
            self.root = root
            self.other = other
        }

        /// The order of the two strings in the current locale.
        /// - Throws: what evaluating an operand throws.
        public func evaluate(_ bindings: PredicateBindings) throws -> ComparisonResult {
            String(try root.evaluate(bindings)).localizedCompare(String(try other.evaluate(bindings)))
        }
    }

    /// Builds `localizedStandardContains` for the `#Predicate` macro.
    public static func build_localizedStandardContains<Root, Other>(
        _ root: Root, _ other: Other
    ) -> StringLocalizedStandardContains<Root, Other> {
        StringLocalizedStandardContains(root: root, other: other)
    }

    /// Builds `caseInsensitiveCompare` for the `#Predicate` macro.
    public static func build_caseInsensitiveCompare<Root, Other>(
        _ root: Root, _ other: Other
    ) -> StringCaseInsensitiveCompare<Root, Other> {
        StringCaseInsensitiveCompare(root: root, other: other)
    }

    /// Builds `localizedCompare` for the `#Predicate` macro.
    public static func build_localizedCompare<Root, Other>(_ root: Root, _ other: Other) -> StringLocalizedCompare<Root, Other> {
        StringLocalizedCompare(root: root, other: other)
    }
}

// A `Predicate` holds `StandardPredicateExpression`s: Codable and Sendable
// whenever their operands are.
extension PredicateExpressions.StringLocalizedStandardContains: Codable where Root: Codable, Other: Codable {}
extension PredicateExpressions.StringLocalizedStandardContains: Sendable where Root: Sendable, Other: Sendable {}
extension PredicateExpressions.StringLocalizedStandardContains: StandardPredicateExpression
where Root: StandardPredicateExpression, Other: StandardPredicateExpression {}

extension PredicateExpressions.StringCaseInsensitiveCompare: Codable where Root: Codable, Other: Codable {}
extension PredicateExpressions.StringCaseInsensitiveCompare: Sendable where Root: Sendable, Other: Sendable {}
extension PredicateExpressions.StringCaseInsensitiveCompare: StandardPredicateExpression
where Root: StandardPredicateExpression, Other: StandardPredicateExpression {}

extension PredicateExpressions.StringLocalizedCompare: Codable where Root: Codable, Other: Codable {}
extension PredicateExpressions.StringLocalizedCompare: Sendable where Root: Sendable, Other: Sendable {}
extension PredicateExpressions.StringLocalizedCompare: StandardPredicateExpression
where Root: StandardPredicateExpression, Other: StandardPredicateExpression {}
