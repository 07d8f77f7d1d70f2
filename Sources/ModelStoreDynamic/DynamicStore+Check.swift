import Foundation
import ModelStore

extension DynamicStore {
    /// Checks the file and the store's own invariants and returns one
    /// problem per finding (empty when there is none): schema objects
    /// ModelStore did not make (triggers, views, CHECK constraints, generated
    /// columns, indexes on expressions, …: see `ForeignSchemaObject`);
    /// SQLite's `integrity_check` and `foreign_key_check`; the schema record
    /// matches the tables and columns; every value has its recorded type
    /// (and is one of its enum's recorded cases) and required values are
    /// present; non-optional to-ones are set; unique values (`.unique` and `#Unique`) are unique; a
    /// one-to-one's object has one partner; to-many counts are within their
    /// limits. Join rows that lead nowhere are `.orphanedJoinRow`s. Each
    /// problem's `kind` says which check found it. Reads row by row.
    /// - Throws: `SQLiteError` when the file cannot be read at all.
    package func check(progress: (String) -> Void = { _ in }) throws -> [StoreProblem] {
        var problems: [StoreProblem] = foreignSchemaObjects.map {
            StoreProblem(
                .foreignSchemaObject, entity: $0.table.flatMap { schema.entity(named: $0)?.name },
                message: "\($0): ModelStore did not make it, and SQLite would run it on writes; the store opens read-only until it is removed")
        }
        progress("integrity_check")
        let integrity = try connection.prepare("PRAGMA integrity_check")
        while try integrity.step() {
            let line = integrity.string(at: 0)
            if line != "ok" { problems.append(StoreProblem(.integrity, message: line)) }
        }
        progress("foreign_key_check")
        problems += try foreignKeyProblems()
        let tables = Set(try tableNames())
        for table in store.tables {
            progress(table.name)
            // A subentity's rows and columns are in its root's table.
            guard tables.contains(table.tableName) else {
                problems.append(
                    StoreProblem(
                        .schemaMismatch, entity: table.name,
                        message: "the record has entity \(table.name), but the file has no table \(table.tableName)"))
                continue
            }
            let columns = try columnNames(of: table.tableName)
            var expected = table.entity.attributes.map(\.name)
            for relationship in table.entity.relationships {
                if case .foreignKey(let column, let order) = relationship.storage { expected += [column] + (order.map { [$0] } ?? []) }
                if case .joinTable(let name, _) = relationship.storage, !tables.contains(name) {
                    problems.append(
                        StoreProblem(
                            .schemaMismatch, entity: table.name, property: relationship.name,
                            message: "\(table.name).\(relationship.name) needs the join table \(name), which is missing"))
                }
            }
            let missing = expected.filter { !columns.contains($0) }
            for column in missing {
                problems.append(
                    StoreProblem(
                        .schemaMismatch, entity: table.name, property: table.entity.property(storedIn: column),
                        message: "table \(table.name) has no column \(column) of the schema record"))
            }
            guard missing.isEmpty else { continue }
            problems += try checkRows(of: table)
            // A rule holds for the whole table; a subentity's inherited
            // rules are checked once, with its superentity's.
            let inherited = Set(schema.superentity(of: table.entity)?.uniqueRules.map(\.label) ?? [])
            for rule in table.entity.uniqueRules where !inherited.contains(rule.label) {
                let columns = rule.names.map(quoteIdentifier)
                let statement = try connection.prepare(
                    "SELECT count(*) FROM \(quoteIdentifier(table.tableName)) WHERE "
                        + columns.map { "\($0) IS NOT NULL" }.joined(separator: " AND ")
                        + " GROUP BY \(columns.joined(separator: ", ")) HAVING count(*) > 1")
                while try statement.step() {
                    problems.append(
                        StoreProblem(
                            .duplicateUniqueValue, entity: table.name, property: rule.label,
                            message: "\(statement.int64(at: 0)) objects of \(table.name) share one value of \(rule.label)"
                                + (rule.isCompound ? " (#Unique)" : "")))
                }
            }
            problems += try checkOneToOnes(of: table)
        }
        return problems
    }

    /// A one-to-one's column may hold an object's key in one row only: two
    /// rows holding it would give the object two partners through its
    /// to-one inverse. (Other inverses are consistent by their storage: a
    /// one-to-many's column and a many-to-many's join rows serve both sides.)
    private func checkOneToOnes(of table: EntityTable) throws -> [StoreProblem] {
        var problems: [StoreProblem] = []
        // A column serves the whole table: an inherited relationship is
        // checked once, with the superentity that has it.
        let inherited = schema.superentity(of: table.entity)?.relationships.count ?? 0
        for relationship in table.entity.relationships.dropFirst(inherited) {
            guard case .foreignKey(let column, _) = relationship.storage, let inverse = inverse(of: relationship),
                !inverse.isToMany
            else { continue }
            let statement = try connection.prepare(
                "SELECT \(quoteIdentifier(column)), group_concat(\(quoteIdentifier(primaryKeyColumn)), ', ') FROM "
                    + "(SELECT \(quoteIdentifier(column)), \(quoteIdentifier(primaryKeyColumn)) FROM \(quoteIdentifier(table.tableName)) "
                    + "WHERE \(quoteIdentifier(column)) IS NOT NULL ORDER BY \(quoteIdentifier(primaryKeyColumn))) "
                    + "GROUP BY \(quoteIdentifier(column)) HAVING count(*) > 1")
            while try statement.step() {
                let holders = statement.string(at: 1).split(separator: ",").map { "\(table.name):\($0.trimmingCharacters(in: .whitespaces))" }
                // The problem is the partner's: its to-one inverse has more
                // than one object.
                let partner = ObjectID(entity: relationship.destination, key: statement.int64(at: 0))
                problems.append(
                    StoreProblem(
                        .inverseConflict, entity: relationship.destination, object: partner, property: inverse.name,
                        message: "\(holders.joined(separator: ", ")) all hold \(partner) in "
                            + "\(relationship.name), but its inverse \(relationship.destination).\(inverse.name) is a to-one"))
            }
        }
        return problems
    }

    /// SQLite's `foreign_key_check`: each row whose key names a missing row.
    /// A row of an entity's table is a `.danglingReference` of that object
    /// (its to-one named through the foreign key's column); a row of a join
    /// table is an `.orphanedJoinRow` of the many-to-many that owns it.
    private func foreignKeyProblems() throws -> [StoreProblem] {
        var problems: [StoreProblem] = []
        let foreignKeys = try connection.prepare("PRAGMA foreign_key_check")
        while try foreignKeys.step() {
            let (table, row, parent) = (foreignKeys.string(at: 0), foreignKeys.int64(at: 1), foreignKeys.string(at: 2))
            let message = "row \(row) of \(table) refers to a missing row of \(parent)"
            // Tables are named after their (root) entity; a join table after
            // its relationship, and only its source side names it so.
            if let entity = schema.entity(named: table), store.table(named: entity.name)?.tableName == table {
                let column = try foreignKeyColumn(of: table, id: foreignKeys.int64(at: 3))
                let property = column.flatMap { entity.property(storedIn: $0) }
                // Name the missing object, so that an operator can tell a
                // mistyped key from an object deleted by another writer.
                let missing = try column.flatMap { try storedKey(in: table, column: $0, row: row) }
                let named = property.flatMap { property in
                    missing.map { "\(ObjectID(entity: entity.name, key: row)).\(property) names \(parent):\($0), which does not exist" }
                }
                problems.append(
                    StoreProblem(
                        .danglingReference, entity: entity.name, object: ObjectID(entity: entity.name, key: row),
                        property: property, message: named.map { "\($0) (\(message))" } ?? message))
            } else {
                let owner = schema.entities.lazy.compactMap { entity in
                    entity.relationships.first {
                        if case .joinTable(table, true) = $0.storage { return true }
                        return false
                    }.map { (entity.name, $0.name) }
                }.first
                problems.append(StoreProblem(.orphanedJoinRow, entity: owner?.0, property: owner?.1, message: message))
            }
        }
        return problems
    }

    /// The key stored in `column` of `table`'s row `row`; nil when it is
    /// not an integer (or the row is gone).
    private func storedKey(in table: String, column: String, row: Int64) throws -> Int64? {
        let statement = try connection.prepare(
            "SELECT \(quoteIdentifier(column)) FROM \(quoteIdentifier(table)) WHERE \(quoteIdentifier(primaryKeyColumn)) = ?")
        try statement.bind(row, at: 1)
        guard try statement.step(), statement.storage(at: 0) == .integer else { return nil }
        return statement.int64(at: 0)
    }

    /// The column of `table`'s foreign key number `id` (as
    /// `foreign_key_check` numbers them), nil when there is no such key.
    private func foreignKeyColumn(of table: String, id: Int64) throws -> String? {
        let statement = try connection.prepare("SELECT \"from\" FROM pragma_foreign_key_list(?) WHERE id = ?")
        try statement.bind(table, at: 1)
        try statement.bind(id, at: 2)
        return try statement.step() ? statement.string(at: 0) : nil
    }

    private func columnNames(of table: String) throws -> Set<String> {
        let statement = try connection.prepare("SELECT name FROM pragma_table_info(?)")
        try statement.bind(table, at: 1)
        var names = Set<String>()
        while try statement.step() { names.insert(statement.string(at: 0)) }
        return names
    }

    /// Values, required to-ones and to-many counts, row by row: the
    /// entity's own rows (in a hierarchy's table, each row is checked once,
    /// as its own entity with all its properties).
    private func checkRows(of table: EntityTable) throws -> [StoreProblem] {
        var problems: [StoreProblem] = []
        let counted = table.entity.relationships.filter { $0.isToMany && ($0.countLimits.minimum != nil || $0.countLimits.maximum != nil) }
        let countColumns = counted.map {
            RelationshipSQL.countExpression(
                $0, inverse: inverse(of: $0), holderKey: "t.\(quoteIdentifier(primaryKeyColumn))",
                destinationTable: schema.tableName(of: $0.destination)) ?? "0"
        }
        let statement = try connection.prepare(
            "SELECT " + ([SchemaSQL.selectColumns(table.slots, qualifier: "t")] + countColumns).joined(separator: ", ")
                + " FROM \(quoteIdentifier(table.tableName)) AS t"
                + (schema.ownRowCondition(of: table.entity, qualifier: "t").map { " WHERE \($0)" } ?? "")
                + " ORDER BY t.\(quoteIdentifier(primaryKeyColumn))")
        while try statement.step() {
            let object = ObjectID(entity: table.name, key: statement.int64(at: 0))
            for (ordinal, slot) in table.slots.enumerated() {
                let column = Int32(ordinal + 1)
                switch slot {
                case .attribute(let attribute):
                    do {
                        let value = try DynamicValue.decode(attribute, from: statement, column: column)
                        if let problem = attribute.valueProblem(value) {
                            problems.append(
                                StoreProblem(
                                    .badValue, entity: table.name, object: object, property: attribute.name,
                                    message: "\(object).\(attribute.name): \(problem)"))
                        }
                    } catch {
                        problems.append(
                            StoreProblem(
                                .badValue, entity: table.name, object: object, property: attribute.name,
                                message: "\(object).\(attribute.name): \(error.reason)"))
                    }
                case .relationship(let relationship):
                    if relationship.foreignKeyColumn != nil, !relationship.isOptional, statement.storage(at: column) == .null {
                        problems.append(
                            StoreProblem(
                                .missingRequiredValue, entity: table.name, object: object, property: relationship.name,
                                message: "\(object).\(relationship.name) is not set, but it is not optional"))
                    }
                }
            }
            for (index, relationship) in counted.enumerated() {
                let count = Int(statement.int64(at: Int32(table.slots.count + 1 + index)))
                let (minimum, maximum) = relationship.countLimits
                if count < (minimum ?? 0) || count > (maximum ?? Int.max) {
                    problems.append(
                        StoreProblem(
                            .countOutOfLimits, entity: table.name, object: object, property: relationship.name,
                            message: "\(object).\(relationship.name) holds \(count) objects, outside its limits"))
                }
            }
        }
        return problems
    }
}

extension Schema.Entity {
    /// The property whose value a column of the entity's table holds: an
    /// attribute by its name, a to-one by its key column or its order
    /// column; nil for a column of no property.
    fileprivate func property(storedIn column: String) -> String? {
        if attribute(named: column) != nil { return column }
        return relationships.first {
            guard case .foreignKey(let key, let order) = $0.storage else { return false }
            return key == column || order == column
        }?.name
    }
}
