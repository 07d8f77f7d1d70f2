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
        let description = DynamicDeletePlan(
            deleted: deleted.sorted(), nullified: nullified.sorted { ($0.object, $0.property) < ($1.object, $1.property) },
            blocked: blocked)
        return (plan, description)
    }
}
