/// What `init(_$row:)` learns about an object's relationships while it reads
/// a row: which ones are faults (loaded on first access), and for to-one
/// faults, the related row's key. One reader serves a whole fetch.
final class RowRelationshipReader {
    var faults = PropertyBitSet()
    var faultKeys: [Int: Int64] = [:]
    /// The identity-map registry of an entity, by name; nil when the context
    /// has no object of it yet.
    private let registryNamed: (_ destination: String) -> RowRegistry?
    /// Rows of one fetch mostly refer to one destination: the last registry
    /// found is kept, so that each row costs a name comparison.
    private var lastRegistry: (name: String, registry: RowRegistry?)?
    /// Loads the objects of a relationship of the row `holderRowID` now
    /// (for a to-one with a column, `foreignKey` is the related row's key).
    let load:
        (_ relationship: RuntimeRelationship, _ holderRowID: Int64, _ foreignKey: Int64?) throws -> [any PersistentModel]

    init(
        registryNamed: @escaping (String) -> RowRegistry?,
        load: @escaping (RuntimeRelationship, Int64, Int64?) throws -> [any PersistentModel]
    ) {
        self.registryNamed = registryNamed
        self.load = load
    }

    /// The registered object of `destination` for a row key, if any.
    func registered(_ destination: String, _ rowID: Int64) -> (any PersistentModel)? {
        if let lastRegistry, lastRegistry.name == destination { return lastRegistry.registry?[rowID] }
        let registry = registryNamed(destination)
        // A registry that does not exist yet may appear during the fetch (a
        // nested load), so only a found one is kept.
        if registry != nil { lastRegistry = (destination, registry) }
        return registry?[rowID]
    }

    /// Hands the faults found for one object to its state, and starts afresh.
    func moveFaults(to state: ModelState) {
        // Most rows of a fetch have no faults to hand over (their to-one
        // objects are registered): then nothing is copied.
        if !faults.isEmpty {
            state.faults = faults
            faults = PropertyBitSet()
        }
        if !faultKeys.isEmpty {
            state.faultKeys = faultKeys
            faultKeys = [:]
        }
    }
}

extension PersistentRow {
    /// Reads a relationship. An optional to-one whose object is registered
    /// gets it at once; other relationships start as faults (nil or empty)
    /// and load on first access. A non-optional to-one cannot be nil, so its
    /// object is loaded now.
    ///
    /// Inlinable, so that it is specialized for the property's type in the
    /// app's module: unspecialized, building an `Optional<Value>` asked the
    /// runtime for that type's metadata on every row.
    /// - Throws: `ModelStoreError.invalidValue` when a non-optional to-one has
    ///   no related row, or the related row cannot be read.
    @inlinable
    public func value<Value: RelationshipValue>(at ordinal: Int, as type: Value.Type) throws -> Value {
        let column = try relationshipColumn(at: ordinal, isOptional: Value._isOptional)
        if let model = column.registered, let value = Value._value(holdingOne: model) { return value }
        let models = try unresolvedRelationship(
            at: ordinal, foreignKey: column.foreignKey, isOptional: Value._isOptional, isToMany: Value._isToMany)
        guard let value = Value._value(holding: models) else {
            throw invalidValue(
                ordinal, models.isEmpty ? "a non-optional relationship has no related object" : "the related object is of another type")
        }
        return value
    }

    /// The relationship's foreign key in this row, if it has a column, and
    /// the related object when it is registered.
    /// - Throws: `ModelStoreError.invalidValue` for NULL in a non-optional to-one.
    @usableFromInline
    func relationshipColumn(at ordinal: Int, isOptional: Bool) throws(ModelStoreError)
        -> (registered: (any PersistentModel)?, foreignKey: Int64?)
    {
        guard let reader = relationships, let relationship = table.relationships?.relationship(at: ordinal) else {
            throw invalidValue(ordinal, "the entity's relationships are unknown")
        }
        guard relationship.schema.foreignKeyColumn != nil else { return (nil, nil) }
        let cell = statement.cell(at: Int32(ordinal + 1))
        guard cell.storage != .null else {
            if isOptional { return (nil, nil) }
            throw invalidValue(ordinal, "a non-optional relationship has no related object")
        }
        let foreignKey = cell.int64
        return (reader.registered(relationship.schema.destination, foreignKey), foreignKey)
    }

    /// A relationship whose objects are not registered: an optional or
    /// to-many one becomes a fault and reads as empty (`[]`); a non-optional
    /// to-one is loaded now.
    /// - Throws: `ModelStoreError` when the related row cannot be read.
    @usableFromInline
    func unresolvedRelationship(at ordinal: Int, foreignKey: Int64?, isOptional: Bool, isToMany: Bool) throws
        -> [any PersistentModel]
    {
        guard let reader = relationships, let relationship = table.relationships?.relationship(at: ordinal) else {
            throw invalidValue(ordinal, "the entity's relationships are unknown")
        }
        if isOptional || isToMany {
            if foreignKey != nil || relationship.schema.foreignKeyColumn == nil {
                reader.faults.insert(ordinal)
                if let foreignKey { reader.faultKeys[ordinal] = foreignKey }
            }
            return []
        }
        return try reader.load(relationship, rowID, foreignKey)
    }
}
