import Foundation

// Properties reached through relationships: to-one paths become LEFT JOINs
// of the scope they are used in, to-many questions correlated subqueries
// with a scope of their own.

extension QuerySQLBuilder {
    /// The value of the property a reference names.
    mutating func property(_ reference: PropertyReference) throws(ModelStoreError) -> Term {
        guard let last = reference.path.last, PropertyReference.castTarget(of: last) == nil else { return try identifier(reference) }
        let (alias, entity, throughRelationship, tests) = try follow(reference, prefixCount: reference.path.count - 1)
        if let attribute = entity.attribute(named: last) {
            let column = "\(alias).\(quoteIdentifier(attribute.name))"
            let type: Term.ValueType = attribute.representation == .json ? .json : .value(attribute.kind)
            return guarded(Term(sql: column, type: type, isNullable: attribute.isOptional || throughRelationship), by: tests)
        }
        if let relationship = entity.relationship(named: last) {
            if relationship.isToMany {
                throw .unsupportedQuery(
                    entity: rootEntity.name, expression: reference.path.joined(separator: "."),
                    reason: "a to-many relationship can only be asked contains, count, isEmpty, filter or allSatisfy")
            }
            let key = try toOneKey(relationship, of: entity, alias: alias, scope: reference.scope, prefix: Array(reference.path.dropLast()))
            return guarded(key, by: tests)
        }
        if last == "persistentModelID" { return try identifier(PropertyReference(scope: reference.scope, path: Array(reference.path.dropLast()))) }
        throw .unknownProperty(entity: entity.name, property: last)
    }

    /// The row key of the object a reference leads to.
    mutating func identifier(_ reference: PropertyReference) throws(ModelStoreError) -> Term {
        let (alias, entity, through, tests) = try follow(reference, prefixCount: reference.path.count)
        return guarded(Term(sql: "\(alias).\(quoteIdentifier(primaryKeyColumn))", type: .key(entity.name), isNullable: through), by: tests)
    }

    /// The key of a to-one relationship's object: its column when this
    /// table holds the link, otherwise the joined object's row key.
    private mutating func toOneKey(
        _ relationship: Schema.Relationship, of entity: Schema.Entity, alias: String, scope: Int, prefix: [String]
    ) throws(ModelStoreError) -> Term {
        if let column = relationship.foreignKeyColumn {
            return Term(sql: "\(alias).\(quoteIdentifier(column))", type: .key(relationship.destination), isNullable: true)
        }
        // The casts on the way are the caller's to test (`property(_:)`).
        let (joined, _, _, _) = try follow(PropertyReference(scope: scope, path: prefix + [relationship.name]), prefixCount: prefix.count + 1)
        return Term(sql: "\(joined).\(quoteIdentifier(primaryKeyColumn))", type: .key(relationship.destination), isNullable: true)
    }

    /// Joins the first `prefixCount` components of a reference (each a
    /// to-one relationship or a cast) and returns the alias and entity
    /// reached, whether any relationship or cast was followed (then the
    /// object may be missing), and the entity tests the casts on the way
    /// need: what is read there counts only where they hold (`guarded`).
    mutating func follow(
        _ reference: PropertyReference, prefixCount: Int
    ) throws(ModelStoreError) -> (alias: String, entity: Schema.Entity, throughRelationship: Bool, casts: [EntityTest]) {
        guard frames.indices.contains(reference.scope) else {
            throw .unsupportedQuery(entity: rootEntity.name, expression: reference.path.joined(separator: "."), reason: "it refers to a variable out of scope")
        }
        var alias = frames[reference.scope].alias
        var entity = frames[reference.scope].entity
        var casts: [EntityTest] = []
        for index in 0..<prefixCount {
            let name = reference.path[index]
            if let target = PropertyReference.castTarget(of: name) {
                // A cast joins nothing: the object stays in its row, seen as `target`.
                let castEntity = try hierarchyEntity(named: target, from: entity, reference)
                if let test = entityTest(alias: alias, of: entity, is: castEntity) { casts.append(test) }
                entity = castEntity
                continue
            }
            let key = Array(reference.path[0...index])
            if let joined = frames[reference.scope].joinAliases[key] {
                (alias, entity) = joined
                continue
            }
            guard let relationship = entity.relationship(named: name) else {
                if entity.attribute(named: name) != nil {
                    throw .unsupportedQuery(entity: rootEntity.name, expression: reference.path.joined(separator: "."), reason: "\(name) is an attribute, not a relationship")
                }
                throw .unknownProperty(entity: entity.name, property: name)
            }
            guard !relationship.isToMany, let destination = schema.entity(named: relationship.destination) else {
                throw .unsupportedQuery(
                    entity: rootEntity.name, expression: reference.path.joined(separator: "."),
                    reason: "\(name) is a to-many relationship; ask it contains, count, isEmpty, filter or allSatisfy")
            }
            let next = nextAlias()
            let on: String
            switch relationship.storage {
            case .foreignKey(let column, _):
                on = "\(next).\(quoteIdentifier(primaryKeyColumn)) = \(alias).\(quoteIdentifier(column))"
            case .inverseForeignKey:
                guard let inverse = relationship.inverseName.flatMap(destination.relationship(named:)),
                    let column = inverse.foreignKeyColumn
                else { throw unresolved(relationship, entity) }
                on = "\(next).\(quoteIdentifier(column)) = \(alias).\(quoteIdentifier(primaryKeyColumn))"
            case .joinTable, .unresolved:
                throw unresolved(relationship, entity)
            }
            frames[reference.scope].joins.append("LEFT JOIN \(quoteIdentifier(schema.tableName(of: destination.name))) AS \(next) ON \(on)")
            frames[reference.scope].joinAliases[key] = (next, destination)
            (alias, entity) = (next, destination)
        }
        return (alias, entity, prefixCount > 0, casts)
    }

    mutating func toMany(
        _ reference: PropertyReference, _ question: QueryExpression.ToManyQuery
    ) throws(ModelStoreError) -> Term {
        guard let name = reference.path.last else {
            throw .unsupportedQuery(entity: rootEntity.name, expression: "", reason: "no relationship named")
        }
        let (alias, entity, _, casts) = try follow(reference, prefixCount: reference.path.count - 1)
        guard let relationship = entity.relationship(named: name) else { throw .unknownProperty(entity: entity.name, property: name) }
        guard relationship.isToMany, let destination = schema.entity(named: relationship.destination) else {
            throw .unsupportedQuery(
                entity: rootEntity.name, expression: reference.path.joined(separator: "."), reason: "\(name) is not a to-many relationship")
        }
        let member = nextAlias()
        let key = quoteIdentifier(primaryKeyColumn)
        var from: String
        var link: String
        switch relationship.storage {
        case .inverseForeignKey:
            guard let inverse = relationship.inverseName.flatMap(destination.relationship(named:)), let column = inverse.foreignKeyColumn
            else { throw unresolved(relationship, entity) }
            from = "\(quoteIdentifier(schema.tableName(of: destination.name))) AS \(member)"
            link = "\(member).\(quoteIdentifier(column)) = \(alias).\(key)"
        case .joinTable(let table, let isSource):
            let links = nextAlias()
            let (own, other) = isSource ? (JoinTableColumn.source, JoinTableColumn.target) : (JoinTableColumn.target, JoinTableColumn.source)
            from = "\(quoteIdentifier(table)) AS \(links) JOIN \(quoteIdentifier(schema.tableName(of: destination.name))) AS \(member) ON \(member).\(key) = \(links).\(quoteIdentifier(other))"
            link = "\(links).\(quoteIdentifier(own)) = \(alias).\(key)"
        case .foreignKey, .unresolved:
            throw unresolved(relationship, entity)
        }
        // An object that fails a cast on the way has no members: `(x as? Car)?.items`
        // is nil, which `OptionalFlatMap` makes of the answer.
        if let castSQL = entityTestSQL(casts) { link += " AND \(castSQL)" }
        frames.append(Frame(entity: destination, alias: member))
        defer { frames.removeLast() }
        func subquery(_ select: String, _ condition: String?) -> String {
            let joins = frames[frames.count - 1].joins
            let fromSQL = ([from] + joins).joined(separator: " ")
            return "(SELECT \(select) FROM \(fromSQL) WHERE \(link)\(condition.map { " AND \($0)" } ?? ""))"
        }
        switch question {
        case .any(let test):
            let condition = try test.map { (test) throws(ModelStoreError) in try self.condition(test) }
            return Term(sql: "EXISTS \(subquery("1", condition))", type: .condition, isNullable: false)
        case .all(let test):
            let condition = try self.condition(test)
            return Term(sql: "NOT EXISTS \(subquery("1", "NOT coalesce(\(condition), FALSE)"))", type: .condition, isNullable: false)
        case .count(let test):
            let condition = try test.map { (test) throws(ModelStoreError) in try self.condition(test) }
            return Term(sql: subquery("count(*)", condition), type: .value(.int), isNullable: false)
        }
    }

    private mutating func nextAlias() -> String {
        defer { aliasCount += 1 }
        return "t\(aliasCount)"
    }

    private func unresolved(_ relationship: Schema.Relationship, _ entity: Schema.Entity) -> ModelStoreError {
        .unsupportedQuery(
            entity: rootEntity.name, expression: "\(entity.name).\(relationship.name)",
            reason: "the relationship's storage is not known (the schema was not resolved)")
    }
}
