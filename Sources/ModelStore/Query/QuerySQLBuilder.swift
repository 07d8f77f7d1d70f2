import Foundation

/// A compiled SELECT: its SQL, with `?1`, `?2`, … for the bound values.
package struct CompiledQuery: Sendable {
    package var sql: String
    package var bindings: [SQLiteValue]
    /// True when the query uses Swift inside SQL that this database does
    /// not have (see `QueryDialect.runsSwiftInSQL`): `sql` is then not to
    /// be run, and the caller answers in Swift.
    package var needsSwift = false

    /// Binds the values to a prepared statement of `sql`.
    package func bind(to statement: Statement) throws {
        for (index, value) in bindings.enumerated() { try statement.bind(value, at: Int32(index + 1)) }
    }
}

/// One key of an ORDER BY.
package struct QueryOrdering: Sendable {
    package enum Key: Sendable {
        /// An attribute of the fetched entity, or of an object reached through to-one relationships.
        case property(PropertyReference)
        /// The row key: `persistentModelID`'s order within one entity.
        case identifier
    }

    /// How strings compare: Swift's `<` (the default of `SortDescriptor` on
    /// Linux), `String.StandardComparator.lexical`, or ModelStore's
    /// `LocalizedStringComparator.localizedStandard` and `.localized`.
    enum StringOrder: Sendable { case swift, lexical, localizedStandard, localized }

    package var key: Key
    package var descending: Bool
    var stringOrder: StringOrder = .swift
}

/// Turns `QueryExpression`s over one entity into SQL, resolving property
/// names through the schema: to-one paths become LEFT JOINs, to-many
/// questions correlated subqueries, and every value a bound parameter.
/// Identifiers are always quoted; no value is ever part of the SQL text, so
/// one query shape is one SQL text and one cached prepared statement.
///
/// Compiling is recursive, one call per level of the expression, and SQLite
/// refuses an expression deeper than 1000 (`SQLITE_MAX_EXPR_DEPTH`), so an
/// expression deeper than `maximumDepth` is refused with
/// `ModelStoreError.unsupportedQuery` before either can fail. Both front
/// ends stay well within it: `PredicateTranslator` refuses predicates deeper
/// than 200 levels, and the filter language's parser bounds a filter's
/// nesting and its number of conditions.
package struct QuerySQLBuilder {
    /// The deepest expression compiled.
    static let maximumDepth = 500

    let schema: Schema
    /// How this database spells what differs from SQLite.
    let dialect: QueryDialect
    private(set) var bindings: [SQLiteValue] = []
    /// Set when a part compiled needs Swift inside SQL that the dialect
    /// lacks (see `QueryDialect.runsSwiftInSQL`).
    private(set) var needsSwift = false
    /// How many `compile` calls enclose the part being compiled.
    private var nesting = 0
    var frames: [Frame]
    var aliasCount = 0

    /// The objects one scope ranges over: the fetched entity, or the
    /// members of a to-many relationship in a subquery.
    struct Frame {
        let entity: Schema.Entity
        let alias: String
        var joins: [String] = []
        var joinAliases: [[String]: (alias: String, entity: Schema.Entity)] = [:]
    }

    /// A compiled operand and what it holds.
    struct Term {
        enum ValueType: Equatable {
            /// A truth value (0 or 1 in SQLite; constants are written TRUE and
            /// FALSE, SQL's spelling, which SQLite reads as 1 and 0).
            case condition
            /// A value of an attribute kind; nil when unknown (arithmetic on constants).
            case value(ValueKind?)
            /// A Codable attribute stored as JSON text.
            case json
            /// The row key of an object of the entity.
            case key(String)
            /// The nil literal.
            case null
        }

        var sql: String
        var type: ValueType
        var isNullable: Bool
        /// The text when the operand is a bound string constant.
        var constantText: String? = nil
    }

    init(schema: Schema, entity: Schema.Entity, dialect: QueryDialect = .sqlite) {
        self.schema = schema
        self.dialect = dialect
        frames = [Frame(entity: entity, alias: "t0")]
        aliasCount = 1
    }

    /// Keeps a SELECT of an entity in a class hierarchy to the rows of the
    /// entity itself, without its subentities' (an export lists each row
    /// once, under its own entity).
    var ownRowsOnly = false

    var rootAlias: String { frames[0].alias }
    var rootEntity: Schema.Entity { frames[0].entity }

    /// `FROM "Entity" AS t0 LEFT JOIN …` with the joins the compiled parts need.
    var fromClause: String {
        ([ "FROM \(quoteIdentifier(schema.tableName(of: rootEntity.name))) AS \(rootAlias)" ] + frames[0].joins)
            .joined(separator: " ")
    }

    /// The WHERE of a query with `condition`'s SQL: a subentity's query
    /// keeps to its rows of the hierarchy's table.
    func whereClause(_ condition: String?) -> String? {
        let own =
            ownRowsOnly
            ? schema.ownRowCondition(of: rootEntity, qualifier: rootAlias)
            : schema.rowCondition(of: rootEntity, qualifier: rootAlias)
        switch (own, condition) {
        case (nil, nil): return nil
        case (let own?, nil): return own
        case (nil, let condition?): return condition
        case (let own?, let condition?): return "\(own) AND (\(condition))"
        }
    }

    /// Builds `SELECT <columns> FROM … WHERE … ORDER BY … LIMIT … OFFSET …`.
    /// `columns` receives the root alias. The order always ends with the row
    /// key, so that equal keys keep the order of their rows.
    /// - Throws: `ModelStoreError.unsupportedQuery` or `.unknownProperty`.
    package static func select(
        schema: Schema, entity: Schema.Entity, columns: (String) -> String, where condition: QueryExpression?,
        orderBy: [QueryOrdering], limit: Int?, offset: Int?, ownRowsOnly: Bool = false, dialect: QueryDialect = .sqlite
    ) throws(ModelStoreError) -> CompiledQuery {
        var builder = QuerySQLBuilder(schema: schema, entity: entity, dialect: dialect)
        builder.ownRowsOnly = ownRowsOnly
        let whereSQL = try condition.map { (condition) throws(ModelStoreError) in try builder.condition(condition) }
        let orderSQL = try builder.orderBy(orderBy)
        var sql = "SELECT \(columns(builder.rootAlias)) \(builder.fromClause)"
        if let whereSQL = builder.whereClause(whereSQL) { sql += " WHERE \(whereSQL)" }
        sql += " ORDER BY \(orderSQL)"
        guard !builder.needsSwift else { return CompiledQuery(sql: sql, bindings: builder.bindings, needsSwift: true) }
        if limit != nil || (offset ?? 0) > 0 {
            let limitValue = limit.map { Int64(max(0, $0)) } ?? -1
            sql += " LIMIT \(builder.parameter(.integer(limitValue)))"
            sql += " OFFSET \(builder.parameter(.integer(Int64(max(0, offset ?? 0)))))"
        }
        return CompiledQuery(sql: sql, bindings: builder.bindings)
    }

    /// Builds `SELECT count(*) FROM … WHERE …`.
    /// - Throws: `ModelStoreError.unsupportedQuery` or `.unknownProperty`.
    package static func count(
        schema: Schema, entity: Schema.Entity, where condition: QueryExpression?, dialect: QueryDialect = .sqlite
    ) throws(ModelStoreError) -> CompiledQuery {
        var builder = QuerySQLBuilder(schema: schema, entity: entity, dialect: dialect)
        let whereSQL = try condition.map { (condition) throws(ModelStoreError) in try builder.condition(condition) }
        var sql = "SELECT count(*) \(builder.fromClause)"
        if let whereSQL = builder.whereClause(whereSQL) { sql += " WHERE \(whereSQL)" }
        return CompiledQuery(sql: sql, bindings: builder.bindings, needsSwift: builder.needsSwift)
    }

    // MARK: Conditions

    /// The SQL of a condition.
    mutating func condition(_ expression: QueryExpression) throws(ModelStoreError) -> String {
        let term = try compile(expression)
        switch term.type {
        case .condition, .value(.bool), .value(nil): return term.sql
        default: throw notACondition(expression)
        }
    }

    private func notACondition(_ expression: QueryExpression) -> ModelStoreError { unsupported(expression, "it is not a condition") }

    /// The SQL of an ORDER BY list, ending with the row key.
    mutating func orderBy(_ orderings: [QueryOrdering]) throws(ModelStoreError) -> String {
        var terms: [String] = []
        for ordering in orderings {
            let direction = ordering.descending ? " DESC" : ""
            switch ordering.key {
            case .identifier:
                terms.append("\(rootAlias).\(quoteIdentifier(primaryKeyColumn))\(direction)")
            case .property(let reference):
                let term = try property(reference)
                var sql = term.sql
                switch term.type {
                case .value(.string):
                    if ordering.stringOrder != .swift { usesSwiftInSQL() }
                    sql = dialect.textOperand(sql) + " COLLATE \(QueryFunctions.collation(for: ordering.stringOrder))"
                case .value(.decimal): sql += " COLLATE \(QueryFunctions.decimalCollation)"
                case .value(.bool), .json, .condition, .null:
                    throw .unsupportedQuery(
                        entity: rootEntity.name, expression: reference.path.joined(separator: "."),
                        reason: "values of this type have no order (they are not Comparable)")
                default: break
                }
                // SQLite's own order for NULL, said out loud for a column
                // that may hold it, so that a database whose default differs
                // (PostgreSQL sorts NULL last) sorts the same.
                if term.isNullable { sql += ordering.descending ? " DESC NULLS LAST" : " NULLS FIRST" } else { sql += direction }
                terms.append(sql)
            }
        }
        terms.append("\(rootAlias).\(quoteIdentifier(primaryKeyColumn))")
        return terms.joined(separator: ", ")
    }

    // MARK: Expressions

    /// Compiles one expression and everything below it.
    /// - Throws: `ModelStoreError.unsupportedQuery` for a form with no SQL,
    ///   or past `maximumDepth` levels; `.unknownProperty`.
    mutating func compile(_ expression: QueryExpression) throws(ModelStoreError) -> Term {
        nesting += 1
        defer { nesting -= 1 }
        guard nesting <= Self.maximumDepth else { throw tooDeep() }
        // `not`, `and` and `or` are how conditions nest deep (a filter's
        // parentheses, a predicate's chain of &&): they take the path with
        // the smallest frames. In a debug build a frame holds the
        // temporaries of every case its function spells out.
        switch expression {
        case .not, .and, .or: return try logical(expression)
        default: return try operation(expression)
        }
    }

    private func tooDeep() -> ModelStoreError {
        // The expression's own description would spell out every level.
        .unsupportedQuery(entity: rootEntity.name, expression: "the condition", reason: "it nests deeper than \(Self.maximumDepth) levels")
    }

    private mutating func operation(_ expression: QueryExpression) throws(ModelStoreError) -> Term {
        switch expression {
        case .constant(let constant): return constantTerm(constant)
        case .property(let reference): return try property(reference)
        case .identifier(let reference): return try identifier(reference)
        case .not, .and, .or: return try logical(expression)
        case .comparison(let lhs, let op, let rhs): return try comparison(lhs, op, rhs, expression)
        case .arithmetic(let lhs, let op, let rhs): return try arithmetic(lhs, op, rhs)
        case .negate(let operand): return try minus(operand)
        case .isNil(let operand): return try isNil(operand)
        case .coalesce(let lhs, let rhs): return try coalesce(lhs, rhs)
        case .conditional(let test, let then, let otherwise): return try conditional(test, then, otherwise)
        case .string(let operation, let lhs, let rhs): return try string(operation, lhs, rhs, expression)
        case .isIn(let value, let list): return try isIn(value, list)
        case .jsonArrayContains(let array, let element): return try jsonArrayContains(array, element)
        case .jsonArrayCount(let array): return try jsonArrayCount(array)
        case .toMany(let reference, let question): return try toMany(reference, question)
        case .isInstance(let reference, let entity): return try isInstance(reference, entity)
        }
    }

    mutating func parameter(_ value: SQLiteValue) -> String {
        bindings.append(value)
        return "?\(bindings.count)"
    }

    private mutating func constantTerm(_ constant: QueryConstant) -> Term {
        if case .null = constant.value { return Term(sql: "NULL", type: .null, isNullable: true) }
        var text: String?
        if case .text(let value) = constant.value { text = value }
        let kind = constant.kind ?? (text != nil ? .string : nil)
        return Term(sql: parameter(constant.value), type: .value(kind), isNullable: false, constantText: text)
    }

    func arithmeticKind(_ lhs: Term.ValueType, _ rhs: Term.ValueType) -> ValueKind? {
        for type in [lhs, rhs] { if case .value(let kind?) = type, kind == .double || kind == .float { return .double } }
        if case .value(let kind) = lhs, kind != nil { return kind }
        if case .value(let kind) = rhs { return kind }
        return nil
    }

    mutating func comparison(
        _ left: Term, _ op: QueryExpression.ComparisonOperator, _ right: Term, _ expression: QueryExpression
    ) throws(ModelStoreError) -> Term {
        if left.type == .null || right.type == .null {
            let operand = left.type == .null ? right : left
            switch op {
            case .equal: return Term(sql: "(\(operand.sql) IS NULL)", type: .condition, isNullable: false)
            case .notEqual: return Term(sql: "(\(operand.sql) IS NOT NULL)", type: .condition, isNullable: false)
            default: throw unsupported(expression, "nil has no order")
            }
        }
        if left.type == .json || right.type == .json {
            throw unsupported(expression, "values stored as JSON can only be asked contains, count and isEmpty")
        }
        let kinds = [left.type, right.type].compactMap { type -> ValueKind? in
            if case .value(let kind) = type { return kind }
            return nil
        }
        var collation: String?
        if kinds.contains(.decimal) {
            collation = QueryFunctions.decimalCollation
        } else if kinds.contains(.string) {
            let constant = left.constantText ?? right.constantText
            let byteEqualityIsExact = (op == .equal || op == .notEqual) && constant.map(QueryFunctions.equalsOnlyItsBytes) == true
            if !byteEqualityIsExact { collation = QueryFunctions.stringCollation }
        }
        let collate = collation.map { " COLLATE \($0)" } ?? ""
        var (leftSQL, rightSQL) = (left.sql, right.sql)
        if collation == QueryFunctions.stringCollation { (leftSQL, rightSQL) = (dialect.textOperand(leftSQL), dialect.textOperand(rightSQL)) }
        let nullable = left.isNullable || right.isNullable
        let sqlOperator: String
        switch op {
        case .equal: sqlOperator = nullable ? dialect.nullSafeEqual : "="
        case .notEqual: sqlOperator = nullable ? dialect.nullSafeNotEqual : "<>"
        case .less: sqlOperator = "<"
        case .lessOrEqual: sqlOperator = "<="
        case .greater: sqlOperator = ">"
        case .greaterOrEqual: sqlOperator = ">="
        }
        return Term(sql: "(\(leftSQL) \(sqlOperator) \(rightSQL)\(collate))", type: .condition, isNullable: false)
    }

    func mismatchedKeys(_ op: QueryExpression.ComparisonOperator, _ expression: QueryExpression) throws(ModelStoreError) -> Term {
        switch op {
        case .equal: return Term(sql: "FALSE", type: .condition, isNullable: false)
        case .notEqual: return Term(sql: "TRUE", type: .condition, isNullable: false)
        default: throw unsupported(expression, "identifiers of different entities have no order")
        }
    }

    private mutating func string(
        _ operation: QueryExpression.StringOperation, _ lhs: QueryExpression, _ rhs: QueryExpression?,
        _ expression: QueryExpression
    ) throws(ModelStoreError) -> Term {
        let base = try compile(lhs)
        let other = try rhs.map { (rhs) throws(ModelStoreError) in try compile(rhs) }
        if operation != .isEmpty { usesSwiftInSQL() }
        let nullable = base.isNullable || (other?.isNullable ?? false)
        func call(_ function: String) throws(ModelStoreError) -> String {
            guard let other else { throw unsupported(expression, "\(operation.rawValue) needs a second string") }
            return "\(function)(\(base.sql), \(other.sql))"
        }
        switch operation {
        case .contains:
            return Term(sql: try call(QueryFunctions.contains), type: .condition, isNullable: nullable)
        case .startsWith:
            return Term(sql: try call(QueryFunctions.startsWith), type: .condition, isNullable: nullable)
        case .localizedStandardContains:
            return Term(sql: try call(QueryFunctions.localizedStandardContains), type: .condition, isNullable: nullable)
        case .caseInsensitiveCompare:
            return Term(sql: try call(QueryFunctions.caseInsensitiveCompare), type: .value(.int), isNullable: nullable)
        case .localizedCompare:
            return Term(sql: try call(QueryFunctions.localizedCompare), type: .value(.int), isNullable: nullable)
        case .count:
            return Term(sql: "\(QueryFunctions.count)(\(base.sql))", type: .value(.int), isNullable: nullable)
        case .isEmpty:
            return Term(sql: "(\(base.sql) = '')", type: .condition, isNullable: nullable)
        case .localizedLowercase:
            return Term(sql: "\(QueryFunctions.localizedLowercase)(\(base.sql))", type: .value(.string), isNullable: nullable)
        }
    }

    private mutating func isIn(_ value: QueryExpression, _ list: [QueryExpression]) throws(ModelStoreError) -> Term {
        let term = try compile(value)
        guard !list.isEmpty else { return Term(sql: "FALSE", type: .condition, isNullable: false) }
        var items: [Term] = []
        for element in list { items.append(try compile(element)) }
        var sql = term.sql
        if case .value(let kind) = term.type {
            if kind == .decimal {
                sql += " COLLATE \(QueryFunctions.decimalCollation)"
            } else if kind == .string, !items.allSatisfy({ $0.constantText.map(QueryFunctions.equalsOnlyItsBytes) == true }) {
                sql = dialect.textOperand(sql) + " COLLATE \(QueryFunctions.stringCollation)"
                for index in items.indices { items[index].sql = dialect.textOperand(items[index].sql) }
            }
        }
        let listSQL = items.map(\.sql).joined(separator: ", ")
        return Term(sql: "(\(sql) IN (\(listSQL)))", type: .condition, isNullable: false)
    }

    /// Notes that the part being compiled calls Swift inside SQL.
    mutating func usesSwiftInSQL() {
        if !dialect.runsSwiftInSQL { needsSwift = true }
    }

    func unsupported(_ expression: QueryExpression, _ reason: String) -> ModelStoreError {
        .unsupportedQuery(entity: rootEntity.name, expression: String(describing: expression), reason: reason)
    }
}

extension QueryFunctions {
    /// The collation of an ORDER BY on strings.
    static func collation(for order: QueryOrdering.StringOrder) -> String {
        switch order {
        case .swift: stringCollation
        case .lexical: lexicalCollation
        case .localizedStandard: localizedStandardCollation
        case .localized: localizedCollation
        }
    }
}
