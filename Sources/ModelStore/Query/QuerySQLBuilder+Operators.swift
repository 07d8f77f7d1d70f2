import Foundation

// The operators of `QueryExpression` in SQL: logic, comparisons, arithmetic,
// nil, and JSON arrays. Each is a function of its own, called from
// `compile`, so that only the frame of the one in use is on the stack once
// per level of an expression (in a debug build, a function's frame holds
// the temporaries of every case it spells out).

extension QuerySQLBuilder {
    /// `NOT condition`, or a chain of `and` (or of `or`) as one flat
    /// `(a AND b AND c)`.
    ///
    /// A chain is gathered with a loop, not recursion, and written without
    /// nested parentheses whatever the shape of its tree (a predicate's `&&`
    /// chain is left-deep, a filter's balanced): SQLite's parser has a small
    /// stack (`YYSTACKDEPTH`, 100 entries in the builds of SQLite 3.40) that
    /// every open parenthesis and pending operator takes an entry of, and a
    /// flat chain takes a few whatever its length.
    mutating func logical(_ expression: QueryExpression) throws(ModelStoreError) -> Term {
        let isAnd: Bool
        switch expression {
        case .not(let operand): return Term(sql: "NOT " + (try condition(operand)), type: .condition, isNullable: false)
        case .and: isAnd = true
        case .or: isAnd = false
        default: preconditionFailure("logical(_:) is called for not, and and or only")
        }
        var operands: [QueryExpression] = []
        var pending = [expression]
        while let next = pending.popLast() {
            // Right first, so that the left one is taken next: the operands keep their order.
            if isAnd, case .and(let lhs, let rhs) = next {
                pending.append(rhs)
                pending.append(lhs)
            } else if !isAnd, case .or(let lhs, let rhs) = next {
                pending.append(rhs)
                pending.append(lhs)
            } else {
                operands.append(next)
            }
        }
        var sql = "("
        for (index, operand) in operands.enumerated() {
            if index > 0 { sql += isAnd ? " AND " : " OR " }
            sql += try condition(operand)
        }
        return Term(sql: sql + ")", type: .condition, isNullable: false)
    }

    /// A comparison of two expressions.
    mutating func comparison(
        _ lhs: QueryExpression, _ op: QueryExpression.ComparisonOperator, _ rhs: QueryExpression, _ expression: QueryExpression
    ) throws(ModelStoreError) -> Term {
        // A row key of another entity names no row of this one: decided
        // before the constant is bound, so no parameter goes unused.
        if case .constant(let constant) = rhs, let entity = constant.entity {
            let left = try compile(lhs)
            if case .key(let keyEntity) = left.type, !sharesRowKeys(keyEntity, entity) { return try mismatchedKeys(op, expression) }
            return try comparison(left, op, try compile(rhs), expression)
        }
        if case .constant(let constant) = lhs, let entity = constant.entity {
            let right = try compile(rhs)
            if case .key(let keyEntity) = right.type, !sharesRowKeys(keyEntity, entity) { return try mismatchedKeys(op, expression) }
            return try comparison(try compile(lhs), op, right, expression)
        }
        return try comparison(try compile(lhs), op, try compile(rhs), expression)
    }

    /// True when row keys of the two entities name rows of one table: the
    /// same entity, or two of one class hierarchy (a `Car` held by a
    /// relationship to `Vehicle`), whose rows share their table's keys.
    func sharesRowKeys(_ entity: String, _ other: String) -> Bool {
        entity == other || schema.tableName(of: entity) == schema.tableName(of: other)
    }

    /// `(lhs op rhs)` on numbers.
    mutating func arithmetic(
        _ lhs: QueryExpression, _ op: QueryExpression.ArithmeticOperator, _ rhs: QueryExpression
    ) throws(ModelStoreError) -> Term {
        let (left, right) = (try compile(lhs), try compile(rhs))
        let kind = arithmeticKind(left.type, right.type)
        return Term(sql: "(\(left.sql) \(op.rawValue) \(right.sql))", type: .value(kind), isNullable: left.isNullable || right.isNullable)
    }

    /// `(- operand)`.
    mutating func minus(_ operand: QueryExpression) throws(ModelStoreError) -> Term {
        let term = try compile(operand)
        return Term(sql: "(- \(term.sql))", type: term.type, isNullable: term.isNullable)
    }

    /// `(operand IS NULL)`.
    mutating func isNil(_ operand: QueryExpression) throws(ModelStoreError) -> Term {
        Term(sql: "(\(try compile(operand).sql) IS NULL)", type: .condition, isNullable: false)
    }

    /// `coalesce(lhs, rhs)`: Swift's `??`.
    mutating func coalesce(_ lhs: QueryExpression, _ rhs: QueryExpression) throws(ModelStoreError) -> Term {
        let (left, right) = (try compile(lhs), try compile(rhs))
        return Term(sql: "coalesce(\(left.sql), \(right.sql))", type: left.type == .null ? right.type : left.type, isNullable: right.isNullable)
    }

    /// `(CASE WHEN test THEN then ELSE otherwise END)`.
    mutating func conditional(
        _ test: QueryExpression, _ then: QueryExpression, _ otherwise: QueryExpression
    ) throws(ModelStoreError) -> Term {
        let testSQL = try condition(test)
        let (yes, no) = (try compile(then), try compile(otherwise))
        return Term(
            sql: "(CASE WHEN \(testSQL) THEN \(yes.sql) ELSE \(no.sql) END)", type: yes.type == .null ? no.type : yes.type,
            isNullable: yes.isNullable || no.isNullable)
    }

    /// True when the JSON array holds the element.
    mutating func jsonArrayContains(_ array: QueryExpression, _ element: QueryExpression) throws(ModelStoreError) -> Term {
        let (arrayTerm, elementTerm) = (try compile(array), try compile(element))
        usesSwiftInSQL()
        var comparison = "value = \(elementTerm.sql)"
        // Swift compares the elements with String's ==: only a constant
        // that equals nothing but its own bytes can use plain `=`.
        if elementTerm.constantText.map(QueryFunctions.equalsOnlyItsBytes) != true {
            comparison += " COLLATE \(QueryFunctions.stringCollation)"
        }
        return Term(sql: "EXISTS (SELECT 1 FROM json_each(\(arrayTerm.sql)) WHERE \(comparison))", type: .condition, isNullable: false)
    }

    /// The number of elements of a JSON array.
    mutating func jsonArrayCount(_ array: QueryExpression) throws(ModelStoreError) -> Term {
        let term = try compile(array)
        return Term(sql: "json_array_length(\(term.sql))", type: .value(.int), isNullable: term.isNullable)
    }
}
