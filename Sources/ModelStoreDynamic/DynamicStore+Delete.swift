import Foundation
import ModelStore

/// What deleting objects does, worked out by the library's delete planner
/// before anything is written: the objects deleted (the given ones and those
/// cascades reach), the links cleared, and the `.deny` rules that block.
package struct DynamicDeletePlan: Sendable, Equatable {
    /// Every object that would be deleted, sorted.
    package var deleted: [ObjectID]
    /// The to-one links that would be cleared: object and property.
    package var nullified: [(object: ObjectID, property: String)]
    /// The holders whose `.deny` rules block the delete, with the blockers.
    package var blocked: [(object: ObjectID, relationship: String, blockers: [ObjectID])]

    /// Per entity, in the order of `deleted`'s entities: how many objects
    /// are deleted and what reaches them (see `DeleteReach`).
    package var deletedByEntity: [DeleteReach] = []
    /// Per to-one property (`Stop.trip`): how many links are cleared and
    /// the rule that clears them (see `DeleteReach`).
    package var nullifiedByProperty: [DeleteReach] = []

    /// True when a `.deny` rule blocks the delete.
    package var isBlocked: Bool { !blocked.isEmpty }

    package static func == (lhs: DynamicDeletePlan, rhs: DynamicDeletePlan) -> Bool {
        lhs.deleted == rhs.deleted && lhs.nullified.map { "\($0.object).\($0.property)" } == rhs.nullified.map { "\($0.object).\($0.property)" }
            && lhs.blocked.map { "\($0.object).\($0.relationship)\($0.blockers)" } == rhs.blocked.map { "\($0.object).\($0.relationship)\($0.blockers)" }
    }
}

extension DynamicStore {
    /// The plan for deleting these objects, with the delete rules the typed
    /// `save()` applies (the same planner).
    /// - Throws: `DynamicStoreError.objectNotFound`, `.unknownEntity`; `SQLiteError`.
    package func deletePlan(_ ids: [ObjectID]) throws -> DynamicDeletePlan {
        try makePlan(ids).description
    }

    /// The objects of `entity` that `filter` selects (all without one).
    /// - Throws: as `forEach`.
    package func objectIDs(_ entity: String, filter: String?) throws -> [ObjectID] {
        let table = try table(named: entity)
        let select = try QuerySQLBuilder.select(
            schema: schema, entity: table.entity, columns: { "\($0).\(quoteIdentifier(primaryKeyColumn))" },
            where: try filter.map { try filterExpression($0, entity: table.entity) }, orderBy: [], limit: nil, offset: nil)
        let statement = try prepareFiltered(select.sql, filter: filter)
        try select.bind(to: statement)
        var ids: [ObjectID] = []
        while try statement.step() { ids.append(ObjectID(entity: table.name, key: statement.int64(at: 0))) }
        return ids
    }

    /// Deletes the objects, applying the delete rules, in one transaction
    /// (rolled back for a dry run). Returns the plan it carried out.
    /// - Throws: `ModelStoreError.deleteDenied` when a `.deny` rule blocks
    ///   (nothing is written), `.danglingReference` when a `.noAction` rule
    ///   leaves a reference; as `deletePlan`.
    @discardableResult
    package func delete(_ ids: [ObjectID], dryRun: Bool = false) throws -> DynamicDeletePlan {
        try writeTransaction(dryRun: dryRun) {
            let (plan, description) = try makePlan(ids)
            if let denial = plan.denials.first { throw denial.error }
            try history.recordDeletes(of: plan, connection: connection, path: path)
            try plan.write(on: connection)
            return description
        }
    }

    private func makePlan(_ ids: [ObjectID]) throws -> (plan: DeletePlan, description: DynamicDeletePlan) {
        var roots: [String: (table: EntityTable, keys: [Int64])] = [:]
        for id in ids {
            let table = try table(named: id.entity)
            guard try exists(id) else { throw DynamicStoreError.objectNotFound(id) }
            roots[table.name, default: (table, [])].keys.append(id.key)
        }
        let store = store
        let planner = DeletePlanner(tables: { store.table(named: $0) }, allTables: store.tables, connection: connection)
        let plan = try planner.plan(deleting: roots.values.sorted { $0.table.name < $1.table.name })
        var deleted: [ObjectID] = []
        for (table, keys) in plan.rowsByTable {
            deleted += keys.map { ObjectID(entity: table.name, key: $0) }
        }
        var nullified: [(object: ObjectID, property: String)] = []
        for nullification in plan.nullifications {
            guard let keys = plan.rowsByTable.first(where: { $0.table === nullification.destination })?.keys else { continue }
            let property = nullification.table.entity.relationships.first { $0.foreignKeyColumn == nullification.column }?.name
                ?? nullification.column
            let statement = try connection.prepare(
                "SELECT \(quoteIdentifier(primaryKeyColumn)) FROM \(quoteIdentifier(nullification.table.tableName)) "
                    + "WHERE \(quoteIdentifier(nullification.column)) \(RelationshipSQL.inKeys)")
            try statement.bind(jsonKeys(keys), at: 1)
            while try statement.step() {
                let key = statement.int64(at: 0)
                if !plan.contains(nullification.table, key) {
                    nullified.append((ObjectID(entity: nullification.table.name, key: key), property))
                }
            }
        }
        let blocked = plan.denials.map { denial in
            (
                ObjectID(entity: denial.table.name, key: denial.holder), denial.relationship,
                denial.blockers.map { ObjectID(entity: denial.destination.name, key: $0) }
            )
        }
        var description = DynamicDeletePlan(
            deleted: deleted.sorted(), nullified: nullified.sorted { ($0.object, $0.property) < ($1.object, $1.property) },
            blocked: blocked)
        description.summarize(roots: roots.mapValues(\.keys.count), schema: schema)
        return (plan, description)
    }
}

/// What one entity (or one to-one property) of a delete plan comes to: a
/// count, and the delete rules that reach it, so that a delete of many
/// objects reads as a few lines instead of every identifier.
package struct DeleteReach: Sendable, Equatable {
    /// The entity (`Stop`), or for a cleared link the property (`Stop.trip`).
    package let name: String
    /// Objects deleted, or links cleared.
    package let count: Int
    /// What reaches them: `selected` (named, or chosen by the filter),
    /// `cascade from Trip.stops`, `nullify from Trip.stops`, `no inverse`
    /// (a to-one without inverse to a deleted object is always cleared).
    package let reachedBy: [String]
}

extension DynamicDeletePlan {
    /// Fills `deletedByEntity` and `nullifiedByProperty` from the plan's
    /// objects and the schema's rules. A cascade is named when its
    /// relationship belongs to an entity with deleted objects and leads to
    /// this entity: the rule that can have reached them (the planner does
    /// not record which row came through which relationship).
    /// - Complexity: O(deleted + nullified + relationships of the schema).
    mutating func summarize(roots: [String: Int], schema: Schema) {
        var counts: [String: Int] = [:]
        for id in deleted { counts[id.entity, default: 0] += 1 }
        let deletedEntities = schema.entities.filter { counts[$0.name] != nil }
        deletedByEntity = deletedEntities.map { entity in
            var rules: [String] = []
            if roots[entity.name] != nil { rules.append("selected") }
            for holder in deletedEntities {
                for relationship in holder.relationships where relationship.deleteRule == .cascade && relationship.destination == entity.name {
                    rules.append("cascade from \(holder.name).\(relationship.name)")
                }
            }
            return DeleteReach(name: entity.name, count: counts[entity.name] ?? 0, reachedBy: rules)
        }
        var links: [String: (count: Int, rule: String)] = [:]
        for (object, property) in nullified {
            let name = "\(object.entity).\(property)"
            if let known = links[name] {
                links[name] = (known.count + 1, known.rule)
                continue
            }
            let relationship = schema.entity(named: object.entity)?.relationship(named: property)
            let rule = relationship.flatMap { link in
                link.inverseName.map { "nullify from \(link.destination).\($0)" }
            } ?? "no inverse"
            links[name] = (1, rule)
        }
        nullifiedByProperty = links.keys.sorted().compactMap { name in
            links[name].map { DeleteReach(name: name, count: $0.count, reachedBy: [$0.rule]) }
        }
    }
}
