import Foundation
import ModelStore

/// Types a parsed filter against a schema and turns it into the library's
/// query IR. Property names are resolved through to-one relationships;
/// a to-many in a path asks whether any member matches. Literals become
/// constants of the compared attribute's kind, in its stored form (dates as
/// seconds since 1970, UUIDs as text, Bools as 0/1, enums by raw value), so
/// the compiler binds exactly what the column holds.
///
/// The walk is recursive, one call per level of the tree; `FilterParser`
/// bounds that depth (its nesting and condition limits, and balanced chains
/// of `and` and `or`), so a parsed filter never nests deep enough to
/// exhaust the stack.
struct FilterResolver {
    let schema: Schema

    /// - Throws: `ModelStoreError.unknownProperty`, `DynamicStoreError.invalidFilter`.
    func resolve(_ node: FilterNode, entity: Schema.Entity) throws -> QueryExpression {
        try resolve(node, in: Scope(entity: entity, index: 0))
    }

    private struct Scope {
        let entity: Schema.Entity
        let index: Int
    }

    /// What a path leads to.
    private enum Target {
        case attribute(Schema.Attribute, PropertyReference)
        case toOne(Schema.Relationship, PropertyReference)
        case identifier(entity: String, PropertyReference)
        case toManyCount(PropertyReference)
        case toMany(Schema.Relationship, PropertyReference)
    }

    private func resolve(_ node: FilterNode, in scope: Scope) throws -> QueryExpression {
        switch node {
        case .and(let left, let right): return .and(try resolve(left, in: scope), try resolve(right, in: scope))
        case .or(let left, let right): return .or(try resolve(left, in: scope), try resolve(right, in: scope))
        case .not(let inner): return .not(try resolve(inner, in: scope))
        default: break
        }
        // A condition whose first path crosses a to-many: "any member matches".
        if let (relationship, reference, rest) = try toManyPrefix(of: node, in: scope) {
            guard let member = schema.entity(named: relationship.destination) else {
                throw ModelStoreError.entityNotInSchema(entity: relationship.destination)
            }
            let inner = try resolve(rest, in: Scope(entity: member, index: scope.index + 1))
            return .toMany(reference, .any(inner))
        }
        switch node {
        case .comparison(let left, let op, let right, let column):
            return try comparison(left, op, right, column: column, in: scope)
        case .text(let word, let left, let right, let column):
            return try text(word, left, right, column: column, in: scope)
        case .isIn(let left, let items, let column):
            guard case .path(let path, let pathColumn) = left else {
                throw DynamicStoreError.invalidFilter(column: left.column, reason: "'in' needs a property on its left")
            }
            let target = try resolve(path, column: pathColumn, in: scope)
            let (property, kind) = try valueOf(target, column: pathColumn)
            let values = try items.map { item -> QueryExpression in
                guard case .literal(let literal, let itemColumn) = item else { return .constant(.null) }
                try checkCase(literal, of: target, column: itemColumn)
                return .constant(try constant(literal, for: kind, column: itemColumn))
            }
            _ = column
            return .isIn(property, values)
        case .truth(let operand):
            guard case .path(let path, let column) = operand else {
                throw DynamicStoreError.invalidFilter(column: operand.column, reason: "expected a condition")
            }
            switch try resolve(path, column: column, in: scope) {
            case .attribute(let attribute, let reference) where attribute.kind == .bool:
                return .comparison(.property(reference), .equal, .constant(.bool(true)))
            case .toOne(_, let reference):
                return .not(.isNil(.property(reference)))
            case .toMany(_, let reference):
                return .toMany(reference, .any(nil))
            default:
                throw DynamicStoreError.invalidFilter(
                    column: column, reason: "\(path.joined(separator: ".")) is not a Bool; compare it with a value")
            }
        case .and, .or, .not:
            return try resolve(node, in: scope)
        }
    }

    // MARK: Paths

    /// Resolves a path whose segments before the last are to-one relationships.
    private func resolve(_ path: [String], column: Int, in scope: Scope) throws -> Target {
        var entity = scope.entity
        for (index, name) in path.enumerated() {
            let reference = PropertyReference(scope: scope.index, path: Array(path[...index]))
            let isLast = index == path.count - 1
            if let attribute = entity.attribute(named: name) {
                guard isLast else {
                    throw DynamicStoreError.invalidFilter(
                        column: column, reason: "\(entity.name).\(name) is an attribute; it has no property '\(path[index + 1])'")
                }
                return .attribute(attribute, reference)
            }
            if let relationship = entity.relationship(named: name) {
                if relationship.isToMany {
                    if isLast { return .toMany(relationship, reference) }
                    if path[index + 1] == "count" && index + 2 == path.count { return .toManyCount(reference) }
                    throw DynamicStoreError.invalidFilter(
                        column: column, reason: "\(entity.name).\(name) is a to-many relationship; put it first in a condition")
                }
                if isLast { return .toOne(relationship, reference) }
                guard let destination = schema.entity(named: relationship.destination) else {
                    throw ModelStoreError.entityNotInSchema(entity: relationship.destination)
                }
                entity = destination
                continue
            }
            if name == "id" && isLast {
                return .identifier(entity: entity.name, PropertyReference(scope: scope.index, path: Array(path[..<index])))
            }
            throw ModelStoreError.unknownProperty(entity: entity.name, property: name)
        }
        throw DynamicStoreError.invalidFilter(column: column, reason: "expected a property name")
    }

    /// For a condition whose first operand's first segment is a to-many
    /// followed by more segments: the relationship, its reference, and the
    /// condition rewritten for the member scope.
    private func toManyPrefix(of node: FilterNode, in scope: Scope) throws -> (Schema.Relationship, PropertyReference, FilterNode)? {
        func strip(_ operand: FilterOperand, _ name: String) -> FilterOperand {
            guard case .path(let path, let column) = operand, path.first == name, path.count > 1 else { return operand }
            return .path(Array(path.dropFirst()), column: column)
        }
        let first: FilterOperand
        switch node {
        case .comparison(let left, _, _, _), .text(_, let left, _, _), .isIn(let left, _, _): first = left
        case .truth(let operand): first = operand
        default: return nil
        }
        guard case .path(let path, _) = first, path.count > 1, let relationship = scope.entity.relationship(named: path[0]),
            relationship.isToMany, !(path.count == 2 && path[1] == "count")
        else { return nil }
        let reference = PropertyReference(scope: scope.index, path: [path[0]])
        let name = path[0]
        let rest: FilterNode
        switch node {
        case .comparison(let left, let op, let right, let column): rest = .comparison(strip(left, name), op, strip(right, name), column: column)
        case .text(let word, let left, let right, let column): rest = .text(word, strip(left, name), strip(right, name), column: column)
        case .isIn(let left, let items, let column): rest = .isIn(strip(left, name), items, column: column)
        case .truth(let operand): rest = .truth(strip(operand, name))
        default: return nil
        }
        return (relationship, reference, rest)
    }

    /// The expression and value kind of a target that holds a value.
    private func valueOf(_ target: Target, column: Int) throws -> (QueryExpression, ValueKind?) {
        switch target {
        case .attribute(let attribute, let reference): return (.property(reference), attribute.kind)
        case .toOne(_, let reference): return (.property(reference), .int64)
        case .identifier(_, let reference): return (.identifier(reference), .int64)
        case .toManyCount(let reference): return (.toMany(reference, .count(nil)), .int)
        case .toMany(let relationship, _):
            throw DynamicStoreError.invalidFilter(
                column: column, reason: "\(relationship.name) is a to-many relationship; compare \(relationship.name).count or a member's property")
        }
    }

    // MARK: Conditions

    private func comparison(
        _ left: FilterOperand, _ op: QueryExpression.ComparisonOperator, _ right: FilterOperand, column: Int, in scope: Scope
    ) throws -> QueryExpression {
        switch (left, right) {
        case (.literal, .path):
            return try comparison(right, flipped(op), left, column: column, in: scope)
        case (.literal, .literal):
            throw DynamicStoreError.invalidFilter(column: left.column, reason: "compare a property with a value, not two values")
        case (.path(let leftPath, let leftColumn), .path(let rightPath, let rightColumn)):
            let (leftValue, _) = try valueOf(try resolve(leftPath, column: leftColumn, in: scope), column: leftColumn)
            let (rightValue, _) = try valueOf(try resolve(rightPath, column: rightColumn, in: scope), column: rightColumn)
            return .comparison(leftValue, op, rightValue)
        case (.path(let path, let pathColumn), .literal(let literal, let literalColumn)):
            let target = try resolve(path, column: pathColumn, in: scope)
            let (property, kind) = try valueOf(target, column: pathColumn)
            if literal == .null {
                switch op {
                case .equal: return .isNil(property)
                case .notEqual: return .not(.isNil(property))
                default: throw DynamicStoreError.invalidFilter(column: column, reason: "nil can only be compared with == or !=")
                }
            }
            if op != .equal && op != .notEqual, let kind, [.bool, .codable, .data].contains(kind) {
                throw DynamicStoreError.invalidFilter(column: column, reason: "\(kind.rawValue) values can only be compared with == or !=")
            }
            let value: QueryConstant
            switch (target, literal) {
            case (.toOne(let relationship, _), .string(let text)):
                value = try objectKey(text, destination: relationship.destination, column: literalColumn)
            case (.identifier(let entity, _), .string(let text)):
                value = try objectKey(text, destination: entity, column: literalColumn)
            default:
                if op == .equal || op == .notEqual { try checkCase(literal, of: target, column: literalColumn) }
                value = try constant(literal, for: kind, column: literalColumn)
            }
            return .comparison(property, op, .constant(value))
        }
    }

    private func text(_ word: String, _ left: FilterOperand, _ right: FilterOperand, column: Int, in scope: Scope) throws -> QueryExpression {
        guard case .path(let path, let pathColumn) = left else {
            throw DynamicStoreError.invalidFilter(column: left.column, reason: "'\(word)' needs a property on its left")
        }
        guard case .literal(let literal, let literalColumn) = right else {
            throw DynamicStoreError.invalidFilter(column: right.column, reason: "'\(word)' needs a value on its right")
        }
        switch try resolve(path, column: pathColumn, in: scope) {
        case .attribute(let attribute, let reference) where attribute.kind == .string:
            guard case .string(let value) = literal else {
                throw DynamicStoreError.invalidFilter(column: literalColumn, reason: "expected a string, found \(literal.shown)")
            }
            let operation: QueryExpression.StringOperation =
                word == "startswith" ? .startsWith : word == "icontains" ? .localizedStandardContains : .contains
            return .string(operation, .property(reference), .constant(QueryConstant(value: .text(value), kind: .string)))
        case .attribute(let attribute, let reference) where attribute.kind == .codable && word == "contains":
            let element: QueryConstant
            switch literal {
            case .string(let value): element = QueryConstant(value: .text(value), kind: .string)
            case .integer, .real, .bool: element = try constant(literal, for: nil, column: literalColumn)
            case .null: throw DynamicStoreError.invalidFilter(column: literalColumn, reason: "a JSON array is searched for a value, not nil")
            }
            return .jsonArrayContains(.property(reference), element: .constant(element))
        case .toMany(let relationship, let reference) where word == "contains":
            guard case .string(let text) = literal else {
                throw DynamicStoreError.invalidFilter(column: literalColumn, reason: "expected an object such as \"\(relationship.destination):1\"")
            }
            let key = try objectKey(text, destination: relationship.destination, column: literalColumn)
            let member = PropertyReference(scope: scope.index + 1, path: [])
            return .toMany(reference, .any(.comparison(.identifier(member), .equal, .constant(key))))
        default:
            throw DynamicStoreError.invalidFilter(
                column: column,
                reason: "'\(word)' works on strings\(word == "contains" ? ", JSON arrays and to-many relationships" : ""); \(path.joined(separator: ".")) is not one")
        }
    }

    /// A value compared for equality with an enum attribute must be one of
    /// the cases the record holds: any other could match nothing, which is
    /// most likely a misspelt case.
    private func checkCase(_ literal: FilterLiteral, of target: Target, column: Int) throws {
        guard case .attribute(let attribute, _) = target, attribute.enumCases != nil else { return }
        let text: String
        switch literal {
        case .string(let value), .integer(let value): text = value
        default: return
        }
        guard let value = try? ValueText.parse(text, as: attribute.kind), let problem = attribute.caseProblem(value) else { return }
        throw DynamicStoreError.invalidFilter(column: column, reason: problem)
    }

    private func objectKey(_ text: String, destination: String, column: Int) throws -> QueryConstant {
        guard let id = ObjectID(text), id.entity == destination else {
            throw DynamicStoreError.invalidFilter(column: column, reason: "expected an object such as \"\(destination):1\"")
        }
        return QueryConstant(value: .integer(id.key), kind: .int64, entity: destination)
    }

    private func flipped(_ op: QueryExpression.ComparisonOperator) -> QueryExpression.ComparisonOperator {
        switch op {
        case .less: .greater
        case .lessOrEqual: .greaterOrEqual
        case .greater: .less
        case .greaterOrEqual: .lessOrEqual
        case .equal, .notEqual: op
        }
    }

    // MARK: Constants

    /// A literal as a constant of `kind` in its stored form. Strings are
    /// parsed as the kind's text (dates ISO 8601, UUIDs, decimals), numbers
    /// must fit the kind; nothing is converted loosely.
    private func constant(_ literal: FilterLiteral, for kind: ValueKind?, column: Int) throws -> QueryConstant {
        func fail(_ reason: String) -> DynamicStoreError { .invalidFilter(column: column, reason: reason) }
        guard let kind else {
            switch literal {
            case .integer(let text):
                guard let value = Int64(text) else { throw fail("\(text) does not fit in a 64-bit integer") }
                return QueryConstant(value: .integer(value), kind: nil)
            case .real(let text): return QueryConstant(value: .real(Double(text) ?? 0), kind: nil)
            case .string(let text): return QueryConstant(value: .text(text), kind: nil)
            case .bool(let value): return QueryConstant(value: .integer(value ? 1 : 0), kind: nil)
            case .null: return .null
            }
        }
        let parsed: DynamicValue
        do {
            switch (literal, kind) {
            case (.null, _): return .null
            case (.bool(let value), .bool): parsed = .bool(value)
            case (.integer(let text), .double), (.integer(let text), .float), (.real(let text), .double), (.real(let text), .float),
                (.integer(let text), .decimal), (.real(let text), .decimal):
                parsed = try ValueText.parse(text, as: kind)
            case (.integer(let text), _) where ValueText.isInteger(kind):
                parsed = try ValueText.parse(text, as: kind)
            case (.string(let text), .string), (.string(let text), .date), (.string(let text), .uuid), (.string(let text), .url),
                (.string(let text), .decimal), (.string(let text), .data), (.string(let text), .codable):
                parsed = try ValueText.parse(text, as: kind)
            default:
                throw fail("expected \(ValueText.expectation(for: kind)), found \(literal.shown)")
            }
        } catch let failure as ValueCodingFailure {
            throw fail(failure.reason)
        }
        return QueryConstant(value: parsed.storedValue, kind: kind)
    }
}
