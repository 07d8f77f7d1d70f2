import Foundation

/// The table operations that turn a store holding schema `old` into one
/// holding schema `new`: renames and added nullable columns through ALTER
/// TABLE, everything else through one rebuild per table (several changes to
/// one table share it), link copies where a relationship changes storage,
/// and the indexes brought in line at the end.
///
/// Planning reads the file (row counts, values that a change would lose) but
/// never writes it. Changes that would lose data are collected, and refused
/// together unless `allowsDataLoss` is set.
///
/// A class hierarchy is one table (`StorageChange`): its subentities'
/// properties are columns of the root's table, a new subentity is new rows'
/// entity name, and a removed one's rows are deleted, which is refused like
/// removing an entity that has rows.
package struct SchemaChange {
    let old: Schema
    let new: Schema
    var renames = SchemaMapping.Renames()
    /// New entity → new attribute → where its values come from, as a script
    /// states it (a conversion expression, a backfill); wins over inference.
    var overrides: [String: [String: ColumnSource]] = [:]
    /// Drops that lose data are allowed (a custom stage, or the option).
    var allowsDataLoss = false
    /// How a refused change is allowed, when the default (a custom stage, a
    /// script, the option) does not fit: a script's own drops need the option.
    package var dataLossHint: String?

    package init(
        old: Schema, new: Schema, renames: SchemaMapping.Renames = SchemaMapping.Renames(),
        overrides: [String: [String: ColumnSource]] = [:], allowsDataLoss: Bool = false
    ) {
        self.old = old
        self.new = new
        self.renames = renames
        self.overrides = overrides
        self.allowsDataLoss = allowsDataLoss
    }

    /// - Throws: `ModelStoreError.noMigrationPath` listing every change that
    ///   no permission can make (rows that need a value nothing supplies);
    ///   `ModelStoreError.destructiveMigration` listing every change that
    ///   would lose data; `SQLiteError` when the file cannot be read.
    ///   Also `noMigrationPath` for an entity whose superentity changed.
    func operations(_ connection: Connection, path: String) throws -> [TableOperation] {
        let storage = StorageChange(self)
        if !storage.impossibilities.isEmpty {
            throw ModelStoreError.noMigrationPath(path: path, reason: storage.impossibilities.joined(separator: "; "))
        }
        var planner = TablePlanner(change: self, storage: storage, connection: connection)
        try planner.plan()
        if !planner.impossibilities.isEmpty {
            throw ModelStoreError.noMigrationPath(path: path, reason: planner.impossibilities.joined(separator: "; "))
        }
        if !planner.refusals.isEmpty && !allowsDataLoss {
            throw ModelStoreError.destructiveMigration(path: path, changes: planner.refusals)
        }
        return planner.operations
    }
}

/// Plans a `SchemaChange` table by table, on the storage layouts.
struct TablePlanner {
    let change: SchemaChange
    let storage: StorageChange
    let connection: Connection
    let mapping: SchemaMapping
    var operations: [TableOperation] = []
    var refusals: [String] = []
    /// Changes that cannot be made whatever is allowed: a new non-optional
    /// column without a default in a table that has rows (its NOT NULL
    /// constraint has no value to give them; neither stage closure of a
    /// custom stage runs while the table is rebuilt).
    var impossibilities: [String] = []
    var late: [TableOperation] = []
    var rebuilt = Set<String>()
    /// Tables kept whose name or columns were renamed: their indexes are recreated.
    var renamedTables = Set<String>()

    static let defaultAllowHint = "use a custom MigrationStage or a migration script, or set migrationOptions.allowsDataLoss"

    /// How a refusal is allowed, at the end of its text.
    var allowHint: String { change.dataLossHint ?? Self.defaultAllowHint }

    init(change: SchemaChange, storage: StorageChange, connection: Connection) {
        self.change = change
        self.storage = storage
        self.connection = connection
        self.mapping = SchemaMapping(old: storage.old, new: storage.new, renames: storage.renames)
    }

    mutating func plan() throws {
        for entity in storage.new.entities {
            guard let oldEntity = mapping.oldEntity(for: entity) else {
                operations.append(.createTable(entity, discriminated: storage.newDiscriminated.contains(entity.name)))
                continue
            }
            if oldEntity.name != entity.name {
                operations.append(.renameTable(from: oldEntity.name, to: entity.name))
            }
        }
        try planJoinTables()
        for entity in storage.new.entities {
            guard let oldEntity = mapping.oldEntity(for: entity) else { continue }
            try planTable(entity, oldEntity)
        }
        for entity in mapping.removedEntities {
            let rows = try count("SELECT count(*) FROM \(quoteIdentifier(entity.name))")
            if rows > 0 {
                refusals.append("entity \(entity.name) is no longer in the schema and holds \(rows) row\(rows == 1 ? "" : "s"); \(allowHint)")
            }
            late.append(.dropTable(entity.name))
        }
        operations += late
        try planIndexes()
    }

    // MARK: Join tables

    /// Join tables of the new schema: kept, created empty, or created and
    /// filled from where the links were before (an old join table with
    /// another name or sides, or a foreign-key column of a to-one that
    /// became to-many). Old join tables nothing keeps are dropped at the end.
    private mutating func planJoinTables() throws {
        var kept = Set<String>()
        for entity in storage.new.entities {
            let oldEntity = mapping.oldEntity(for: entity)
            for relationship in entity.relationships {
                guard case .joinTable(let name, isSource: true) = relationship.storage else { continue }
                let origin = oldEntity.flatMap { old in
                    mapping.oldPropertyName(relationship.name, of: entity.name).flatMap(old.relationship(named:))
                }
                if case .joinTable(let oldName, let wasSource)? = origin?.storage, oldName == name {
                    kept.insert(oldName)
                    if wasSource { continue }
                }
                // A to-one without inverse that becomes to-many: its join
                // table takes the name of the old foreign key's index.
                if try indexExists(name) { operations.append(.dropIndex(name)) }
                operations.append(.createJoinTable(name: name, source: entity.name, target: relationship.destination))
                operations.append(
                    .createIndex(
                        name: name + ".target",
                        sql: "CREATE INDEX \(quoteIdentifier(name + ".target")) ON \(quoteIdentifier(name)) "
                            + "(\(quoteIdentifier(JoinTableColumn.target)))"))
                guard let origin, let oldEntity else { continue }
                let key = ColumnSource.column(primaryKeyColumn)
                let zero = ColumnSource.value(.integer(0))
                switch origin.storage {
                case .joinTable(let oldName, let wasSource):
                    let s = ColumnSource.column(JoinTableColumn.source)
                    let t = ColumnSource.column(JoinTableColumn.target)
                    let so = ColumnSource.column(JoinTableColumn.sourceOrder)
                    let to = ColumnSource.column(JoinTableColumn.targetOrder)
                    operations.append(
                        .copyLinks(
                            into: name, from: oldName, select: wasSource ? [s, t, so, to] : [t, s, to, so],
                            whereNotNull: JoinTableColumn.source))
                case .foreignKey(let column, let order):
                    operations.append(
                        .copyLinks(
                            into: name, from: entity.name, select: [key, .column(column), zero, order.map(ColumnSource.column) ?? .null],
                            whereNotNull: column))
                case .inverseForeignKey:
                    guard let oldDestination = storage.old.entity(named: origin.destination),
                        let inverse = origin.inverseName.flatMap(oldDestination.relationship(named:)),
                        case .foreignKey(let column, let order) = inverse.storage,
                        let table = mapping.newEntityName(forOld: oldDestination.name)
                    else { continue }
                    operations.append(
                        .copyLinks(
                            into: name, from: table, select: [.column(column), key, order.map(ColumnSource.column) ?? .null, zero],
                            whereNotNull: column))
                case .unresolved:
                    continue
                }
                _ = oldEntity
            }
        }
        for entity in storage.old.entities {
            for relationship in entity.relationships {
                guard case .joinTable(let name, isSource: true) = relationship.storage, !kept.contains(name) else { continue }
                late.append(.dropTable(name))
            }
        }
    }

    // MARK: Tables

    private mutating func planTable(_ entity: Schema.Entity, _ oldEntity: Schema.Entity) throws {
        // Operations run after the entity renames, so they use the new
        // name; planning reads the file as it is, so it uses the old one.
        let table = entity.name
        let oldTable = oldEntity.name
        let rows = try count("SELECT count(*) FROM \(quoteIdentifier(oldTable))")
        var columns: [(name: String, source: ColumnSource)] = []
        var needsRebuild = false
        var checks: [TableOperation] = []
        var alters: [TableOperation] = []
        var used = Set<String>()
        let overrides = storage.overrides[entity.name] ?? [:]
        let oldDiscriminated = storage.oldDiscriminated.contains(oldTable)
        let newDiscriminated = storage.newDiscriminated.contains(table)
        let owners = storage.newOwners[table] ?? [:]
        let oldOwners = storage.oldOwners[oldTable] ?? [:]
        let removedSubentities = oldDiscriminated ? storage.removedSubentities[table] ?? [] : []
        try planRemovedRows(of: removedSubentities, table: table, oldTable: oldTable)
        if newDiscriminated {
            // A root that gains its first subentity: its rows are its own.
            columns.append((entityColumn, oldDiscriminated ? .column(entityColumn) : .value(.text(entity.name))))
        }
        if oldDiscriminated != newDiscriminated { needsRebuild = true }

        for attribute in entity.attributes {
            let origin = mapping.oldPropertyName(attribute.name, of: entity.name).flatMap(oldEntity.attribute(named:))
            if let override = overrides[attribute.name] {
                if let origin { used.insert(origin.name) }
                columns.append((attribute.name, override))
                needsRebuild = true
                continue
            }
            let owner = owners[attribute.name]
            if origin == nil, let owner {
                // A subentity's new attribute: its rows need a value, the others keep NULL.
                let source = try newOwnedAttribute(attribute, of: owner, oldTable: oldTable, oldDiscriminated: oldDiscriminated)
                columns.append((attribute.name, source))
                if source == .null && !attribute.isUnique {
                    alters.append(.addColumn(table: table, definition: SchemaSQL.columnDefinition(attribute)))
                } else {
                    needsRebuild = true
                }
                continue
            }
            guard let origin else {
                // A new attribute.
                let fill = try defaultValue(of: attribute, in: entity)
                if attribute.isOptional && fill == nil && !attribute.isUnique {
                    alters.append(.addColumn(table: table, definition: SchemaSQL.columnDefinition(attribute)))
                    columns.append((attribute.name, .null))
                } else if let fill {
                    columns.append((attribute.name, .value(fill)))
                    needsRebuild = true
                } else if attribute.isOptional {
                    columns.append((attribute.name, .null))
                    needsRebuild = true
                } else {
                    if rows > 0 {
                        impossibilities.append(
                            "attribute \(entity.name).\(attribute.name) is new and non-optional without a default value, and "
                                + "\(rows) row\(rows == 1 ? "" : "s") need a value; give it a default value (= …), add it "
                                + "with a migration script (addAttribute with default), or add it as optional, fill it in "
                                + "that stage's didMigrate and make it non-optional in the next version")
                    }
                    columns.append((attribute.name, .null))
                    needsRebuild = true
                }
                continue
            }
            used.insert(origin.name)
            var source = ColumnSource.column(origin.name)
            if origin.kind != attribute.kind || origin.representation != attribute.representation {
                if !Self.isWidening(from: origin, to: attribute) {
                    refusals.append(
                        "attribute \(entity.name).\(attribute.name) changes type from \(origin.typeDescription) to "
                            + "\(attribute.typeDescription), which can lose values; use a custom stage or a script "
                            + "(changeType with a conversion expression)")
                }
                if origin.kind.columnType != attribute.kind.columnType { needsRebuild = true }
            }
            if let owner, !owner.isOptional, oldOwners[origin.name]?.isOptional ?? origin.isOptional {
                if let replaced = try ownedAttributeBecomesRequired(
                    attribute, origin: origin, of: owner, oldTable: oldTable, oldDiscriminated: oldDiscriminated)
                {
                    source = replaced
                    needsRebuild = true
                }
            } else if origin.isOptional && !attribute.isOptional {
                if let fill = try defaultValue(of: attribute, in: entity) {
                    source = .coalesce(origin.name, fill)
                } else {
                    let nils = try count(
                        "SELECT count(*) FROM \(quoteIdentifier(oldTable)) WHERE \(quoteIdentifier(origin.name)) IS NULL")
                    if nils > 0 && !change.allowsDataLoss {
                        refusals.append(
                            "attribute \(entity.name).\(attribute.name) becomes non-optional without a default value, and "
                                + "\(nils) row\(nils == 1 ? "" : "s") hold nil; give it a default value (= …), fill the nils "
                                + "in a custom stage's willMigrate, or use a script's makeRequired with a backfill")
                    }
                    checks.append(.checkNotNull(table: table, column: origin.name, entity: entity.name, attribute: attribute.name))
                }
                needsRebuild = true
            } else if origin.isOptional != attribute.isOptional {
                needsRebuild = true
            }
            if attribute.isUnique && !origin.isUnique {
                checks.append(.checkUnique(table: table, columns: [origin.name], entity: entity.name, attributes: [attribute.name]))
                needsRebuild = true
            } else if attribute.isUnique != origin.isUnique {
                needsRebuild = true
            }
            if origin.name != attribute.name {
                alters.append(.renameColumn(table: table, from: origin.name, to: attribute.name))
            }
            columns.append((attribute.name, source))
        }
        for relationship in entity.relationships {
            guard case .foreignKey(let column, let orderColumn) = relationship.storage else { continue }
            let origin = mapping.oldPropertyName(relationship.name, of: entity.name).flatMap(oldEntity.relationship(named:))
            if case .foreignKey(let oldColumn, let oldOrder)? = origin?.storage {
                used.insert(oldColumn)
                columns.append((column, .column(oldColumn)))
                if oldColumn != column { alters.append(.renameColumn(table: table, from: oldColumn, to: column)) }
                if let orderColumn {
                    if let oldOrder {
                        used.insert(oldOrder)
                        columns.append((orderColumn, .column(oldOrder)))
                        if oldOrder != orderColumn {
                            alters.append(.renameColumn(table: table, from: oldOrder, to: orderColumn))
                        }
                    } else {
                        columns.append((orderColumn, .null))
                        alters.append(.addColumn(table: table, definition: "\(quoteIdentifier(orderColumn)) INTEGER"))
                    }
                } else if oldOrder != nil {
                    needsRebuild = true
                }
            } else {
                if let origin { try refuseLostLinks(of: origin, in: oldEntity, becoming: relationship, of: entity) }
                let linkedRows = try owners[relationship.name].map { try rowCount(of: $0, oldTable, oldDiscriminated) } ?? rows
                if origin == nil && !relationship.isOptional && linkedRows > 0 {
                    refusals.append(
                        "relationship \(owners[relationship.name]?.entity.name ?? entity.name).\(relationship.name) is new and "
                            + "non-optional, and \(linkedRows) row\(linkedRows == 1 ? "" : "s") would have none; make it optional, or link them in a custom stage")
                }
                columns.append((column, .null))
                alters.append(.addColumn(table: table, definition: Self.foreignKeyDefinition(column, relationship.destination)))
                if let orderColumn {
                    columns.append((orderColumn, .null))
                    alters.append(.addColumn(table: table, definition: "\(quoteIdentifier(orderColumn)) INTEGER"))
                }
            }
        }
        // Old columns nothing maps to: dropped attributes and links.
        var dropped: [String] = []
        for attribute in oldEntity.attributes where !used.contains(attribute.name) {
            dropped.append(attribute.name)
            let owner = oldOwners[attribute.name]?.entity.name
            // A removed subentity's rows are refused as a whole (planRemovedRows).
            if let owner, removedSubentities.contains(owner) { continue }
            let values = try count(
                "SELECT count(*) FROM \(quoteIdentifier(oldTable)) WHERE \(quoteIdentifier(attribute.name)) IS NOT NULL")
            if values > 0 {
                refusals.append(
                    "attribute \(owner ?? entity.name).\(attribute.name) is no longer in the schema and \(values) row\(values == 1 ? "" : "s") "
                        + "hold a value for it; \(allowHint)")
            }
        }
        for relationship in oldEntity.relationships {
            guard case .foreignKey(let column, let order) = relationship.storage else { continue }
            if !used.contains(column) { dropped.append(column) }
            if let order, !used.contains(order) { dropped.append(order) }
        }
        if !dropped.isEmpty { needsRebuild = true }
        operations += checks
        if needsRebuild {
            rebuilt.insert(entity.name)
            operations.append(
                .rebuild(
                    TableRebuild(
                        entity: entity, table: table, discriminated: newDiscriminated, columns: columns, droppedColumns: dropped,
                        rows: rows)))
        } else {
            operations += alters
        }
        if oldDiscriminated && newDiscriminated {
            for (from, to) in storage.renamedEntities[table] ?? [] {
                operations.append(.renameEntityRows(table: table, from: from, to: to))
            }
        }
        if !needsRebuild && (oldEntity.name != entity.name || alters.contains(where: \.isColumnRename)) {
            renamedTables.insert(entity.name)
        }
        // Checked after the rebuild or renames, so under the new column names,
        // and before the unique index is created at the end.
        for list in entity.uniqueConstraints where !oldHasUnique(list, entity, oldEntity) {
            operations.append(.checkUnique(table: table, columns: list, entity: entity.name, attributes: list))
        }
    }

    private func oldHasUnique(_ list: [String], _ entity: Schema.Entity, _ oldEntity: Schema.Entity) -> Bool {
        oldEntity.uniqueConstraints.contains { old in
            old.map { name in entity.attributes.first { mapping.oldPropertyName($0.name, of: entity.name) == name }?.name ?? "" }
                == list
        }
    }

    /// A relationship whose links cannot follow its new storage (a to-many
    /// that becomes a to-one): refused when links exist.
    private mutating func refuseLostLinks(
        of origin: Schema.Relationship, in oldEntity: Schema.Entity, becoming relationship: Schema.Relationship,
        of entity: Schema.Entity
    ) throws {
        guard case .joinTable(let name, _) = origin.storage else { return }
        let links = try count("SELECT count(*) FROM \(quoteIdentifier(name))")
        if links > 0 {
            refusals.append(
                "relationship \(entity.name).\(relationship.name) becomes to-one, and its \(links) link\(links == 1 ? "" : "s") "
                    + "in \(name) cannot all be kept; \(allowHint)")
        }
    }

    /// The value the app's code gives a new or newly required attribute, as
    /// a column value.
    func defaultValue(of attribute: Schema.Attribute, in entity: Schema.Entity) throws -> SQLiteValue? {
        guard let binder = entity.properties.first(where: { $0.name == attribute.name })?.defaultBinder else { return nil }
        let statement = try connection.valueStatement("SELECT ?")
        defer { statement.reset() }
        do {
            try binder(statement, 1)
        } catch {
            throw ModelStoreError.invalidValue(
                entity: entity.name, property: attribute.name, row: nil, reason: "its default value cannot be stored: \(error)",
                path: connection.path)
        }
        _ = try statement.step()
        let value = statement.value(at: 0)
        return value == .null ? nil : value
    }

    private func indexExists(_ name: String) throws -> Bool {
        let statement = try connection.prepare("SELECT count(*) FROM sqlite_schema WHERE type = 'index' AND name = ?")
        try statement.bind(name, at: 1)
        _ = try statement.step()
        return statement.int64(at: 0) > 0
    }

    func count(_ sql: String) throws -> Int {
        let statement = try connection.prepare(sql)
        _ = try statement.step()
        return Int(statement.int64(at: 0))
    }
}
