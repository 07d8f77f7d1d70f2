import Foundation

/// A condition or value over the objects of one entity, whatever wrote it:
/// a Foundation `#Predicate` (see `PredicateCompilation.swift`) or
/// store-tool's filter language. `QuerySQLBuilder` turns it into one SQL
/// expression with bound values, resolving property names against the
/// store's schema, so that both front ends share one compiler.
///
/// Properties are named, not key-pathed: a store opened without the app's
/// code has only names.
package indirect enum QueryExpression: Sendable {
    /// A value, always bound as a parameter.
    case constant(QueryConstant)
    /// The value of an attribute, or the key of a to-one relationship's
    /// object (NULL when it has none).
    case property(PropertyReference)
    /// The row key of the object a reference leads to: `path` empty for the
    /// scope's own object, or ending at a to-one relationship.
    case identifier(PropertyReference)
    case not(QueryExpression)
    case and(QueryExpression, QueryExpression)
    case or(QueryExpression, QueryExpression)
    /// `==` and `!=` treat nil as Swift does (nil equals nil); the ordering
    /// operators compare as Swift's `Comparable` does for the operands' type.
    case comparison(QueryExpression, ComparisonOperator, QueryExpression)
    case arithmetic(QueryExpression, ArithmeticOperator, QueryExpression)
    case negate(QueryExpression)
    /// True when the value is nil.
    case isNil(QueryExpression)
    /// The first value unless it is nil, then the second (`??`).
    case coalesce(QueryExpression, QueryExpression)
    /// `test ? then : else`.
    case conditional(QueryExpression, then: QueryExpression, else: QueryExpression)
    /// A string operation with Swift's (or Foundation's) semantics.
    case string(StringOperation, QueryExpression, QueryExpression?)
    /// True when the value equals one of the listed values (`list.contains(x)`).
    case isIn(QueryExpression, [QueryExpression])
    /// True when an attribute stored as a JSON array holds the element.
    case jsonArrayContains(QueryExpression, element: QueryExpression)
    /// The number of elements of an attribute stored as a JSON array.
    case jsonArrayCount(QueryExpression)
    /// A question about the objects of a to-many relationship. The nested
    /// condition refers to each member as the next scope: scope 1 inside one
    /// question, 2 inside a question nested in it, and so on.
    case toMany(PropertyReference, ToManyQuery)
    /// True when the object a reference leads to is an object of `entity` or
    /// of one of its subentities (Swift's `is`); false when there is none.
    /// `entity` must be in the class hierarchy of the reference's entity.
    case isInstance(PropertyReference, entity: String)

    /// Comparison operators, with Swift's meaning.
    package enum ComparisonOperator: String, Sendable {
        case equal = "==", notEqual = "!=", less = "<", lessOrEqual = "<=", greater = ">", greaterOrEqual = ">="
    }

    /// Arithmetic operators; `/` and `%` on integers truncate as Swift does.
    package enum ArithmeticOperator: String, Sendable {
        case add = "+", subtract = "-", multiply = "*", divide = "/", remainder = "%"
    }

    /// What is asked of a to-many relationship's members.
    package enum ToManyQuery: Sendable {
        /// Some member matches (any member when nil): `contains(where:)`, `!isEmpty`.
        case any(QueryExpression?)
        /// Every member matches: `allSatisfy`.
        case all(QueryExpression)
        /// How many members match (all when nil): `count`, `filter { }.count`.
        case count(QueryExpression?)
    }

    /// String operations. Each is evaluated in SQL by a function that calls
    /// the same Swift code `Predicate.evaluate` runs, so both agree exactly.
    package enum StringOperation: String, Sendable {
        /// `a.contains(b)`, comparing Characters.
        case contains
        /// `a.starts(with: b)`, comparing Characters.
        case startsWith
        /// `a.count`: Characters, not bytes or code points.
        case count
        /// `a.isEmpty`.
        case isEmpty
        /// `a.localizedLowercase`.
        case localizedLowercase
        /// Foundation's `localizedStandardContains`: case- and diacritic-insensitive.
        case localizedStandardContains
        /// `caseInsensitiveCompare(b)`, as a ComparisonResult raw value (-1, 0, 1).
        case caseInsensitiveCompare
        /// `localizedCompare(b)`, as a ComparisonResult raw value.
        case localizedCompare
    }
}

/// A bound value and, when known, the attribute kind it was made for (which
/// decides how strings and decimals compare), or for a row key, the entity
/// whose row it names.
package struct QueryConstant: Sendable {
    package var value: SQLiteValue
    package var kind: ValueKind?
    package var entity: String? = nil

    /// A constant with its value's kind; `entity` for a row key of that entity.
    package init(value: SQLiteValue, kind: ValueKind?, entity: String? = nil) {
        self.value = value
        self.kind = kind
        self.entity = entity
    }

    package static let null = QueryConstant(value: .null, kind: nil)
    package static func bool(_ value: Bool) -> QueryConstant { QueryConstant(value: .integer(value ? 1 : 0), kind: .bool) }
}

/// A property reached from the object in scope `scope` (0 is the fetched
/// entity; each to-many question opens the next) through `path`: zero or
/// more to-one relationships, then the property itself.
///
/// A component may also be a cast (`as? Car`, see `casting(to:)`): the
/// object reached so far when it is an object of that entity or of a
/// subentity, otherwise none, so that what follows reads NULL, as Swift's
/// optional chaining reads nil.
package struct PropertyReference: Hashable, Sendable {
    package var scope: Int
    package var path: [String]

    package init(scope: Int = 0, path: [String]) {
        self.scope = scope
        self.path = path
    }
}

extension PropertyReference {
    /// The prefix of a cast component. It holds a space, so no name that a
    /// front end puts in a path (a Swift property's, or an identifier of
    /// store-tool's filter language) can be mistaken for one.
    private static let castPrefix = "as? "

    /// This reference followed by a cast to `entity`: `($0.vehicle as? Car)`.
    func casting(to entity: String) -> PropertyReference {
        PropertyReference(scope: scope, path: path + [Self.castPrefix + entity])
    }

    /// The entity a path component casts to; nil for a property's name.
    static func castTarget(of component: String) -> String? {
        component.hasPrefix(castPrefix) ? String(component.dropFirst(castPrefix.count)) : nil
    }
}
