/// An entity together with the SQL that reads and writes its table, built
/// once per container and shared by every context and object of the entity.
final class EntityTable: Sendable {
    let entity: Schema.Entity
    /// The identifier of the store the table is in, part of every object's
    /// `PersistentIdentifier`.
    let storeIdentifier: String
    /// The path of that store, for errors (a container of several
    /// configurations has one store per configuration).
    let storePath: String
    /// False when that store is read-only (`allowsSave: false`).
    let storeAllowsSave: Bool
    /// The properties by ordinal.
    let slots: [Schema.PropertySlot]
    /// The ordinals of the properties that have a column in this table
    /// (attributes and foreign keys), ascending.
    let columnOrdinals: [Int]
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
    let selectSQL: String
    /// Selects one row by primary key.
    let selectByKeySQL: String
    /// Inserts every column. For an entity with unique attributes it is an
    /// upsert that returns the row's key: a conflicting row is updated
    /// instead, as SwiftData does for `.unique`.
    let insertSQL: String
    /// True when `insertSQL` returns the row's key (an upsert). Otherwise the
    /// key is `sqlite3_last_insert_rowid`: RETURNING makes SQLite collect the
    /// returned rows in a temporary table, which costs more than the insert.
    let insertReturnsKey: Bool
    let countSQL: String

    var name: String { entity.name }
    /// Stored, not derived from `entity`: the save asks once per object and
    /// per bound column.
    let hasRelationships: Bool

    /// The column of `selectSQL` (and of every SELECT that makes objects)
    /// that holds the row version.
    var versionColumn: Int32 { Int32(slots.count + 1) }

    init(
        entity: Schema.Entity, storeIdentifier: String, storePath: String, storeAllowsSave: Bool,
        versionSelect: VersionSelect = .column
    ) {
        self.entity = entity
        self.versionSelect = versionSelect
        self.storeIdentifier = storeIdentifier
        self.storePath = storePath
        self.storeAllowsSave = storeAllowsSave
        let slots = entity.slots
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
        let table = quoteIdentifier(entity.name)
        let key = quoteIdentifier(primaryKeyColumn)
        selectSQL = "SELECT \(SchemaSQL.selectColumns(slots, qualifier: nil, version: versionSelect)) FROM \(table)"
        selectByKeySQL = "\(selectSQL) WHERE \(key) = ?"
        let columns = columnOrdinals.compactMap { slots[$0].column }.map(quoteIdentifier)
        var insert: String
        if columns.isEmpty {
            insert = "INSERT INTO \(table) DEFAULT VALUES"
        } else {
            let placeholders = Array(repeating: "?", count: columns.count).joined(separator: ", ")
            insert = "INSERT INTO \(table) (\(columns.joined(separator: ", "))) VALUES (\(placeholders))"
        }
        insertReturnsKey = entity.hasUniqueness
        if insertReturnsKey {
            // The conflict target may be omitted on the last ON CONFLICT clause
            // (SQLite 3.35+): any unique column that conflicts turns the insert
            // into an update of that row, whose key RETURNING gives.
            // Attributes only: the links of the existing row are kept, so that
            // an upsert never detaches the row's related objects. The row's
            // version goes up as on any update; it is returned, so that the
            // save knows the version it wrote (1: the row is new).
            let version = quoteIdentifier(rowVersionColumn)
            let assignments = (entity.attributes.map { quoteIdentifier($0.name) }.map { "\($0) = excluded.\($0)" }
                + ["\(version) = \(version) + 1"]).joined(separator: ", ")
            insert += " ON CONFLICT DO UPDATE SET \(assignments) RETURNING \(key), \(version)"
        }
        insertSQL = insert
        countSQL = "SELECT count(*) FROM \(table)"
    }

    /// `UPDATE "Entity" SET a = ?, c = ?, _version = _version + 1 WHERE _pk = ?`
    /// for the given ordinals (which must have columns), in ascending order.
    /// One statement shape per set of changed properties. With
    /// `checksVersion`, `AND _version = ?` follows: the save's optimistic
    /// lock (no row changed: somebody else wrote or deleted it). Without
    /// `bumpsVersion` (a dynamic edit completing a row it inserted in the
    /// same transaction), the version stays.
    func updateSQL<Ordinals: Sequence<Int>>(ordinals: Ordinals, checksVersion: Bool = false, bumpsVersion: Bool = true) -> String {
        let version = quoteIdentifier(rowVersionColumn)
        let assignments = ordinals.compactMap { slots[$0].column }.map { "\(quoteIdentifier($0)) = ?" }
            + (bumpsVersion ? ["\(version) = \(version) + 1"] : [])
        return "UPDATE \(quoteIdentifier(entity.name)) SET \(assignments.joined(separator: ", ")) WHERE \(quoteIdentifier(primaryKeyColumn)) = ?"
            + (checksVersion ? " AND \(version) = ?" : "")
    }

    /// The column ordinals among `ordinals`.
    func columnOrdinals(in ordinals: PropertyBitSet) -> PropertyBitSet {
        var result = PropertyBitSet()
        for ordinal in ordinals where ordinal < slots.count && slots[ordinal].column != nil { result.insert(ordinal) }
        return result
    }
}
