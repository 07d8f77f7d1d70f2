import Foundation

// Swift's `is` and `as?` on objects of a class hierarchy, in SQL. A
// hierarchy's objects share one table whose `_entity` column holds each row's
// own entity (see `Schema+HierarchyTable.swift`), and an object fetched from
// the store is always of its row's entity's class. So `x is Car` holds exactly
// when the row's entity is `Car` or one of `Car`'s subentities, and
// `(x as? Car)?.doors` reads the column where that holds and NULL elsewhere.

/// A test of a row's entity that `is` or a cast needs: the row at `alias` is
/// of one of `names` (none: never). Kept apart from its SQL until it is
/// written, because writing it binds the names, and a bound value the SQL
/// does not use fails the statement.
struct EntityTest {
    let alias: String
    let names: [String]
}

extension QuerySQLBuilder {
    /// `x is T`: true when the object a reference leads to is of `target`
    /// or one of its subentities; false when there is no object (nil).
    /// - Throws: `ModelStoreError.unsupportedQuery` when `target` is not an
    ///   entity of the object's class hierarchy.
    mutating func isInstance(_ reference: PropertyReference, _ target: String) throws(ModelStoreError) -> Term {
        let (alias, entity, mayBeMissing, casts) = try follow(reference, prefixCount: reference.path.count)
        let targetEntity = try hierarchyEntity(named: target, from: entity, reference)
        var tests = casts
        if let test = entityTest(alias: alias, of: entity, is: targetEntity) { tests.append(test) }
        guard let sql = entityTestSQL(tests) else {
            // An upcast: every object there is one.
            let sql = mayBeMissing ? "(\(alias).\(quoteIdentifier(primaryKeyColumn)) IS NOT NULL)" : "TRUE"
            return Term(sql: sql, type: .condition, isNullable: false)
        }
        // A missing object's entity is NULL, and `NOT NULL` is NULL, but `!(nil is Car)` is true.
        return Term(sql: mayBeMissing ? "coalesce(\(sql), FALSE)" : sql, type: .condition, isNullable: false)
    }

    /// The entity a cast or `is` names, which must be in the class hierarchy
    /// of `entity` (the static type of the object cast): no object of
    /// another can be one, and writing such a test is most likely a mistake.
    /// - Throws: `ModelStoreError.unsupportedQuery` naming both.
    func hierarchyEntity(
        named name: String, from entity: Schema.Entity, _ reference: PropertyReference
    ) throws(ModelStoreError) -> Schema.Entity {
        let expression = (reference.path + ["is \(name)"]).joined(separator: ".")
        guard let target = schema.entity(named: name) else {
            throw .unsupportedQuery(
                entity: rootEntity.name, expression: expression, reason: "\(name) is not an entity of the store's schema")
        }
        guard let root = schema.rootEntity(of: entity), schema.rootEntity(of: target)?.name == root.name else {
            throw .unsupportedQuery(
                entity: rootEntity.name, expression: expression,
                reason: "\(name) is not in the class hierarchy of \(entity.name), so no \(entity.name) is one "
                    + "(is and as? test the object's class among \(entity.name)'s superclasses and subclasses)")
        }
        return target
    }

    /// The test that an object of `entity` is also one of `target`; nil when
    /// every object of `entity` is (`target` is `entity` or a superentity).
    /// `target` must be in `entity`'s hierarchy (`hierarchyEntity`).
    func entityTest(alias: String, of entity: Schema.Entity, is target: Schema.Entity) -> EntityTest? {
        var current: Schema.Entity? = entity
        var steps = 0
        while let step = current, steps <= schema.entities.count {
            if step.name == target.name { return nil }
            current = schema.superentity(of: step)
            steps += 1
        }
        // The rows `alias` can hold are `entity`'s own and its subentities';
        // of those, `target`'s. None for a sibling class.
        let possible = Set(schema.entityWithSubentities(entity).map(\.name))
        return EntityTest(alias: alias, names: schema.entityWithSubentities(target).map(\.name).filter(possible.contains))
    }

    /// The SQL of tests that must all hold; nil when there are none. The
    /// entity names are bound, as every value is.
    mutating func entityTestSQL(_ tests: [EntityTest]) -> String? {
        guard !tests.isEmpty else { return nil }
        let conditions = tests.map { test -> String in
            let column = "\(test.alias).\(quoteIdentifier(entityColumn))"
            switch test.names.count {
            case 0: return "0"
            case 1: return "\(column) = \(parameter(.text(test.names[0])))"
            default: return "\(column) IN (\(test.names.map { parameter(.text($0)) }.joined(separator: ", ")))"
            }
        }
        return conditions.count == 1 ? "(\(conditions[0]))" : "(\(conditions.joined(separator: " AND ")))"
    }

    /// `term` where `casts` hold, NULL elsewhere: what is read after a cast
    /// that fails is nil.
    mutating func guarded(_ term: Term, by casts: [EntityTest]) -> Term {
        guard let test = entityTestSQL(casts) else { return term }
        return Term(sql: "(CASE WHEN \(test) THEN \(term.sql) END)", type: term.type, isNullable: true)
    }
}
