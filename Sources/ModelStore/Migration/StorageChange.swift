/// A schema change as the tables see it. A class hierarchy is one table
/// named after its root (`Schema.storageLayout()`), so the planner works on
/// the two schemas' storage layouts, where each hierarchy is one entity with
/// every member's columns; this records what the layouts alone do not say:
/// which subentity owns a column (its rows are the ones that need a value),
/// which tables have the discriminator, the rows of removed subentities and
/// the rows of renamed ones.
///
/// Invariant (checked by `hierarchyImpossibilities`): every entity that is
/// in both schemas keeps its superentity, so its rows stay in the table
/// they are in, and a column's old rows are its owner's old rows.
struct StorageChange {
    /// A column of a hierarchy's table that a subentity declares.
    struct OwnedColumn {
        /// The subentity that declares it (in the schema of the table).
        let entity: Schema.Entity
        /// Its optionality in Swift; the column itself is always nullable.
        let isOptional: Bool
        /// The old entity names of the rows that have it (the owner and its
        /// subentities at any depth, as far as they were in the old schema),
        /// for a column of the new layout; empty for one of the old layout.
        let oldRowEntities: [String]
    }

    /// The storage layouts: one entity per table.
    let old: Schema
    let new: Schema
    let oldDiscriminated: Set<String>
    let newDiscriminated: Set<String>
    /// The script's renames and overrides, by table.
    let renames: SchemaMapping.Renames
    let overrides: [String: [String: ColumnSource]]
    /// New table → property (column) name → its owner, for subentities' properties.
    let newOwners: [String: [String: OwnedColumn]]
    /// Old table → property name → its owner, for subentities' properties.
    let oldOwners: [String: [String: OwnedColumn]]
    /// New table → the old subentities no longer in the schema whose rows it holds.
    let removedSubentities: [String: [String]]
    /// New table → the entities of its hierarchy renamed (old name → new name).
    let renamedEntities: [String: [(from: String, to: String)]]
    /// Changes no permission can make, naming the entity and the reason.
    let impossibilities: [String]

    init(_ change: SchemaChange) {
        let mapping = SchemaMapping(old: change.old, new: change.new, renames: change.renames)
        (old, oldDiscriminated) = change.old.storageLayout()
        (new, newDiscriminated) = change.new.storageLayout()
        impossibilities = Self.hierarchyImpossibilities(change.old, change.new, mapping)

        var renames = SchemaMapping.Renames()
        var overrides: [String: [String: ColumnSource]] = [:]
        for (entity, origin) in change.renames.entities where change.new.entity(named: entity)?.superentityName == nil {
            renames.entities[entity] = origin
        }
        for (entity, properties) in change.renames.properties {
            renames.properties[change.new.tableName(of: entity), default: [:]].merge(properties) { first, _ in first }
        }
        for (entity, sources) in change.overrides {
            overrides[change.new.tableName(of: entity), default: [:]].merge(sources) { first, _ in first }
        }
        self.renames = renames
        self.overrides = overrides

        func oldNames(_ entity: Schema.Entity) -> [String] {
            change.new.entityWithSubentities(entity).compactMap { mapping.oldEntity(for: $0)?.name }
        }
        newOwners = Self.owners(change.new, oldNames: oldNames)
        oldOwners = Self.owners(change.old) { _ in [] }

        var removed: [String: [String]] = [:]
        for entity in mapping.removedEntities where entity.superentityName != nil {
            let oldTable = change.old.tableName(of: entity.name)
            // A whole hierarchy removed: its table is dropped instead.
            guard let table = mapping.newEntityName(forOld: oldTable) else { continue }
            removed[table, default: []].append(entity.name)
        }
        removedSubentities = removed
        var renamed: [String: [(from: String, to: String)]] = [:]
        for entity in change.new.entities {
            guard let origin = mapping.oldEntity(for: entity), origin.name != entity.name else { continue }
            renamed[change.new.tableName(of: entity.name), default: []].append((origin.name, entity.name))
        }
        renamedEntities = renamed
    }

    /// The subentities' properties of each table of `schema`, by table and property name.
    private static func owners(_ schema: Schema, oldNames: (Schema.Entity) -> [String]) -> [String: [String: OwnedColumn]] {
        var result: [String: [String: OwnedColumn]] = [:]
        for entity in schema.entities where entity.superentityName != nil {
            let parent = schema.superentity(of: entity)
            let table = schema.tableName(of: entity.name)
            let rows = oldNames(entity)
            for attribute in entity.attributes.dropFirst(parent?.attributes.count ?? 0) {
                result[table, default: [:]][attribute.name] = OwnedColumn(
                    entity: entity, isOptional: attribute.isOptional, oldRowEntities: rows)
            }
            for relationship in entity.relationships.dropFirst(parent?.relationships.count ?? 0) {
                result[table, default: [:]][relationship.name] = OwnedColumn(
                    entity: entity, isOptional: relationship.isOptional, oldRowEntities: rows)
            }
        }
        return result
    }

    /// What moving between hierarchies would take, which no migration does:
    /// an entity in both schemas whose superentity changed (its rows would
    /// move to another table, or lose or gain inherited properties that
    /// other rows of the table keep).
    private static func hierarchyImpossibilities(_ old: Schema, _ new: Schema, _ mapping: SchemaMapping) -> [String] {
        var result: [String] = []
        for entity in new.entities {
            guard let origin = mapping.oldEntity(for: entity) else { continue }
            let before = origin.superentityName.map { mapping.newEntityName(forOld: $0) ?? $0 }
            guard before != entity.superentityName else { continue }
            result.append(
                "entity \(entity.name) inherits from \(entity.superentityName ?? "no entity") instead of "
                    + "\(origin.superentityName ?? "no entity"): a migration cannot move objects to another place in a "
                    + "class hierarchy or between hierarchies; add a new entity and copy the objects in a custom stage")
        }
        return result
    }

    /// `"_entity" IN ('Car', 'Sedan')`.
    static func rowCondition(_ entities: [String]) -> String {
        "\(quoteIdentifier(entityColumn)) IN (\(entities.map(sqlStringLiteral).joined(separator: ", ")))"
    }

    /// The statements that remove the links to rows of `table` that are
    /// gone (rows of removed subentities): foreign keys that point at them
    /// become NULL, join-table rows that name them go. Run after every
    /// table has its new columns, so they use the new layout's names.
    func unlinkStatements(toRowsOf table: String) -> [String] {
        let keys = "SELECT \(quoteIdentifier(primaryKeyColumn)) FROM \(quoteIdentifier(table))"
        var statements: [String] = []
        for entity in new.entities {
            for relationship in entity.relationships {
                switch relationship.storage {
                case .foreignKey(let column, let order) where relationship.destination == table:
                    let assignments = ([column] + (order.map { [$0] } ?? [])).map { "\(quoteIdentifier($0)) = NULL" }
                    statements.append(
                        "UPDATE \(quoteIdentifier(entity.name)) SET \(assignments.joined(separator: ", ")) "
                            + "WHERE \(quoteIdentifier(column)) NOT IN (\(keys))")
                case .joinTable(let name, isSource: true):
                    if entity.name == table {
                        statements.append(
                            "DELETE FROM \(quoteIdentifier(name)) WHERE \(quoteIdentifier(JoinTableColumn.source)) NOT IN (\(keys))")
                    }
                    if relationship.destination == table {
                        statements.append(
                            "DELETE FROM \(quoteIdentifier(name)) WHERE \(quoteIdentifier(JoinTableColumn.target)) NOT IN (\(keys))")
                    }
                default:
                    continue
                }
            }
        }
        return statements
    }
}
