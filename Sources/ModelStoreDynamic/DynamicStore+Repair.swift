import Foundation
import ModelStore

/// One fix that `DynamicStore.repairPlan()` proposes for a problem `check`
/// found, written only by `applyRepairs(_:dryRun:)`.
package struct StoreRepair: Sendable, Equatable {
    /// What the fix writes.
    package enum Action: Sendable, Equatable {
        /// Sets an optional attribute whose stored value does not fit its
        /// type (or is not a case of its enum) to nil.
        case clearValue(object: ObjectID, attribute: String)
        /// Sets an optional to-one that names a missing object to nil.
        case clearReference(object: ObjectID, relationship: String)
        /// Deletes the rows of a many-to-many's join table that name a
        /// missing object (`count` of them when planned).
        case deleteOrphanedJoinRows(joinTable: String, count: Int)
    }

    /// What the fix writes.
    package let action: Action
    /// The problem it fixes, as `check` reported it (the first one, for
    /// orphaned join rows: one fix removes every orphan of a table).
    package let problem: StoreProblem

    /// The fix in a line: `Trip:2.budget: set to nil (the stored text is not valid JSON)`.
    package var summary: String {
        switch action {
        case .clearValue(let object, let attribute):
            "\(object).\(attribute): set to nil (\(problem.message.droppingPrefix("\(object).\(attribute): ")))"
        case .clearReference(let object, let relationship):
            "\(object).\(relationship): set to nil (\(problem.message))"
        case .deleteOrphanedJoinRows(let joinTable, let count):
            "\(problem.entity.map { "\($0)." } ?? "")\(problem.property ?? joinTable): delete \(count) join "
                + "row\(count == 1 ? "" : "s") of \(joinTable) that name a missing object"
        }
    }
}

/// What `repair` would do: the fixes, and the problems it leaves (each
/// with why), in `check`'s order.
package struct RepairPlan: Sendable, Equatable {
    /// A problem `repair` does not fix, and why.
    package struct Unrepaired: Sendable, Equatable {
        /// The problem, as `check` reported it.
        package let problem: StoreProblem
        /// Why no fix is proposed, and what an operator can do.
        package let reason: String
    }

    /// The fixes, each for one problem (one per join table for orphaned rows).
    package var repairs: [StoreRepair] = []
    /// The problems left as they are.
    package var unrepaired: [Unrepaired] = []
}

extension DynamicStore {
    /// Runs `check` and proposes a fix for each problem that has a safe one:
    /// an optional attribute whose stored value does not fit its type becomes
    /// nil; an optional to-one that names a missing object becomes nil; join
    /// rows that name a missing object are deleted. Every other problem
    /// (a required value, a duplicate, a damaged file, …) is left, with why.
    /// Nothing is written.
    /// - Throws: as `check`; `SQLiteError`.
    package func repairPlan(progress: (String) -> Void = { _ in }) throws -> RepairPlan {
        var plan = RepairPlan()
        var joinTablesSeen = Set<String>()
        for problem in try check(progress: progress) {
            switch problem.kind {
            case .badValue:
                guard let object = problem.object, let name = problem.property,
                    let attribute = schema.entity(named: object.entity)?.attribute(named: name)
                else {
                    plan.unrepaired.append(.init(problem: problem, reason: "repair cannot tell which value it is"))
                    continue
                }
                guard attribute.isOptional else {
                    plan.unrepaired.append(
                        .init(problem: problem, reason: "\(name) is not optional: give it a value with store-tool set"))
                    continue
                }
                plan.repairs.append(StoreRepair(action: .clearValue(object: object, attribute: name), problem: problem))
            case .danglingReference:
                guard let object = problem.object, let name = problem.property,
                    let relationship = schema.entity(named: object.entity)?.relationship(named: name),
                    case .foreignKey = relationship.storage
                else {
                    plan.unrepaired.append(.init(problem: problem, reason: "repair cannot tell which relationship holds it"))
                    continue
                }
                guard relationship.isOptional else {
                    plan.unrepaired.append(
                        .init(problem: problem, reason: "\(name) is not optional: link it to an existing object with store-tool set"))
                    continue
                }
                plan.repairs.append(StoreRepair(action: .clearReference(object: object, relationship: name), problem: problem))
            case .orphanedJoinRow:
                guard let joinTable = joinTable(of: problem) else {
                    plan.unrepaired.append(.init(problem: problem, reason: "repair cannot tell which join table holds it"))
                    continue
                }
                guard joinTablesSeen.insert(joinTable).inserted else { continue }
                let count = try countOrphans(of: joinTable)
                plan.repairs.append(StoreRepair(action: .deleteOrphanedJoinRows(joinTable: joinTable, count: count), problem: problem))
            default:
                plan.unrepaired.append(.init(problem: problem, reason: "repair does not fix this kind of problem"))
            }
        }
        return plan
    }

    /// Applies the plan's fixes in one transaction, recorded in the change
    /// history as store-tool's updates (so that apps with the store open
    /// merge them); with `dryRun` everything runs and is rolled back.
    /// Returns how many objects and join rows changed.
    /// - Throws: `ModelStoreError.readOnlyStore`; `SQLiteError` (a lock held
    ///   past the busy timeout); nothing is written when it throws.
    package func applyRepairs(_ plan: RepairPlan, dryRun: Bool = false) throws -> Int {
        // A repair only clears keys and deletes join rows: it cannot add a
        // dangling key, and the ones it leaves must not fail its dry run.
        try writeTransaction(dryRun: dryRun, checksForeignKeys: false) {
            var changed = 0
            for repair in plan.repairs {
                switch repair.action {
                case .clearValue(let object, let attribute):
                    changed += try clear(object, columnsOf: attribute)
                case .clearReference(let object, let relationship):
                    changed += try clear(object, columnsOf: relationship)
                case .deleteOrphanedJoinRows(let joinTable, _):
                    try connection.execute("DELETE FROM \(quoteIdentifier(joinTable)) WHERE \(try orphanCondition(of: joinTable))")
                    changed += connection.changes
                }
            }
            return changed
        }
    }

    /// Sets the columns that hold `property` of `object` (an attribute's,
    /// or a to-one's key and order) to NULL, bumping the row's version.
    private func clear(_ object: ObjectID, columnsOf property: String) throws -> Int {
        let table = try table(named: object.entity)
        var columns: [String] = []
        if table.entity.attribute(named: property) != nil { columns = [property] }
        if case .foreignKey(let key, let order)? = table.entity.relationship(named: property)?.storage {
            columns = [key] + (order.map { [$0] } ?? [])
        }
        let version = quoteIdentifier(rowVersionColumn)
        let statement = try connection.prepare(
            "UPDATE \(quoteIdentifier(table.tableName)) SET "
                + (columns.map { "\(quoteIdentifier($0)) = NULL" } + ["\(version) = \(version) + 1"]).joined(separator: ", ")
                + " WHERE \(quoteIdentifier(primaryKeyColumn)) = ?")
        try statement.bind(object.key, at: 1)
        try statement.run()
        guard connection.changes > 0 else { return 0 }
        history.record(.update, entity: object.entity, row: object.key, properties: [property])
        return 1
    }

    /// The join table of the many-to-many an `.orphanedJoinRow` names.
    private func joinTable(of problem: StoreProblem) -> String? {
        guard let entity = problem.entity, let name = problem.property,
            case .joinTable(let table, _)? = schema.entity(named: entity)?.relationship(named: name)?.storage
        else { return nil }
        return table
    }

    private func countOrphans(of joinTable: String) throws -> Int {
        let statement = try connection.prepare(
            "SELECT count(*) FROM \(quoteIdentifier(joinTable)) WHERE \(try orphanCondition(of: joinTable))")
        _ = try statement.step()
        return Int(statement.int64(at: 0))
    }

    /// The rows of `joinTable` whose foreign keys name a missing row, from
    /// the table's own foreign keys (as `foreign_key_check` reads them).
    private func orphanCondition(of joinTable: String) throws -> String {
        let keys = try connection.prepare("SELECT \"from\", \"table\", \"to\" FROM pragma_foreign_key_list(?)")
        try keys.bind(joinTable, at: 1)
        var conditions: [String] = []
        while try keys.step() {
            let column = quoteIdentifier(keys.string(at: 0))
            let parentKey = keys.storage(at: 2) == .null ? primaryKeyColumn : keys.string(at: 2)
            conditions.append(
                "(\(column) IS NOT NULL AND \(column) NOT IN (SELECT \(quoteIdentifier(parentKey)) FROM \(quoteIdentifier(keys.string(at: 1)))))")
        }
        return conditions.isEmpty ? "0" : conditions.joined(separator: " OR ")
    }
}

extension String {
    fileprivate func droppingPrefix(_ prefix: String) -> String {
        hasPrefix(prefix) ? String(dropFirst(prefix.count)) : self
    }
}
