import Foundation
import ModelStore

extension DynamicStore {
    /// Checks the file and the store's own invariants and returns one line
    /// per problem (empty when there is none): schema objects ModelStore did
    /// not make (triggers, views, CHECK constraints, generated columns,
    /// indexes on expressions, …: see `ForeignSchemaObject`); SQLite's `integrity_check` and
    /// `foreign_key_check`; the schema record matches the tables and
    /// columns; every value has its recorded type (and is one of its enum's
    /// recorded cases) and required values are present; non-optional to-ones
    /// are set; unique values (`.unique` and `#Unique`) are unique; a
    /// one-to-one's object has one partner; to-many counts are within their
    /// limits. Join rows that lead nowhere are foreign-key problems. Reads
    /// row by row.
    /// - Throws: `SQLiteError` when the file cannot be read at all.
    package func check(progress: (String) -> Void = { _ in }) throws -> [String] {
        var problems: [String] = foreignSchemaObjects.map {
            "foreign: \($0): ModelStore did not make it, and SQLite would run it on writes; the store opens read-only until it is removed"
        }
        progress("integrity_check")
        let integrity = try connection.prepare("PRAGMA integrity_check")
        while try integrity.step() {
            let line = integrity.string(at: 0)
            if line != "ok" { problems.append("integrity: \(line)") }
        }
        progress("foreign_key_check")
        let foreignKeys = try connection.prepare("PRAGMA foreign_key_check")
        while try foreignKeys.step() {
            problems.append(
                "foreign key: row \(foreignKeys.int64(at: 1)) of \(foreignKeys.string(at: 0)) refers to a missing row of \(foreignKeys.string(at: 2))")
        }
        let tables = Set(try tableNames())
        for table in store.tables {
            progress(table.name)
            // A subentity's rows and columns are in its root's table.
            guard tables.contains(table.tableName) else {
                problems.append("schema: the record has entity \(table.name), but the file has no table \(table.tableName)")
                continue
            }
            let columns = try columnNames(of: table.tableName)
            var expected = table.entity.attributes.map(\.name)
            for relationship in table.entity.relationships {
                if case .foreignKey(let column, let order) = relationship.storage { expected += [column] + (order.map { [$0] } ?? []) }
                if case .joinTable(let name, _) = relationship.storage, !tables.contains(name) {
                    problems.append("schema: \(table.name).\(relationship.name) needs the join table \(name), which is missing")
                }
            }
            let missing = expected.filter { !columns.contains($0) }
            for column in missing { problems.append("schema: table \(table.name) has no column \(column) of the schema record") }
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
                        rule.isCompound
                            ? "unique: \(statement.int64(at: 0)) objects of \(table.name) share one value of \(rule.label) (#Unique)"
                            : "unique: \(statement.int64(at: 0)) objects of \(table.name) share one value of \(rule.label)")
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
    private func checkOneToOnes(of table: EntityTable) throws -> [String] {
        var problems: [String] = []
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
                problems.append(
                    "inverse: \(holders.joined(separator: ", ")) all hold \(relationship.destination):\(statement.int64(at: 0)) in "
                        + "\(relationship.name), but its inverse \(relationship.destination).\(inverse.name) is a to-one")
            }
        }
        return problems
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
    private func checkRows(of table: EntityTable) throws -> [String] {
        var problems: [String] = []
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
            let key = statement.int64(at: 0)
            for (ordinal, slot) in table.slots.enumerated() {
                let column = Int32(ordinal + 1)
                switch slot {
                case .attribute(let attribute):
                    do {
                        let value = try DynamicValue.decode(attribute, from: statement, column: column)
                        if let problem = attribute.caseProblem(value) {
                            problems.append("value: \(table.name):\(key).\(attribute.name): \(problem)")
                        }
                    } catch {
                        problems.append("value: \(table.name):\(key).\(attribute.name): \(error.reason)")
                    }
                case .relationship(let relationship):
                    if relationship.foreignKeyColumn != nil, !relationship.isOptional, statement.storage(at: column) == .null {
                        problems.append("required: \(table.name):\(key).\(relationship.name) is not set, but it is not optional")
                    }
                }
            }
            for (index, relationship) in counted.enumerated() {
                let count = Int(statement.int64(at: Int32(table.slots.count + 1 + index)))
                let (minimum, maximum) = relationship.countLimits
                if count < (minimum ?? 0) || count > (maximum ?? Int.max) {
                    problems.append("count: \(table.name):\(key).\(relationship.name) holds \(count) objects, outside its limits")
                }
            }
        }
        return problems
    }
}
