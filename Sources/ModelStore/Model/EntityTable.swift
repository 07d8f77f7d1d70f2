/// An entity together with the SQL that reads and writes its table, built
/// once per container and shared by every context and object of the entity.
package final class EntityTable: Sendable {
    package let entity: Schema.Entity
    /// The identifier of the store the table is in, part of every object's
    /// `PersistentIdentifier`.
    let storeIdentifier: String
    /// The path of that store, for errors (a container of several
    /// configurations has one store per configuration).
    let storePath: String
    /// False when that store is read-only (`allowsSave: false`).
    let storeAllowsSave: Bool
    /// The properties by ordinal.
    package let slots: [Schema.PropertySlot]
    /// The ordinals of the properties that have a column in this table
    /// (attributes and foreign keys), ascending.
    package let columnOrdinals: [Int]
    /// The model class's relationships; nil when the entity was not built from a class.
    let relationships: ModelRelationships?
    /// Those of them declared with `forwardsChanges: true`.
    let forwardingRelationships: [RuntimeRelationship]
    /// The to-many ones, whose links a save writes apart from the row.
    let toManyRelationships: [RuntimeRelationship]
    /// The to-many ones with a minimum or maximum count, which a save checks.
    let countLimitedRelationships: [RuntimeRelationship]
    /// How SELECTs that make objects read the row version: the column, or
    /// 0 for a read-only store of format 2, which has none.
    let versionSelect: VersionSelect
    /// `SELECT _pk, a, b, …, _version FROM "Entity"` (no WHERE): column N + 1
    /// is the property with ordinal N, NULL for a relationship without a
    /// column here; the row version is the last column (`versionColumn`).
    package var selectSQL: String { sqlText.select }
    /// Selects one row by primary key.
    package var selectByKeySQL: String { sqlText.selectByKey }
    /// Inserts every column. For an entity with unique attributes it is an
    /// upsert that returns the row's key: a conflicting row is updated
    /// instead, as SwiftData does for `.unique`.
    package var insertSQL: String { sqlText.insert }
    /// True when `insertSQL` returns the row's key (an upsert). Otherwise the
    /// key is `sqlite3_last_insert_rowid`: RETURNING makes SQLite collect the
    /// returned rows in a temporary table, which costs more than the insert.
    package let insertReturnsKey: Bool
    package var countSQL: String { sqlText.count }
    /// The texts above, made on first use: opening a store makes a table per
    /// entity, and building every table's SQL then cost more than the rest
    /// of making the tables, for entities that a run of the app may never
    /// read or write. Behind a lock: contexts on several threads share the
    /// table. Each text is read when a statement is prepared, not per row.
    private let lazySQLText = Locked<SQLText?>(nil)
    /// The SQL table: the entity's own, or its hierarchy root's.
    package let tableName: String
    /// Where the entity is in a class hierarchy; nil outside one.
    let hierarchy: HierarchyMembership?
    /// The entities whose rows a SELECT of this table returns, in schema
    /// order, when there are several (a superentity's fetch): each row's
    /// class is then read from `entityColumnIndex`. Empty otherwise.
    let polymorphicEntities: [String]
    /// The column of `selectSQL` (and every SELECT that makes objects) that
    /// holds the row's entity name; meaningful when `polymorphicEntities`
    /// is not empty.
    let entityColumnIndex: Int32
    /// The column of `selectSQL` (and of every SELECT that makes objects)
    /// that holds the row version: after the property columns, which for a
    /// superentity cover every subentity's ordinals.
    let versionColumn: Int32

    package var name: String { entity.name }
    /// The first column after those a SELECT that makes objects reads (the
    /// version, and a hierarchy's entity column).
    var firstExtraColumn: Int32 { hierarchy == nil ? versionColumn + 1 : entityColumnIndex + 1 }
    /// True when rows of several entities come out of this table's SELECTs.
    var isPolymorphic: Bool { !polymorphicEntities.isEmpty }
    /// The key of the identity map this table's objects are in: one per
    /// class hierarchy, so that a row fetched as any of its classes is one object.
    var registryKey: ObjectIdentifier { hierarchy.map { ObjectIdentifier($0.key) } ?? ObjectIdentifier(self) }
    /// Stored, not derived from `entity`: the save asks once per object and
    /// per bound column.
    let hasRelationships: Bool

    init(
        entity: Schema.Entity, storeIdentifier: String, storePath: String, storeAllowsSave: Bool,
        versionSelect: VersionSelect = .column, hierarchy: HierarchyMembership? = nil
    ) {
        self.hierarchy = hierarchy
        tableName = hierarchy?.tableName ?? entity.name
        polymorphicEntities = (hierarchy?.members.count ?? 0) > 1 ? hierarchy?.members.map(\.name) ?? [] : []
        // `Entity.slots` is computed: read it once.
        let slots = entity.slots
        let width = hierarchy?.members.map(\.slots.count).max() ?? slots.count
        versionColumn = Int32(width + 1)
        entityColumnIndex = Int32(width + 2)
        self.entity = entity
        self.versionSelect = versionSelect
        self.storeIdentifier = storeIdentifier
        self.storePath = storePath
        self.storeAllowsSave = storeAllowsSave
        self.slots = slots
        let columnOrdinals = slots.indices.filter { slots[$0].column != nil }
        self.columnOrdinals = columnOrdinals
        let relationships = entity.persistentModelType.map(ModelRelationships.of)
        self.relationships = relationships
        forwardingRelationships = relationships?.all.filter(\.schema.forwardsChanges) ?? []
        let toMany = relationships?.all.filter(\.schema.isToMany) ?? []
        toManyRelationships = toMany
        countLimitedRelationships = toMany.filter {
            $0.schema.countLimits.minimum != nil || $0.schema.countLimits.maximum != nil
        }
        hasRelationships = !entity.relationships.isEmpty
        insertReturnsKey = entity.hasUniqueness || hierarchy?.rootHasUniqueness == true
    }

    private var sqlText: SQLText {
        lazySQLText.withLock { text in
            if let text { return text }
            let made = SQLText(self)
            text = made
            return made
        }
    }

    /// The columns of a SELECT that makes this entity's objects, for a
    /// table aliased `qualifier` (see `SchemaSQL.selectColumns`); for a
    /// superentity they cover every subentity's ordinals, and the row's
    /// entity follows the version (`entityColumnIndex`).
    /// The column of `selectColumns` (and `selectSQL`) that holds the
    /// foreign key of `relationship`, one of this entity's to-ones stored in
    /// its row: column ordinal + 1. Nil when the relationship is nil or has
    /// no column here, or the entity is in a class hierarchy (whose SELECTs
    /// lay out every member's columns).
    func selectColumn(ofForeignKey relationship: RuntimeRelationship.InverseEnd?) -> Int32? {
        guard hierarchy == nil, let relationship, let column = relationship.schema.foreignKeyColumn,
            slots.indices.contains(relationship.ordinal), slots[relationship.ordinal].column == column
        else { return nil }
        return Int32(relationship.ordinal + 1)
    }

    func selectColumns(qualifier: String?, omitting: PropertyBitSet = PropertyBitSet(), version: VersionSelect? = nil) -> String {
        hierarchy?.selectColumns(qualifier: qualifier, omitting: omitting, version: version)
            ?? SchemaSQL.selectColumns(slots, qualifier: qualifier, omitting: omitting, version: version)
    }

    /// The condition that keeps a SELECT of the hierarchy's table to this
    /// entity's rows and its subentities'; nil when every row is one (a
    /// table without hierarchy, or its root).
    func rowCondition(qualifier: String?) -> String? {
        hierarchy?.condition(qualifier: qualifier)
    }

    /// `UPDATE "Entity" SET a = ?, c = ?, _version = _version + 1 WHERE _pk = ?`
    /// for the given ordinals (which must have columns), in ascending order.
    /// One statement shape per set of changed properties. With
    /// `checksVersion`, `AND _version = ?` follows: the save's optimistic
    /// lock (no row changed: somebody else wrote or deleted it). Without
    /// `bumpsVersion` (a dynamic edit completing a row it inserted in the
    /// same transaction), the version stays.
    package func updateSQL<Ordinals: Sequence<Int>>(ordinals: Ordinals, checksVersion: Bool = false, bumpsVersion: Bool = true) -> String {
        let version = quoteIdentifier(rowVersionColumn)
        let assignments = ordinals.compactMap { slots[$0].column }.map { "\(quoteIdentifier($0)) = ?" }
            + (bumpsVersion ? ["\(version) = \(version) + 1"] : [])
        return "UPDATE \(quoteIdentifier(tableName)) SET \(assignments.joined(separator: ", ")) WHERE \(quoteIdentifier(primaryKeyColumn)) = ?"
            + (checksVersion ? " AND \(version) = ?" : "")
    }

    /// The column ordinals among `ordinals`.
    func columnOrdinals(in ordinals: PropertyBitSet) -> PropertyBitSet {
        var result = PropertyBitSet()
        for ordinal in ordinals where ordinal < slots.count && slots[ordinal].column != nil { result.insert(ordinal) }
        return result
    }
}

/// The SQL text of an entity's table that `EntityTable` makes on first use.
private struct SQLText: Sendable {
    let select: String
    let selectByKey: String
    let insert: String
    let count: String

    init(_ entityTable: EntityTable) {
        let entity = entityTable.entity
        let hierarchy = entityTable.hierarchy
        let slots = entityTable.slots
        let table = quoteIdentifier(entityTable.tableName)
        let key = quoteIdentifier(primaryKeyColumn)
        let filter = hierarchy?.condition(qualifier: nil)
        let selectColumns =
            hierarchy?.selectColumns(qualifier: nil, omitting: PropertyBitSet(), version: entityTable.versionSelect)
            ?? SchemaSQL.selectColumns(slots, qualifier: nil, version: entityTable.versionSelect)
        select = "SELECT \(selectColumns) FROM \(table)" + (filter.map { " WHERE \($0)" } ?? "")
        selectByKey = "\(select) \(filter == nil ? "WHERE" : "AND") \(key) = ?"
        var columns = entityTable.columnOrdinals.compactMap { slots[$0].column }.map(quoteIdentifier)
        var values = Array(repeating: "?", count: columns.count)
        if let hierarchy {
            // Constant per entity: the discriminator is part of the
            // statement, not bound.
            columns.append(quoteIdentifier(entityColumn))
            values.append(sqlStringLiteral(hierarchy.entityName))
        }
        // Named, not left to the column's DEFAULT 1 (see initialRowVersion).
        columns.append(quoteIdentifier(rowVersionColumn))
        values.append(String(initialRowVersion))
        var insert = "INSERT INTO \(table) (\(columns.joined(separator: ", "))) VALUES (\(values.joined(separator: ", ")))"
        if entityTable.insertReturnsKey {
            // The conflict target may be omitted on the last ON CONFLICT clause
            // (SQLite 3.35+): any unique column that conflicts turns the insert
            // into an update of that row, whose key RETURNING gives.
            // Attributes only: the links of the existing row are kept, so that
            // an upsert never detaches the row's related objects. The row's
            // version goes up as on any update, and past initialRowVersion
            // even from a row inserted at 1; it is returned, so that the save
            // knows the version it wrote (initialRowVersion: the row is new).
            let version = quoteIdentifier(rowVersionColumn)
            let assignments = (entity.attributes.map { quoteIdentifier($0.name) }.map { "\($0) = excluded.\($0)" }
                + ["\(version) = max(\(version) + 1, \(initialRowVersion + 1))"]).joined(separator: ", ")
            insert += " ON CONFLICT DO UPDATE SET \(assignments) RETURNING \(key), \(version)"
        }
        self.insert = insert
        count = "SELECT count(*) FROM \(table)" + (filter.map { " WHERE \($0)" } ?? "")
    }
}
