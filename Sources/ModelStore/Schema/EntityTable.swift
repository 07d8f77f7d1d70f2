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
    /// `SELECT _pk, a, b, … FROM "Entity"` (no WHERE): column N + 1 is the
    /// property with ordinal N, NULL for a relationship without a column here.
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

    init(entity: Schema.Entity, storeIdentifier: String, storePath: String, storeAllowsSave: Bool) {
        self.entity = entity
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
        selectSQL = "SELECT \(SchemaSQL.selectColumns(slots, qualifier: nil)) FROM \(table)"
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
            // an upsert never detaches the row's related objects.
            let assignments = entity.attributes.map { quoteIdentifier($0.name) }
                .map { "\($0) = excluded.\($0)" }.joined(separator: ", ")
            insert += " ON CONFLICT DO UPDATE SET \(assignments) RETURNING \(key)"
        }
        insertSQL = insert
        countSQL = "SELECT count(*) FROM \(table)"
    }

    /// `UPDATE "Entity" SET a = ?, c = ? WHERE _pk = ?` for the given ordinals
    /// (which must have columns), in ascending order. One statement shape per
    /// set of changed properties.
    func updateSQL<Ordinals: Sequence<Int>>(ordinals: Ordinals) -> String {
        let assignments = ordinals.compactMap { slots[$0].column }.map { "\(quoteIdentifier($0)) = ?" }
        return "UPDATE \(quoteIdentifier(entity.name)) SET \(assignments.joined(separator: ", ")) WHERE \(quoteIdentifier(primaryKeyColumn)) = ?"
    }

    /// The column ordinals among `ordinals`.
    func columnOrdinals(in ordinals: PropertyBitSet) -> PropertyBitSet {
        var result = PropertyBitSet()
        for ordinal in ordinals where ordinal < slots.count && slots[ordinal].column != nil { result.insert(ordinal) }
        return result
    }
}
