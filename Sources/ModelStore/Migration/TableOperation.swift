import Foundation

/// Where a column of a rebuilt table takes its values from: the explicit
/// old → new column map of SQLite's table-rebuild procedure.
package enum ColumnSource: Equatable {
    /// The old column, as it is.
    case column(String)
    /// The old column, with NULL replaced by a bound value.
    case coalesce(String, SQLiteValue)
    /// A bound value for every row.
    case value(SQLiteValue)
    /// NULL for every row.
    case null
    /// SQL over the old row's columns, written in a migration script (a type
    /// conversion or a backfill).
    case expression(String)
    /// In a class hierarchy's table: a bound value for the rows of these
    /// entities (a subentity's new attribute), NULL for the others.
    case valueForRows(of: [String], SQLiteValue)
    /// In a class hierarchy's table: the old column, with NULL replaced by a
    /// bound value in the rows of these entities.
    case coalesceForRows(String, of: [String], SQLiteValue)

    /// The SELECT expression and the values it binds.
    var select: (sql: String, bindings: [SQLiteValue]) {
        switch self {
        case .column(let name): (quoteIdentifier(name), [])
        case .coalesce(let name, let value): ("coalesce(\(quoteIdentifier(name)), ?)", [value])
        case .value(let value): ("?", [value])
        case .null: ("NULL", [])
        case .expression(let sql): ("(\(sql))", [])
        case .valueForRows(let entities, let value):
            ("CASE WHEN \(StorageChange.rowCondition(entities)) THEN ? END", [value])
        case .coalesceForRows(let name, let entities, let value):
            (
                "CASE WHEN \(StorageChange.rowCondition(entities)) THEN coalesce(\(quoteIdentifier(name)), ?) "
                    + "ELSE \(quoteIdentifier(name)) END", [value]
            )
        }
    }
}

/// One change to the store's tables, as a migration plan lists it and runs it.
enum TableOperation {
    case renameTable(from: String, to: String)
    /// `discriminated`: the table of a class hierarchy, with its entity column.
    case createTable(Schema.Entity, discriminated: Bool)
    case createJoinTable(name: String, source: String, target: String)
    /// `INSERT INTO join (source, target, source_order, target_order) SELECT …`
    case copyLinks(into: String, from: String, select: [ColumnSource], whereNotNull: String)
    case addColumn(table: String, definition: String)
    case renameColumn(table: String, from: String, to: String)
    case rebuild(TableRebuild)
    case dropTable(String)
    /// Fails with `duplicateValues` when the old columns hold duplicates.
    case checkUnique(table: String, columns: [String], entity: String, attributes: [String])
    /// Fails when the old column holds NULL in some row and no value fills it.
    case checkNotNull(table: String, column: String, entity: String, attribute: String)
    case createIndex(name: String, sql: String)
    case dropIndex(String)
    /// Deletes the rows of these entities (subentities no longer in the
    /// schema) from a class hierarchy's table.
    case deleteRows(table: String, entities: [String])
    /// Gives the rows of a renamed entity of a class hierarchy its new name.
    case renameEntityRows(table: String, from: String, to: String)
    /// Removes the links to rows of `table` that were deleted
    /// (`StorageChange.unlinkStatements`).
    case unlinkDeletedRows(table: String, statements: [String])

    /// The SQL the operation runs, for plans (checks show their query).
    var sql: [String] {
        switch self {
        case .renameTable(let from, let to):
            return ["ALTER TABLE \(quoteIdentifier(from)) RENAME TO \(quoteIdentifier(to))"]
        case .createTable(let entity, let discriminated):
            return [SchemaSQL.createTable(entity, discriminated: discriminated)]
        case .createJoinTable(let name, let source, let target):
            return SchemaSQL.createJoinTable(name, source: source, target: target).prefix(1).map { $0 }
        case .copyLinks(let into, let from, let select, let column):
            return [Self.copyLinksSQL(into: into, from: from, select: select, column: column)]
        case .addColumn(let table, let definition):
            return ["ALTER TABLE \(quoteIdentifier(table)) ADD COLUMN \(definition)"]
        case .renameColumn(let table, let from, let to):
            return ["ALTER TABLE \(quoteIdentifier(table)) RENAME COLUMN \(quoteIdentifier(from)) TO \(quoteIdentifier(to))"]
        case .rebuild(let rebuild):
            return rebuild.sql
        case .dropTable(let name):
            return ["DROP TABLE \(quoteIdentifier(name))"]
        case .checkUnique(let table, let columns, _, _):
            return [Self.duplicatesSQL(table: table, columns: columns)]
        case .checkNotNull(let table, let column, _, _):
            return ["SELECT count(*) FROM \(quoteIdentifier(table)) WHERE \(quoteIdentifier(column)) IS NULL"]
        case .createIndex(_, let sql):
            return [sql]
        case .dropIndex(let name):
            return ["DROP INDEX \(quoteIdentifier(name))"]
        case .deleteRows(let table, let entities):
            return ["DELETE FROM \(quoteIdentifier(table)) WHERE \(StorageChange.rowCondition(entities))"]
        case .renameEntityRows(let table, let from, let to):
            return [
                "UPDATE \(quoteIdentifier(table)) SET \(quoteIdentifier(entityColumn)) = \(sqlStringLiteral(to)) "
                    + "WHERE \(quoteIdentifier(entityColumn)) = \(sqlStringLiteral(from))"
            ]
        case .unlinkDeletedRows(_, let statements):
            return statements
        }
    }

    static func copyLinksSQL(into: String, from: String, select: [ColumnSource], column: String) -> String {
        let columns = [JoinTableColumn.source, JoinTableColumn.target, JoinTableColumn.sourceOrder, JoinTableColumn.targetOrder]
        return "INSERT INTO \(quoteIdentifier(into)) (\(columns.map(quoteIdentifier).joined(separator: ", "))) "
            + "SELECT \(select.map(\.select.sql).joined(separator: ", ")) FROM \(quoteIdentifier(from)) "
            + "WHERE \(quoteIdentifier(column)) IS NOT NULL"
    }

    static func duplicatesSQL(table: String, columns: [String]) -> String {
        let list = columns.map(quoteIdentifier).joined(separator: ", ")
        return "SELECT group_concat(\(quoteIdentifier(primaryKeyColumn)), ',') FROM \(quoteIdentifier(table)) "
            + "GROUP BY \(list) HAVING count(*) > 1 LIMIT 6"
    }

    /// Runs the operation inside the migration's transaction.
    /// - Throws: `ModelStoreError.duplicateValues` or `.migrationFailed` for
    ///   a failed check; `SQLiteError` from SQLite.
    func run(_ context: MigrationRunContext) throws {
        let connection = context.connection
        switch self {
        case .rebuild(let rebuild):
            try rebuild.run(context)
        case .copyLinks(let into, let from, let select, let column):
            let statement = try connection.prepare(Self.copyLinksSQL(into: into, from: from, select: select, column: column))
            var index: Int32 = 1
            for value in select.flatMap(\.select.bindings) {
                try statement.bind(value, at: index)
                index += 1
            }
            try statement.run()
        case .checkUnique(let table, let columns, let entity, let attributes):
            let statement = try connection.prepare(Self.duplicatesSQL(table: table, columns: columns))
            var groups: [[Int64]] = []
            while try statement.step() {
                groups.append(statement.string(at: 0).split(separator: ",").compactMap { Int64($0) })
            }
            if !groups.isEmpty {
                throw ModelStoreError.duplicateValues(entity: entity, attributes: attributes, rows: groups, path: context.path)
            }
        case .checkNotNull(let table, let column, let entity, let attribute):
            let statement = try connection.prepare(sql[0])
            _ = try statement.step()
            let count = statement.int64(at: 0)
            if count > 0 {
                let _ = table
                throw ModelStoreError.migrationFailed(
                    path: context.path, step: context.stepName,
                    reason: "\(entity).\(attribute) becomes non-optional, but \(count) row\(count == 1 ? "" : "s") hold nil "
                        + "(\(quoteIdentifier(column))); give it a default value, fill the nils in a custom stage's "
                        + "willMigrate, or use a script's makeRequired with a backfill")
            }
        case .createJoinTable(let name, let source, let target):
            for statement in SchemaSQL.createJoinTable(name, source: source, target: target).prefix(1) {
                try connection.execute(statement)
            }
        default:
            for statement in sql { try connection.execute(statement) }
        }
    }

    /// A short description for plans and errors: "rebuild table Trip".
    var summary: String {
        switch self {
        case .renameTable(let from, let to): "rename table \(from) to \(to)"
        case .createTable(let entity, _): "create table \(entity.name)"
        case .createJoinTable(let name, _, _): "create join table \(name)"
        case .copyLinks(let into, let from, _, _): "copy links from \(from) into \(into)"
        case .addColumn(let table, let definition): "add column \(definition.split(separator: " ").first ?? "") to \(table)"
        case .renameColumn(let table, let from, let to): "rename column \(table).\(from) to \(to)"
        case .rebuild(let rebuild): "rebuild table \(rebuild.entity.name)"
        case .dropTable(let name): "drop table \(name)"
        case .checkUnique(_, _, let entity, let attributes):
            "check that \(entity).(\(attributes.joined(separator: ", "))) holds no duplicates"
        case .checkNotNull(_, _, let entity, let attribute): "check that \(entity).\(attribute) holds no nil"
        case .createIndex(let name, _): "create index \(name)"
        case .dropIndex(let name): "drop index \(name)"
        case .deleteRows(let table, let entities): "delete the rows of \(entities.joined(separator: ", ")) from \(table)"
        case .renameEntityRows(let table, let from, let to): "rename the rows of \(from) in \(table) to \(to)"
        case .unlinkDeletedRows(let table, _): "remove the links to deleted rows of \(table)"
        }
    }

    var rebuiltTables: [RebuiltTable] {
        if case .rebuild(let rebuild) = self { return [RebuiltTable(table: rebuild.entity.name, rows: rebuild.rows)] }
        return []
    }

    var isColumnRename: Bool {
        if case .renameColumn = self { return true }
        return false
    }

    /// True when the operation removes stored values.
    var destroysData: Bool {
        switch self {
        case .dropTable, .deleteRows: true
        case .rebuild(let rebuild): !rebuild.droppedColumns.isEmpty
        default: false
        }
    }
}

/// SQLite's table-rebuild procedure for one table: a new table with the new
/// definition, every row copied through an explicit column map, the old
/// table dropped, the new one renamed, its triggers recreated, its
/// AUTOINCREMENT counter kept (so keys are never reused). Foreign keys are
/// off (the runner turns them off outside the transaction) and checked with
/// `foreign_key_check` before the commit; indexes are recreated afterwards.
struct TableRebuild {
    /// The entity as it will be.
    let entity: Schema.Entity
    /// The table's current name.
    let table: String
    /// True for a class hierarchy's table, which has the entity column.
    let discriminated: Bool
    /// Each new column and where its values come from.
    let columns: [(name: String, source: ColumnSource)]
    /// Old columns whose values are not carried over.
    let droppedColumns: [String]
    /// Rows in the table when planned.
    let rows: Int
    /// Rows copied per statement, so that progress can be reported.
    static let chunkSize = 100_000

    var temporaryName: String { "_modelstore_rebuild_\(entity.name)" }

    private var copySQL: String {
        let key = quoteIdentifier(primaryKeyColumn)
        let names = [key] + columns.map { quoteIdentifier($0.name) }
        let values = [key] + columns.map(\.source.select.sql)
        return "INSERT INTO \(quoteIdentifier(temporaryName)) (\(names.joined(separator: ", "))) "
            + "SELECT \(values.joined(separator: ", ")) FROM \(quoteIdentifier(table)) "
            + "WHERE \(key) > ? ORDER BY \(key) LIMIT ?"
    }

    var sql: [String] {
        [
            SchemaSQL.createTable(entity, named: temporaryName, discriminated: discriminated), copySQL,
            "DROP TABLE \(quoteIdentifier(table))",
            "ALTER TABLE \(quoteIdentifier(temporaryName)) RENAME TO \(quoteIdentifier(entity.name))",
        ]
    }

    func run(_ context: MigrationRunContext) throws {
        let connection = context.connection
        // Triggers go with the table; ModelStore makes none, but a store
        // edited by hand may have some.
        let triggers = try strings(
            "SELECT sql FROM sqlite_schema WHERE type = 'trigger' AND tbl_name = ? AND sql IS NOT NULL", table, connection)
        let sequence = try strings("SELECT seq FROM sqlite_sequence WHERE name = ?", table, connection).first
        try connection.execute(SchemaSQL.createTable(entity, named: temporaryName, discriminated: discriminated))
        try copyRows(context)
        try connection.execute("DROP TABLE \(quoteIdentifier(table))")
        try connection.execute("ALTER TABLE \(quoteIdentifier(temporaryName)) RENAME TO \(quoteIdentifier(entity.name))")
        if let sequence, let value = Int64(sequence) {
            let update = try connection.prepare("UPDATE sqlite_sequence SET seq = max(seq, ?) WHERE name = ?")
            try update.bind(value, at: 1)
            try update.bind(entity.name, at: 2)
            try update.run()
            if connection.changes == 0 {
                let insert = try connection.prepare("INSERT INTO sqlite_sequence (name, seq) VALUES (?, ?)")
                try insert.bind(entity.name, at: 1)
                try insert.bind(value, at: 2)
                try insert.run()
            }
        }
        for trigger in triggers { try connection.execute(trigger) }
    }

    /// Copies the rows in chunks of keys, reporting progress after each.
    /// Its statements are finalized when it returns, so that the old table
    /// can be dropped.
    private func copyRows(_ context: MigrationRunContext) throws {
        let connection = context.connection
        let copy = try connection.prepare(copySQL)
        let last = try connection.prepare(
            "SELECT max(\(quoteIdentifier(primaryKeyColumn))) FROM \(quoteIdentifier(temporaryName))")
        let bindings = columns.flatMap(\.source.select.bindings)
        var lastKey = Int64.min
        var copied = 0
        context.report(rowsCopied: 0, of: rows)
        while true {
            var index: Int32 = 1
            for value in bindings {
                try copy.bind(value, at: index)
                index += 1
            }
            try copy.bind(lastKey, at: index)
            try copy.bind(Int64(Self.chunkSize), at: index + 1)
            try copy.run()
            let count = connection.changes
            if count == 0 { break }
            copied += count
            context.report(rowsCopied: copied, of: max(rows, copied))
            if count < Self.chunkSize { break }
            _ = try last.step()
            lastKey = last.int64(at: 0)
            last.reset()
        }
    }

    private func strings(_ sql: String, _ argument: String, _ connection: Connection) throws -> [String] {
        let statement = try connection.prepare(sql)
        try statement.bind(argument, at: 1)
        var result: [String] = []
        while try statement.step() { result.append(statement.string(at: 0)) }
        return result
    }
}
