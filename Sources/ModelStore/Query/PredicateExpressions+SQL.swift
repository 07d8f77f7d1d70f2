import Foundation

// How each of Foundation's predicate expressions translates into a
// `QueryExpression`. An expression whose operands are all constants is
// evaluated once, in Swift, and becomes a bound value.

private var noBindings: PredicateBindings { PredicateBindings() }

extension PredicateExpressions.Variable: SQLTranslatablePredicateExpression {
    func translate(_ translator: inout PredicateTranslator) throws -> PredicateTerm {
        try translator.lookup(key, self)
    }
}

extension PredicateExpressions.Value: SQLTranslatablePredicateExpression {
    func translate(_ translator: inout PredicateTranslator) throws -> PredicateTerm { .constant(value) }
}

extension PredicateExpressions.NilLiteral: SQLTranslatablePredicateExpression {
    func translate(_ translator: inout PredicateTranslator) throws -> PredicateTerm { .constant(Wrapped?.none as Any) }
}

// MARK: Key paths

/// The collection properties a predicate may ask of a to-many relationship,
/// a `filter` result or a JSON-stored array.
enum CollectionProperty { case count, isEmpty }

protocol KeyPathCollection {
    static func collectionProperty(_ keyPath: AnyKeyPath) -> CollectionProperty?
}

extension Array: KeyPathCollection {
    static func collectionProperty(_ keyPath: AnyKeyPath) -> CollectionProperty? {
        keyPath == \Self.count ? .count : keyPath == \Self.isEmpty ? .isEmpty : nil
    }
}

extension Set: KeyPathCollection {
    static func collectionProperty(_ keyPath: AnyKeyPath) -> CollectionProperty? {
        keyPath == \Self.count ? .count : keyPath == \Self.isEmpty ? .isEmpty : nil
    }
}

extension RawRepresentable {
    /// True when a key path reads `rawValue`: then `$0.status.rawValue` is
    /// the column itself, since an enum attribute is stored as its raw value.
    /// The literal `\Status.rawValue` does not compare equal to the
    /// protocol's `\Self.rawValue`, so the key path is checked on every
    /// case; an enum that is not `CaseIterable` cannot be checked and is refused.
    static func isRawValue(_ keyPath: AnyKeyPath) -> Bool {
        guard type(of: keyPath).valueType == RawValue.self,
            let cases = (Self.self as? any CaseIterable.Type)?.allCasesAsAny, !cases.isEmpty
        else { return false }
        return cases.allSatisfy { value in
            guard let value = value as? Self, let read = value[keyPath: keyPath] as? RawValue else { return false }
            return "\(read)" == "\(value.rawValue)"
        }
    }
}

extension CaseIterable {
    static var allCasesAsAny: [Any] { allCases.map { $0 } }
}

extension PredicateExpressions.KeyPath: SQLTranslatablePredicateExpression {
    func translate(_ translator: inout PredicateTranslator) throws -> PredicateTerm {
        let path = keyPath as AnyKeyPath
        switch try translator.translate(root) {
        case .constant:
            return .constant(try evaluate(noBindings))
        case .object(let reference, let type):
            if let property = PropertyTable.property(of: type, keyPath: path) {
                let member = PropertyReference(scope: reference.scope, path: reference.path + [property.name])
                if let relationship = property.relationship, let destination = property.destinationType {
                    return relationship.isToMany ? .toMany(member, destination, filter: nil) : .object(member, destination)
                }
                if property.attribute?.representation == .json { return .jsonArray(.property(member)) }
                return .expression(.property(member))
            }
            if Output.self == PersistentIdentifier.self || Output.self == PersistentIdentifier?.self {
                return .expression(try translator.lower(.object(reference, type), self))
            }
            throw translator.unsupported(
                self, "the key path is not a stored property of \(type.entityName) (computed and @Transient properties have no column)")
        case .expression(let value):
            if let rawValueType = Root.Output.self as? any RawRepresentable.Type, rawValueType.isRawValue(path) {
                return .expression(value)
            }
            if path == \String.count { return .expression(.string(.count, value, nil)) }
            if path == \String.isEmpty { return .expression(.string(.isEmpty, value, nil)) }
            if path == \String.localizedLowercase { return .expression(.string(.localizedLowercase, value, nil)) }
            throw translator.unsupported(self, "only count, isEmpty and localizedLowercase of a string have an SQL form")
        case .toMany(let reference, _, let filter):
            switch (Root.Output.self as? any KeyPathCollection.Type)?.collectionProperty(path) {
            case .count: return .expression(.toMany(reference, .count(filter)))
            case .isEmpty: return .expression(.not(.toMany(reference, .any(filter))))
            case nil: throw translator.unsupported(self, "only count and isEmpty of a to-many relationship have an SQL form")
            }
        case .jsonArray(let value):
            switch (Root.Output.self as? any KeyPathCollection.Type)?.collectionProperty(path) {
            case .count: return .expression(.jsonArrayCount(value))
            case .isEmpty: return .expression(.comparison(.jsonArrayCount(value), .equal, .constant(QueryConstant(value: .integer(0), kind: .int))))
            case nil: throw translator.unsupported(self, "only count and isEmpty of a stored array have an SQL form")
            }
        }
    }
}

// MARK: Comparisons and logic

/// Translates a binary expression: folded when both operands are constants.
private func binary(
    _ expression: some PredicateExpression, _ lhs: Any, _ rhs: Any, _ translator: inout PredicateTranslator,
    _ make: (QueryExpression, QueryExpression) -> QueryExpression
) throws -> PredicateTerm {
    let (left, right) = (try translator.translate(lhs), try translator.translate(rhs))
    if case .constant = left, case .constant = right { return .constant(try expression.evaluate(noBindings)) }
    return .expression(make(try translator.lower(left, lhs), try translator.lower(right, rhs)))
}

extension PredicateExpressions.Equal: SQLTranslatablePredicateExpression {
    func translate(_ translator: inout PredicateTranslator) throws -> PredicateTerm {
        try binary(self, lhs, rhs, &translator) { .comparison($0, .equal, $1) }
    }
}

extension PredicateExpressions.NotEqual: SQLTranslatablePredicateExpression {
    func translate(_ translator: inout PredicateTranslator) throws -> PredicateTerm {
        try binary(self, lhs, rhs, &translator) { .comparison($0, .notEqual, $1) }
    }
}

extension PredicateExpressions.Comparison: SQLTranslatablePredicateExpression {
    func translate(_ translator: inout PredicateTranslator) throws -> PredicateTerm {
        let sqlOperator: QueryExpression.ComparisonOperator
        switch op {
        case .lessThan: sqlOperator = .less
        case .lessThanOrEqual: sqlOperator = .lessOrEqual
        case .greaterThan: sqlOperator = .greater
        case .greaterThanOrEqual: sqlOperator = .greaterOrEqual
        @unknown default: throw translator.unsupported(self, "unknown comparison operator")
        }
        return try binary(self, lhs, rhs, &translator) { .comparison($0, sqlOperator, $1) }
    }
}

extension PredicateExpressions.Conjunction: SQLTranslatablePredicateExpression {
    func translate(_ translator: inout PredicateTranslator) throws -> PredicateTerm {
        .expression(.and(try translator.condition(lhs), try translator.condition(rhs)))
    }
}

extension PredicateExpressions.Disjunction: SQLTranslatablePredicateExpression {
    func translate(_ translator: inout PredicateTranslator) throws -> PredicateTerm {
        .expression(.or(try translator.condition(lhs), try translator.condition(rhs)))
    }
}

extension PredicateExpressions.Negation: SQLTranslatablePredicateExpression {
    func translate(_ translator: inout PredicateTranslator) throws -> PredicateTerm {
        .expression(.not(try translator.condition(wrapped)))
    }
}

extension PredicateExpressions.Conditional: SQLTranslatablePredicateExpression {
    func translate(_ translator: inout PredicateTranslator) throws -> PredicateTerm {
        let terms = [try translator.translate(test), try translator.translate(trueBranch), try translator.translate(falseBranch)]
        if terms.allSatisfy({ if case .constant = $0 { true } else { false } }) { return .constant(try evaluate(noBindings)) }
        return .expression(
            .conditional(
                try translator.condition(test), then: try translator.lower(terms[1], trueBranch),
                else: try translator.lower(terms[2], falseBranch)))
    }
}

// MARK: Arithmetic

extension PredicateExpressions.Arithmetic: SQLTranslatablePredicateExpression {
    func translate(_ translator: inout PredicateTranslator) throws -> PredicateTerm {
        let sqlOperator: QueryExpression.ArithmeticOperator
        switch op {
        case .add: sqlOperator = .add
        case .subtract: sqlOperator = .subtract
        case .multiply: sqlOperator = .multiply
        @unknown default: throw translator.unsupported(self, "unknown arithmetic operator")
        }
        return try binary(self, lhs, rhs, &translator) { .arithmetic($0, sqlOperator, $1) }
    }
}

extension PredicateExpressions.IntDivision: SQLTranslatablePredicateExpression {
    func translate(_ translator: inout PredicateTranslator) throws -> PredicateTerm {
        try binary(self, lhs, rhs, &translator) { .arithmetic($0, .divide, $1) }
    }
}

extension PredicateExpressions.FloatDivision: SQLTranslatablePredicateExpression {
    func translate(_ translator: inout PredicateTranslator) throws -> PredicateTerm {
        try binary(self, lhs, rhs, &translator) { .arithmetic($0, .divide, $1) }
    }
}

extension PredicateExpressions.IntRemainder: SQLTranslatablePredicateExpression {
    func translate(_ translator: inout PredicateTranslator) throws -> PredicateTerm {
        try binary(self, lhs, rhs, &translator) { .arithmetic($0, .remainder, $1) }
    }
}

extension PredicateExpressions.UnaryMinus: SQLTranslatablePredicateExpression {
    func translate(_ translator: inout PredicateTranslator) throws -> PredicateTerm {
        let term = try translator.translate(wrapped)
        if case .constant = term { return .constant(try evaluate(noBindings)) }
        return .expression(.negate(try translator.lower(term, wrapped)))
    }
}

// MARK: Optionals

extension PredicateExpressions.NilCoalesce: SQLTranslatablePredicateExpression {
    func translate(_ translator: inout PredicateTranslator) throws -> PredicateTerm {
        try binary(self, lhs, rhs, &translator) { .coalesce($0, $1) }
    }
}

extension PredicateExpressions.ForcedUnwrap: SQLTranslatablePredicateExpression {
    func translate(_ translator: inout PredicateTranslator) throws -> PredicateTerm {
        let term = try translator.translate(inner)
        if case .constant = term { return .constant(try evaluate(noBindings)) }
        return term
    }
}

extension PredicateExpressions.OptionalFlatMap: SQLTranslatablePredicateExpression {
    func translate(_ translator: inout PredicateTranslator) throws -> PredicateTerm {
        let wrappedTerm = try translator.translate(wrapped)
        if case .constant(let value) = wrappedTerm {
            guard let unwrapped = (value as? any OptionalProtocol)?.wrappedValue else { return .constant(Result?.none as Any) }
            return try translator.bound(transform, variable: variable.key, to: .constant(unwrapped))
        }
        if case .toMany = wrappedTerm {
            // An optional to-many (`[Book]?`, the shape CloudKit-ready models
            // use) is never nil in the store: it reads back as an empty array.
            // So `books?.contains { … }` and `books?.count` ask the members
            // directly; an empty relationship answers false and 0, as the
            // unwrapped array would.
            return try translator.bound(transform, variable: variable.key, to: wrappedTerm)
        }
        let inner = try translator.bound(transform, variable: variable.key, to: wrappedTerm)
        switch inner {
        case .object, .toMany, .constant:
            // A path through a nil to-one is already NULL (LEFT JOIN); a
            // constant stays one only when the optional is not nil.
            if case .constant = inner {
                return .expression(
                    .conditional(
                        .isNil(try translator.lower(wrappedTerm, wrapped)), then: .constant(.null),
                        else: try translator.lower(inner, transform)))
            }
            return inner
        case .expression, .jsonArray:
            // nil in, nil out: the body alone might turn NULL into a value
            // (`x IS ?` is false, not NULL).
            return .expression(
                .conditional(
                    .isNil(try translator.lower(wrappedTerm, wrapped)), then: .constant(.null),
                    else: try translator.lower(inner, transform)))
        }
    }
}

// MARK: Sequences and strings

extension PredicateExpressions.SequenceContains: SQLTranslatablePredicateExpression {
    func translate(_ translator: inout PredicateTranslator) throws -> PredicateTerm {
        let (sequenceTerm, elementTerm) = (try translator.translate(sequence), try translator.translate(element))
        switch sequenceTerm {
        case .constant(let values):
            if case .constant = elementTerm { return .constant(try evaluate(noBindings)) }
            guard let list = try translator.constants(values, self) else { throw translator.unsupported(self, "not a list of values") }
            return .expression(.isIn(try translator.lower(elementTerm, element), list))
        case .jsonArray(let array):
            return .expression(.jsonArrayContains(array, element: try translator.lower(elementTerm, element)))
        case .toMany(let reference, _, let filter):
            let member = QueryExpression.identifier(PropertyReference(scope: translator.depth + 1, path: []))
            let isElement = QueryExpression.comparison(member, .equal, try translator.lower(elementTerm, element))
            return .expression(.toMany(reference, .any(filter.map { .and($0, isElement) } ?? isElement)))
        case .expression, .object:
            throw translator.unsupported(self, "contains(_:) needs a list of values, a stored array or a to-many relationship")
        }
    }
}

/// `contains(where:)`, `allSatisfy` and `filter` over a to-many relationship,
/// or (for `contains(where:)`) over a list of constants, one test per value.
private func memberTest(
    _ expression: some PredicateExpression, sequence: Any, test: Any, variable: PredicateExpressions.VariableID,
    _ translator: inout PredicateTranslator, _ make: (PropertyReference, QueryExpression?, QueryExpression) -> QueryExpression
) throws -> PredicateTerm {
    switch try translator.translate(sequence) {
    case .toMany(let reference, let memberType, let filter):
        let condition = try translator.memberCondition(test, variable: variable, memberType: memberType)
        return .expression(make(reference, filter, condition))
    default:
        throw translator.unsupported(expression, "only a to-many relationship can be searched with a closure in SQL")
    }
}

extension PredicateExpressions.SequenceContainsWhere: SQLTranslatablePredicateExpression {
    func translate(_ translator: inout PredicateTranslator) throws -> PredicateTerm {
        try memberTest(self, sequence: sequence, test: test, variable: variable.key, &translator) { reference, filter, condition in
            .toMany(reference, .any(filter.map { .and($0, condition) } ?? condition))
        }
    }
}

extension PredicateExpressions.SequenceAllSatisfy: SQLTranslatablePredicateExpression {
    func translate(_ translator: inout PredicateTranslator) throws -> PredicateTerm {
        try memberTest(self, sequence: sequence, test: test, variable: variable.key, &translator) { reference, filter, condition in
            .toMany(reference, .all(filter.map { .or(.not($0), condition) } ?? condition))
        }
    }
}

extension PredicateExpressions.Filter: SQLTranslatablePredicateExpression {
    func translate(_ translator: inout PredicateTranslator) throws -> PredicateTerm {
        guard case .toMany(let reference, let memberType, let previous) = try translator.translate(sequence) else {
            throw translator.unsupported(self, "only a to-many relationship can be filtered in SQL")
        }
        let condition = try translator.memberCondition(filter, variable: variable.key, memberType: memberType)
        return .toMany(reference, memberType, filter: previous.map { .and($0, condition) } ?? condition)
    }
}

/// A string operation of two operands, folded when both are constants.
private func stringOperation(
    _ expression: some PredicateExpression, _ operation: QueryExpression.StringOperation, _ lhs: Any, _ rhs: Any,
    _ translator: inout PredicateTranslator
) throws -> PredicateTerm {
    try binary(expression, lhs, rhs, &translator) { .string(operation, $0, $1) }
}

extension PredicateExpressions.CollectionContainsCollection: SQLTranslatablePredicateExpression {
    func translate(_ translator: inout PredicateTranslator) throws -> PredicateTerm {
        guard Base.Output.self == String.self, Other.Output.self == String.self else {
            throw translator.unsupported(self, "only strings can be searched for a part in SQL")
        }
        return try stringOperation(self, .contains, base, other, &translator)
    }
}

extension PredicateExpressions.SequenceStartsWith: SQLTranslatablePredicateExpression {
    func translate(_ translator: inout PredicateTranslator) throws -> PredicateTerm {
        guard Base.Output.self == String.self, Prefix.Output.self == String.self else {
            throw translator.unsupported(self, "only strings can be asked starts(with:) in SQL")
        }
        return try stringOperation(self, .startsWith, base, prefix, &translator)
    }
}

extension PredicateExpressions.StringLocalizedStandardContains: SQLTranslatablePredicateExpression {
    func translate(_ translator: inout PredicateTranslator) throws -> PredicateTerm {
        try stringOperation(self, .localizedStandardContains, root, other, &translator)
    }
}

extension PredicateExpressions.StringCaseInsensitiveCompare: SQLTranslatablePredicateExpression {
    func translate(_ translator: inout PredicateTranslator) throws -> PredicateTerm {
        try stringOperation(self, .caseInsensitiveCompare, root, other, &translator)
    }
}

extension PredicateExpressions.StringLocalizedCompare: SQLTranslatablePredicateExpression {
    func translate(_ translator: inout PredicateTranslator) throws -> PredicateTerm {
        try stringOperation(self, .localizedCompare, root, other, &translator)
    }
}
