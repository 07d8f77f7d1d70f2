import Foundation

/// What one part of a `#Predicate` stands for while it is translated into a
/// `QueryExpression`.
enum PredicateTerm {
    /// A value or condition computed in SQL.
    case expression(QueryExpression)
    /// A Swift value known before the query runs (a literal, a captured
    /// variable, or anything computed from them alone).
    case constant(Any)
    /// An object: the one a scope ranges over (empty path) or one reached
    /// through to-one relationships, which may be nil.
    case object(PropertyReference, any PersistentModel.Type)
    /// The members of a to-many relationship, optionally filtered.
    case toMany(PropertyReference, any PersistentModel.Type, filter: QueryExpression?)
    /// An attribute stored as a JSON array (a Codable collection).
    case jsonArray(QueryExpression)
}

/// A `PredicateExpression` that ModelStore can translate to SQL. Foundation's
/// expression types conform in `PredicateExpressions+SQL.swift`; a predicate
/// that uses any other fails to compile with an error naming it.
protocol SQLTranslatablePredicateExpression {
    func translate(_ translator: inout PredicateTranslator) throws -> PredicateTerm
}

/// Walks a predicate's expression tree and builds the `QueryExpression` that
/// `QuerySQLBuilder` compiles.
///
/// The walk is recursive, one call per level of the tree, so a tree deeper
/// than `maximumDepth` (one built in code, in a loop) is refused with an
/// error instead of overflowing the stack. A predicate written out in source
/// nests a few levels per condition (`$0.name == "x" && $0.nights > 3` is 4
/// deep); 200 levels is far more than any written one needs.
struct PredicateTranslator {
    /// The deepest predicate expression tree that is translated.
    static let maximumDepth = 200

    let entityName: String
    /// The row key a persistent identifier names in the store the query runs
    /// on, or nil when it names no row of it (another store, an unsaved object).
    let rowKey: (PersistentIdentifier) -> Int64?
    private var variables: [PredicateExpressions.VariableID: PredicateTerm] = [:]
    /// How many to-many questions enclose the part being translated.
    private(set) var depth = 0
    /// How many `translate` calls enclose the part being translated.
    private var nesting = 0

    /// Translates a whole predicate over `T`.
    /// - Throws: `ModelStoreError.unsupportedQuery` naming the first part that
    ///   has no SQL form.
    static func condition<T: PersistentModel>(
        of predicate: Predicate<T>, rowKey: @escaping (PersistentIdentifier) -> Int64?
    ) throws -> QueryExpression {
        var translator = PredicateTranslator(entityName: T.entityName, rowKey: rowKey)
        translator.variables[predicate.variable.key] = .object(PropertyReference(path: []), T.self)
        return try translator.condition(predicate.expression)
    }

    /// Translates a part of the tree.
    /// - Throws: `ModelStoreError.unsupportedQuery` for a part with no SQL
    ///   form, or past `maximumDepth` levels.
    mutating func translate(_ expression: Any) throws -> PredicateTerm {
        nesting += 1
        defer { nesting -= 1 }
        guard nesting <= Self.maximumDepth else {
            // The expression's own description would spell out every level.
            throw ModelStoreError.unsupportedQuery(
                entity: entityName, expression: "#Predicate", reason: "it nests deeper than \(Self.maximumDepth) levels")
        }
        guard let translatable = expression as? any SQLTranslatablePredicateExpression else {
            throw unsupported(expression, "this kind of expression has no SQL form")
        }
        return try translatable.translate(&self)
    }

    /// Translates a part that must be a condition.
    mutating func condition(_ expression: Any) throws -> QueryExpression {
        switch try translate(expression) {
        case .expression(let condition): return condition
        case .constant(let value as Bool): return .constant(.bool(value))
        default: throw unsupported(expression, "it is not a condition")
        }
    }

    /// Translates a part that must be a value, a constant, or an object.
    mutating func value(_ expression: Any) throws -> QueryExpression {
        try lower(try translate(expression), expression)
    }

    /// The value a term stands for in SQL.
    func lower(_ term: PredicateTerm, _ expression: Any) throws -> QueryExpression {
        switch term {
        case .expression(let value), .jsonArray(let value): return value
        case .constant(let value): return .constant(try constant(value, expression))
        case .object(let reference, _):
            return reference.path.isEmpty ? .identifier(reference) : .property(reference)
        case .toMany:
            throw unsupported(expression, "a to-many relationship can only be asked contains, count, isEmpty, filter or allSatisfy")
        }
    }

    func lookup(_ variable: PredicateExpressions.VariableID, _ expression: Any) throws -> PredicateTerm {
        guard let term = variables[variable] else { throw unsupported(expression, "it refers to an unknown variable") }
        return term
    }

    /// Translates the body of a closure (`contains(where:)`, `filter`,
    /// `allSatisfy`) over the members of a to-many relationship, which form
    /// the next scope.
    mutating func memberCondition(
        _ body: Any, variable: PredicateExpressions.VariableID, memberType: any PersistentModel.Type
    ) throws -> QueryExpression {
        depth += 1
        defer {
            depth -= 1
            variables[variable] = nil
        }
        variables[variable] = .object(PropertyReference(scope: depth, path: []), memberType)
        return try condition(body)
    }

    /// Translates the body of `flatMap` / `if let` with its variable bound to
    /// the unwrapped term.
    mutating func bound(_ body: Any, variable: PredicateExpressions.VariableID, to term: PredicateTerm) throws -> PredicateTerm {
        variables[variable] = term
        defer { variables[variable] = nil }
        return try translate(body)
    }

    func unsupported(_ expression: Any, _ reason: String) -> ModelStoreError {
        .unsupportedQuery(entity: entityName, expression: describe(expression), reason: reason)
    }

    /// A short name for an expression: its type without module prefixes.
    func describe(_ expression: Any) -> String {
        String(describing: type(of: expression)).replacingOccurrences(of: "PredicateExpressions.", with: "")
    }

    // MARK: Constants

    /// The stored form of a Swift value, as the column holding it stores it.
    func constant(_ value: Any, _ expression: Any) throws -> QueryConstant {
        // The kinds predicates compare with most, first: a cast to a concrete
        // type compares type metadata, where each cast below to a protocol (a
        // model, an optional, an integer) that fails searches conformances,
        // and each failed cast to a Foundation type tries its bridging.
        switch value {
        case let value as Bool: return QueryConstant(value: DynamicValue.bool(value).storedValue, kind: .bool)
        case let value as String: return QueryConstant(value: DynamicValue.string(value).storedValue, kind: .string)
        case let value as Double: return QueryConstant(value: DynamicValue.double(value).storedValue, kind: .double)
        case let value as Int: return QueryConstant(value: DynamicValue.int(Int64(value)).storedValue, kind: .int64)
        default: break
        }
        if let identifier = value as? PersistentIdentifier {
            // A row key is never 0 (keys are AUTOINCREMENT from 1): an
            // identifier of no row here matches nothing.
            return QueryConstant(value: .integer(rowKey(identifier) ?? 0), kind: nil, entity: identifier.entityName)
        }
        if let model = value as? any PersistentModel {
            let identifier = model.persistentModelID
            return QueryConstant(value: .integer(rowKey(identifier) ?? 0), kind: nil, entity: identifier.entityName)
        }
        if let optional = value as? any OptionalProtocol {
            guard let wrapped = optional.wrappedValue else { return .null }
            return try constant(wrapped, expression)
        }
        // The stored form of each kind is DynamicValue's, shared with store-tool.
        let typed: (DynamicValue, ValueKind)
        switch value {
        case let value as Bool: typed = (.bool(value), .bool)
        case let value as String: typed = (.string(value), .string)
        case let value as Double: typed = (.double(value), .double)
        case let value as Float: typed = (.double(Double(value)), .double)
        case let value as Date: typed = (.date(value), .date)
        case let value as UUID: typed = (.uuid(value), .uuid)
        case let value as URL: typed = (.url(value), .url)
        case let value as Decimal: typed = (.decimal(value), .decimal)
        case let value as Data: typed = (.data(value), .data)
        case let value as ComparisonResult: typed = (.int(Int64(value.rawValue)), .int)
        case let value as any BinaryInteger:
            guard let integer = Int64(exactly: value) else { throw unsupported(expression, "the integer \(value) does not fit in 64 bits") }
            typed = (.int(integer), .int64)
        case let value as any RawRepresentable: return try constant(value.rawValue, expression)
        default:
            throw unsupported(expression, "a value of type \(type(of: value)) cannot be compared in SQL")
        }
        return QueryConstant(value: typed.0.storedValue, kind: typed.1)
    }

    /// The stored forms of a sequence's elements (for `list.contains(x)`).
    func constants(_ value: Any, _ expression: Any) throws -> [QueryExpression]? {
        guard let sequence = value as? any Sequence else { return nil }
        return try elements(of: sequence).map { .constant(try constant($0, expression)) }
    }

    private func elements<S: Sequence>(of sequence: S) -> [Any] { sequence.map { $0 } }
}

/// Lets a translator unwrap an `Optional` held as `Any`.
protocol OptionalProtocol {
    var wrappedValue: Any? { get }
}

extension Optional: OptionalProtocol {
    var wrappedValue: Any? { self.map { $0 as Any } }
}
