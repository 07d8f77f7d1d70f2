import Foundation
import ModelStore

/// What an edit did: the object before (nil for an insert) and after.
package struct DynamicWriteResult: Sendable {
    /// The object edited or inserted.
    package let id: ObjectID
    /// Its values before the edit; nil for an insert.
    package let before: DynamicObject?
    /// Its values after the edit (also for a dry run, which then rolled back).
    package let after: DynamicObject
}

extension DynamicStore {
    /// Sets properties of an existing object, in one transaction.
    ///
    /// Values are parsed strictly by the property's type (an enum's value
    /// must be one of the cases the record holds); relationships take
    /// `Entity:ID` (`rel=`, `rel+=`, `rel-=`), and the other side is kept as
    /// a typed save keeps it: a stop added to a trip leaves its old trip,
    /// whose stops close up, and joins the end of the new one's; a
    /// many-to-many's join rows get both sides' order. Validation (required
    /// values, unique values, targets that exist, the to-many counts of the
    /// object and of every object that gains or loses it) runs before the
    /// transaction commits; with `dryRun` everything runs and is rolled back.
    /// A stored value that does not fit its type (invalid JSON in a Codable
    /// column) can be overwritten; a bad value the edit leaves alone fails it.
    /// - Throws: `DynamicStoreError` (`.objectNotFound`, `.unparsableValue`,
    ///   `.invalidEdit`, `.validationFailed`), `ModelStoreError.unknownProperty`,
    ///   `.readOnlyStore`, `.relationshipCount`, `.danglingReference`,
    ///   `.saveFailed`, `.invalidValue` (a stored value the edit leaves that
    ///   does not fit its type); `SQLiteError` (a lock held past the busy timeout).
    package func update(_ id: ObjectID, _ edits: [DynamicEdit], dryRun: Bool = false) throws -> DynamicWriteResult {
        let table = try table(named: id.entity)
        let resolved = try resolve(edits, of: table.entity, isInsert: false)
        return try writeTransaction(dryRun: dryRun) {
            let before = try editableObject(id, overwriting: Set(resolved.values.keys))
            try writeAttributes(resolved, table: table, key: id.key, current: before)
            history.record(.update, entity: table.name, row: id.key, properties: Self.propertyNames(of: edits, in: table))
            var changes = InverseChanges()
            try writeRelationships(resolved, table: table, key: id.key, previous: before, isNew: false, changes: &changes)
            try apply(changes)
            try checkCounts(table: table, key: id.key)
            return DynamicWriteResult(id: id, before: before, after: try existingObject(id))
        }
    }

    /// The object `id` before an edit that writes the properties `overwriting`.
    /// A stored value that does not fit its type can be overwritten (that is
    /// how an operator repairs it); one the edit leaves alone fails the edit,
    /// since the edit's checks would read it.
    /// - Throws: `DynamicStoreError.objectNotFound`; `ModelStoreError.invalidValue`
    ///   naming the first such value left alone.
    func editableObject(_ id: ObjectID, overwriting: Set<String>) throws -> DynamicObject {
        guard let before = try object(id, toleratingUnreadable: true) else { throw DynamicStoreError.objectNotFound(id) }
        if let kept = before.unreadable.filter({ !overwriting.contains($0.key) }).min(by: { $0.key < $1.key }) {
            throw ModelStoreError.invalidValue(
                entity: id.entity, property: kept.key, row: id.key,
                reason: kept.value.reason + "; give \(kept.key) a value in the same edit to overwrite it", path: path)
        }
        return before
    }

    /// Inserts a new object, in one transaction. An attribute left out takes
    /// the default value the schema record holds for it (the model's
    /// constant initial value); every other non-optional attribute and
    /// every non-optional to-one must be given.
    /// - Throws: as `update`.
    package func insert(_ entity: String, _ edits: [DynamicEdit], dryRun: Bool = false) throws -> DynamicWriteResult {
        let table = try table(named: entity)
        let resolved = try resolve(edits, of: table.entity, isInsert: true)
        return try writeTransaction(dryRun: dryRun) {
            try checkUnique(resolved.values, current: nil, table: table, key: nil)
            let key = try insertRow(resolved.values, table: table)
            var changes = InverseChanges()
            try writeRelationships(resolved, table: table, key: key, previous: nil, isNew: true, changes: &changes)
            try apply(changes)
            try checkCounts(table: table, key: key)
            let id = ObjectID(entity: table.name, key: key)
            return DynamicWriteResult(id: id, before: nil, after: try existingObject(id))
        }
    }

    /// Inserts one row with these column values (nil for the others) and
    /// returns its key; no checks.
    /// - Throws: `ModelStoreError.saveFailed`; `SQLiteError`.
    func insertRow(_ values: [String: DynamicValue], table: EntityTable) throws -> Int64 {
        // Cached: an import inserts thousands of rows with one statement shape.
        let statement = try connection.cachedStatement(table.insertSQL)
        defer { statement.reset() }
        var index: Int32 = 1
        for ordinal in table.columnOrdinals {
            let name = table.slots[ordinal].name
            try (values[name] ?? .null).bind(to: statement, at: index)
            index += 1
        }
        let key: Int64
        do {
            if table.insertReturnsKey {
                _ = try statement.step()
                key = statement.int64(at: 0)
            } else {
                try statement.run()
                key = connection.lastInsertRowID
            }
        } catch {
            throw ModelStoreError.saveFailed(entity: table.name, row: nil, underlying: error)
        }
        history.record(.insert, entity: table.name, row: key)
        try insertedRows.insert(ObjectID(entity: table.name, key: key))
        return key
    }

    /// The names of the properties `edits` change, in declaration order.
    private static func propertyNames(of edits: [DynamicEdit], in table: EntityTable) -> [String] {
        let edited = Set(edits.map(\.property))
        return table.slots.map(\.name).filter(edited.contains)
    }

    /// The author store-tool's edits are recorded with in the history.
    static let historyAuthor = "store-tool"

    /// Runs `body` in one `BEGIN IMMEDIATE` transaction (the library's),
    /// commits it, or rolls it back for a dry run after checking foreign
    /// keys as the commit would. `checksForeignKeys: false` skips that
    /// check for work that cannot add a dangling key (repairs), since
    /// `foreign_key_check` also reports the ones that were there before.
    func writeTransaction<T>(dryRun: Bool, checksForeignKeys: Bool = true, _ body: () throws -> T) throws -> T {
        guard !isReadOnly else { throw ModelStoreError.readOnlyStore(path: path) }
        var outcome: T?
        history = HistoryRecorder()
        insertedRows = InsertedRows()
        defer {
            history = HistoryRecorder()
            insertedRows = InsertedRows()
        }
        do {
            try connection.transaction {
                let result = try body()
                try history.write(author: Self.historyAuthor, connection: connection)
                outcome = result
                if dryRun {
                    let check = try connection.prepare("PRAGMA foreign_key_check")
                    if checksForeignKeys, try check.step() { throw ModelStoreError.danglingReference(path: path) }
                    throw DryRunRollback()
                }
            }
        } catch is DryRunRollback {
        } catch let error as SQLiteError where error.extendedCode == SQLiteError.foreignKeyConstraint {
            throw ModelStoreError.danglingReference(path: path)
        }
        guard let outcome else { throw ModelStoreError.danglingReference(path: path) }
        return outcome
    }

    // MARK: Resolving edits

    /// Edits checked against the schema and parsed: every problem is found
    /// before anything is written.
    struct ResolvedEdits {
        var values: [String: DynamicValue] = [:]
        var toMany: [(Schema.Relationship, DynamicEdit.Operation, [ObjectID])] = []
        var toOne: [(Schema.Relationship, ObjectID?)] = []
    }

    private func resolve(_ edits: [DynamicEdit], of entity: Schema.Entity, isInsert: Bool) throws -> ResolvedEdits {
        var resolved = ResolvedEdits()
        var problems: [StoreProblem] = []
        for edit in edits {
            let text = "\(edit.property)\(edit.operation.rawValue)\(edit.value ?? "nil")"
            if let attribute = entity.attribute(named: edit.property) {
                guard edit.operation == .set else {
                    throw DynamicStoreError.invalidEdit(text, reason: "\(edit.operation.rawValue) is for to-many relationships; use =")
                }
                guard let value = edit.value else {
                    if !attribute.isOptional {
                        problems.append(
                            StoreProblem(
                                .missingRequiredValue, entity: entity.name, property: attribute.name,
                                message: "\(entity.name).\(attribute.name) is required and cannot be nil"))
                    }
                    resolved.values[attribute.name] = .null
                    continue
                }
                let parsed: DynamicValue
                do {
                    parsed = try ValueText.parse(value, as: attribute.kind)
                } catch {
                    throw DynamicStoreError.unparsableValue(entity: entity.name, property: attribute.name, reason: error.reason)
                }
                if let problem = attribute.valueProblem(parsed) {
                    throw DynamicStoreError.unparsableValue(entity: entity.name, property: attribute.name, reason: problem)
                }
                resolved.values[attribute.name] = parsed
            } else if let relationship = entity.relationship(named: edit.property) {
                let ids = try objectIDs(edit.value, for: relationship, edit: text)
                if relationship.isToMany {
                    resolved.toMany.append((relationship, edit.operation, ids))
                } else {
                    guard edit.operation == .set, ids.count <= 1 else {
                        throw DynamicStoreError.invalidEdit(text, reason: "\(relationship.name) is a to-one relationship; write \(relationship.name)=\(relationship.destination):ID or =nil")
                    }
                    if ids.isEmpty && !relationship.isOptional {
                        problems.append(
                            StoreProblem(
                                .missingRequiredValue, entity: entity.name, property: relationship.name,
                                message: "\(entity.name).\(relationship.name) is required and cannot be nil"))
                    }
                    resolved.toOne.append((relationship, ids.first))
                    if relationship.foreignKeyColumn != nil { resolved.values[relationship.name] = ids.first.map(DynamicValue.object) ?? .null }
                }
            } else {
                throw ModelStoreError.unknownProperty(entity: entity.name, property: edit.property)
            }
        }
        if isInsert {
            for attribute in entity.attributes where resolved.values[attribute.name] == nil {
                do {
                    if let value = try attribute.recordedDefault() {
                        resolved.values[attribute.name] = value
                        continue
                    }
                } catch {
                    problems.append(
                        StoreProblem(
                            .unparsableDefault, entity: entity.name, property: attribute.name,
                            message: "\(entity.name).\(attribute.name): \(error.reason); give \(attribute.name)=VALUE"))
                    continue
                }
                if !attribute.isOptional {
                    problems.append(
                        StoreProblem(
                            .missingRequiredValue, entity: entity.name, property: attribute.name,
                            message: "\(entity.name).\(attribute.name) is required; give \(attribute.name)=VALUE"))
                }
            }
            for relationship in entity.relationships where !relationship.isToMany && !relationship.isOptional {
                if !resolved.toOne.contains(where: { $0.0.name == relationship.name }) {
                    problems.append(
                        StoreProblem(
                            .missingRequiredValue, entity: entity.name, property: relationship.name,
                            message: "\(entity.name).\(relationship.name) is required; give \(relationship.name)=\(relationship.destination):ID"))
                }
            }
        }
        guard problems.isEmpty else { throw DynamicStoreError.validationFailed(problems) }
        return resolved
    }

    /// `Entity:ID`, a comma-separated list of them (`[]` or nothing for
    /// none), or nil; each of the relationship's destination entity.
    private func objectIDs(_ text: String?, for relationship: Schema.Relationship, edit: String) throws -> [ObjectID] {
        guard let text else { return [] }
        let trimmed = text.trimmingCharacters(in: CharacterSet(charactersIn: "[] "))
        guard !trimmed.isEmpty else { return [] }
        return try trimmed.split(separator: ",").map { part in
            let name = part.trimmingCharacters(in: CharacterSet(charactersIn: " \""))
            guard let id = ObjectID(name) else { throw DynamicStoreError.invalidIdentifier(name) }
            guard id.entity == relationship.destination else {
                throw DynamicStoreError.invalidEdit(edit, reason: "\(relationship.name) holds \(relationship.destination) objects, not \(id.entity)")
            }
            return id
        }
    }
}

/// Thrown inside a dry run's transaction so that the library rolls it back.
private struct DryRunRollback: Error {}
