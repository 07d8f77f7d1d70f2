/// The SQL text (DDL) for a schema's tables. Pure string building: names are
/// always quoted with `quoteIdentifier`, and no value is ever spliced in.
package enum SchemaSQL {
    /// Every statement that creates a schema's tables and indexes, in an
    /// order SQLite accepts (foreign keys may name tables created later).
    /// A class hierarchy is one table (see `Schema.storageLayout()`).
    static func createStatements(_ schema: Schema) -> [String] {
        let (schema, discriminated) = schema.storageLayout()
        var statements: [String] = []
        for entity in schema.entities {
            statements.append(createTable(entity, discriminated: discriminated.contains(entity.name)))
            statements += indexes(of: entity).map(\.sql)
        }
        for entity in schema.entities {
            for relationship in entity.relationships {
                guard case .joinTable(let name, isSource: true) = relationship.storage else { continue }
                statements += createJoinTable(name, source: entity.name, target: relationship.destination)
            }
        }
        return statements
    }

    /// The indexes of an entity's table, by name: one per foreign key (with
    /// the order column, the index also gives a to-many's members in order,
    /// so loading one needs no sort), one unique index per `#Unique`, one
    /// index per `#Index`.
    static func indexes(of entity: Schema.Entity) -> [(name: String, sql: String)] {
        var result: [(name: String, sql: String)] = []
        let table = quoteIdentifier(entity.name)
        func list(_ columns: [String]) -> String { columns.map(quoteIdentifier).joined(separator: ", ") }
        for relationship in entity.relationships {
            guard case .foreignKey(let column, let orderColumn) = relationship.storage else { continue }
            let name = "\(entity.name).\(column)"
            let columns = [column] + (orderColumn.map { [$0] } ?? [])
            result.append((name, "CREATE INDEX \(quoteIdentifier(name)) ON \(table) (\(list(columns)))"))
        }
        for columns in entity.uniqueConstraints {
            let name = Schema.Entity.uniqueIndexName(entity.name, columns)
            result.append((name, "CREATE UNIQUE INDEX \(quoteIdentifier(name)) ON \(table) (\(list(columns)))"))
        }
        for columns in entity.indexes {
            let name = Schema.Entity.indexName(entity.name, columns)
            result.append((name, "CREATE INDEX \(quoteIdentifier(name)) ON \(table) (\(list(columns)))"))
        }
        return result
    }

    /// `CREATE TABLE` for one entity: an AUTOINCREMENT primary key, so that a
    /// deleted object's identifier is never given to a new object, then one
    /// column per attribute, then the foreign keys of to-one relationships,
    /// then the row version (last, so that the format 3 upgrade's
    /// `ADD COLUMN` leaves a table whose SQL is exactly this).
    /// STRICT makes SQLite itself refuse a value of the wrong type, even from
    /// a tool that is not ModelStore.
    ///
    /// Foreign keys are deferred to the commit, so that a save can write a
    /// graph with cycles in any order; they are always nullable in SQL, a
    /// non-optional to-one being enforced by its Swift type.
    ///
    /// The table of a class hierarchy (`discriminated`, `entity` being its
    /// storage layout) has the discriminator column after the key.
    static func createTable(_ entity: Schema.Entity, named tableName: String? = nil, discriminated: Bool = false) -> String {
        var columns = ["\(quoteIdentifier(primaryKeyColumn)) INTEGER PRIMARY KEY AUTOINCREMENT"]
        if discriminated { columns.append("\(quoteIdentifier(entityColumn)) TEXT NOT NULL") }
        for attribute in entity.attributes {
            columns.append(columnDefinition(attribute))
        }
        for relationship in entity.relationships {
            guard case .foreignKey(let column, let orderColumn) = relationship.storage else { continue }
            columns.append(
                "\(quoteIdentifier(column)) INTEGER REFERENCES \(quoteIdentifier(relationship.destination)) "
                    + "(\(quoteIdentifier(primaryKeyColumn))) DEFERRABLE INITIALLY DEFERRED")
            if let orderColumn { columns.append("\(quoteIdentifier(orderColumn)) INTEGER") }
        }
        columns.append(versionColumnDefinition)
        return "CREATE TABLE \(quoteIdentifier(tableName ?? entity.name)) (\(columns.joined(separator: ", "))) STRICT"
    }

    /// A join table: one row per link, with each side's position in the
    /// other's array. A row goes away with either object's row.
    static func createJoinTable(_ name: String, source: String, target: String) -> [String] {
        func reference(_ column: String, _ entity: String) -> String {
            "\(quoteIdentifier(column)) INTEGER NOT NULL REFERENCES \(quoteIdentifier(entity)) "
                + "(\(quoteIdentifier(primaryKeyColumn))) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED"
        }
        let columns = [
            reference(JoinTableColumn.source, source), reference(JoinTableColumn.target, target),
            "\(quoteIdentifier(JoinTableColumn.sourceOrder)) INTEGER",
            "\(quoteIdentifier(JoinTableColumn.targetOrder)) INTEGER",
            "PRIMARY KEY (\(quoteIdentifier(JoinTableColumn.source)), \(quoteIdentifier(JoinTableColumn.target)))",
        ]
        return [
            "CREATE TABLE \(quoteIdentifier(name)) (\(columns.joined(separator: ", "))) STRICT, WITHOUT ROWID",
            "CREATE INDEX \(quoteIdentifier(name + ".target")) ON \(quoteIdentifier(name)) (\(quoteIdentifier(JoinTableColumn.target)))",
        ]
    }

    /// The row version column (see `rowVersionColumn`). The default is a
    /// literal, so that an INSERT that does not name it (every insert) sets 1.
    static let versionColumnDefinition = "\(quoteIdentifier(rowVersionColumn)) INTEGER NOT NULL DEFAULT 1"

    static func columnDefinition(_ attribute: Schema.Attribute) -> String {
        var definition = "\(quoteIdentifier(attribute.name)) \(attribute.kind.columnType)"
        if !attribute.isOptional { definition += " NOT NULL" }
        if attribute.isUnique { definition += " UNIQUE" }
        return definition
    }

    /// The columns of a `SELECT` that `PersistentRow` reads: the primary key
    /// at column 0, then the property with ordinal N at column N + 1 (NULL
    /// for a relationship whose link is not in this table). `qualifier`
    /// prefixes each column with a table alias, for joins.
    /// Ordinals in `omitting` are selected as NULL (a partial fetch).
    /// With `version`, the row version follows at column `slots.count + 1`
    /// (objects remember it; see `EntityTable.versionSelect`).
    package static func selectColumns(
        _ slots: [Schema.PropertySlot], qualifier: String?, omitting: PropertyBitSet = PropertyBitSet(),
        version: VersionSelect? = nil
    ) -> String {
        let prefix = qualifier.map { "\($0)." } ?? ""
        var columns = [prefix + quoteIdentifier(primaryKeyColumn)] + slots.indices.map { ordinal in
            guard !omitting.contains(ordinal), let column = slots[ordinal].column else { return "NULL" }
            return prefix + quoteIdentifier(column)
        }
        switch version {
        case .column?: columns.append(prefix + quoteIdentifier(rowVersionColumn))
        case .absent?: columns.append("0")
        case nil: break
        }
        return columns.joined(separator: ", ")
    }
}

/// How a SELECT that makes objects reads the row version.
package enum VersionSelect: Sendable {
    /// The table has the column.
    case column
    /// A store of format 2 opened read-only: the table has no version
    /// column (the upgrade runs on the first writable open), and nothing
    /// read through it can be saved, so 0 stands in.
    case absent
}

