import CSQLite

/// What `init(_$row:)` learns about an object's relationships while it reads
/// a row: which ones are faults (loaded on first access), and for to-one
/// faults, the related row's key. One reader serves a whole fetch.
final class RowRelationshipReader {
    // Read and written for every row of a fetch. Unchecked exclusivity, as
    // in `ModelState`: a reader is confined to its context's isolation
    // domain and no access to these spans a call, and the runtime's check
    // (two calls per access) cost more than the work on them.
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    var faults = PropertyBitSet()
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    var faultKeys: OrdinalMap<Int64> = OrdinalMap()
    /// The identity-map registry of an entity, by name; nil when the context
    /// has no object of it yet.
    private let registryNamed: (_ destination: String) -> RowRegistry?
    /// Rows of one fetch mostly refer to one relationship's destination: the
    /// last registry found is kept with the relationship's ordinal, so that
    /// each row costs an integer comparison (a name comparison copied the
    /// name and the registry, with a retain and release of each).
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    private var lastOrdinal = -1
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    private var lastRegistry: RowRegistry?
    /// The last object found, with its key: rows of one fetch often refer
    /// to one object in a run (children ordered by parent), and then the
    /// registry is not probed again. Held strongly while the reader lives
    /// (one fetch), so it stays the row's registered object meanwhile.
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    private var lastKey: Int64 = 0
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    private var lastModel: (any PersistentModel)?
    /// The object that the rows read next name through relationship
    /// `expectedOrdinal`, when the caller knows it (see `expect`).
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    private var expectedOrdinal = -1
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    private var expectedKey: Int64 = 0
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    private var expectedModel: (any PersistentModel)?
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

    /// The registered object at the other end of `relationship` (one of the
    /// reader's table) for a row key, if any.
    func registered(_ relationship: RuntimeRelationship, _ rowID: Int64) -> (any PersistentModel)? {
        if relationship.ordinal == expectedOrdinal, rowID == expectedKey, let expectedModel { return expectedModel }
        if relationship.ordinal == lastOrdinal, let lastRegistry {
            if rowID == lastKey, let lastModel { return lastModel }
            return remember(lastRegistry[rowID], rowID)
        }
        let registry = registryNamed(relationship.schema.destination)
        // A registry that does not exist yet may appear during the fetch (a
        // nested load), so only a found one is kept.
        guard let registry else { return nil }
        lastOrdinal = relationship.ordinal
        lastRegistry = registry
        return remember(registry[rowID], rowID)
    }

    /// Notes that the rows read next, until the next call, name `model`, the
    /// registered object of row `rowID`, through relationship `ordinal`,
    /// which must be a column of the reader's table: the caller's query
    /// selects rows whose column holds `rowID` (a fault's rows of one holder,
    /// a prefetch's run of rows of one holder key). A row whose column holds
    /// that key then links to `model` without a probe of the identity map: a
    /// prefetch knows the holder its rows belong to, and a probe of a large
    /// identity map per holder missed the cache twice.
    func expect(_ model: any PersistentModel, rowID: Int64, through ordinal: Int) {
        expectedOrdinal = ordinal
        expectedKey = rowID
        expectedModel = model
    }

    /// The key and the object `expect` named for relationship `ordinal`, if it
    /// named one for it.
    func expected(through ordinal: Int) -> (key: Int64, model: any PersistentModel)? {
        guard ordinal == expectedOrdinal, let expectedModel else { return nil }
        return (expectedKey, expectedModel)
    }

    /// Keeps a found object as the last one. Absence is not kept: the row's
    /// object may be registered later in the fetch (a nested load).
    private func remember(_ model: (any PersistentModel)?, _ rowID: Int64) -> (any PersistentModel)? {
        lastKey = rowID
        lastModel = model
        return model
    }

    /// Whether the row read last left faults to hand over (`moveFaults`).
    var hasFaults: Bool { !faults.isEmpty || !faultKeys.isEmpty }

    /// Hands the faults found for one object to its state, and starts afresh.
    func moveFaults(to state: ModelState) {
        // Most rows of a fetch have no faults to hand over (their to-one
        // objects are registered): then nothing is copied.
        if !faults.isEmpty {
            state.faults = faults
            faults = PropertyBitSet()
        }
        if !faultKeys.isEmpty {
            state.makeExtras().faultKeys = faultKeys
            faultKeys = OrdinalMap()
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
        // The table and reader are used through guaranteed references: a
        // strong copy of each (and its release) cost four atomic operations
        // per row.
        let column: RelationshipColumn = unmanagedTable._withUnsafeGuaranteedRef { table in
            guard let reader = unmanagedRelationships else { return .unknown }
            // A prefetch's or a fault's rows name their holder: known without
            // looking the relationship up (a retain and release) or probing
            // the identity map (see `expect`). The column is still read and
            // compared: the query selects rows by the index, and in a damaged
            // file a row can hold another key than its index entry says.
            if let (key, model) = reader._withUnsafeGuaranteedRef({ $0.expected(through: ordinal) }) {
                let cell = unmanagedStatement._withUnsafeGuaranteedRef { $0.cell(at: Int32(ordinal + 1)) }
                guard cell.typeCode != SQLITE_NULL else { return .null }
                if cell.int64 == key { return .key(key, registered: model) }
            }
            guard let relationship = table.relationships?.relationship(at: ordinal) else { return .unknown }
            guard relationship.holdsForeignKey else { return .noColumn }
            let cell = unmanagedStatement._withUnsafeGuaranteedRef { $0.cell(at: Int32(ordinal + 1)) }
            guard cell.typeCode != SQLITE_NULL else { return .null }
            let foreignKey = cell.int64
            return .key(foreignKey, registered: reader._withUnsafeGuaranteedRef { $0.registered(relationship, foreignKey) })
        }
        switch column {
        case .unknown: throw invalidValue(ordinal, "the entity's relationships are unknown")
        case .noColumn: return (nil, nil)
        case .null:
            if isOptional { return (nil, nil) }
            throw invalidValue(ordinal, "a non-optional relationship has no related object")
        case .key(let foreignKey, let registered): return (registered, foreignKey)
        }
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
            if foreignKey != nil || !relationship.holdsForeignKey {
                reader.faults.insert(ordinal)
                if let foreignKey { reader.faultKeys[ordinal] = foreignKey }
            }
            return []
        }
        return try reader.load(relationship, rowID, foreignKey)
    }
}

/// What a row's relationship column holds; see `PersistentRow.relationshipColumn`.
private enum RelationshipColumn {
    /// The entity's relationships are not known.
    case unknown
    /// The relationship has no column in this row's table.
    case noColumn
    case null
    case key(Int64, registered: (any PersistentModel)?)
}
