/// What `init(_$row:)` learns about an object's relationships while it reads
/// a row: which ones are faults (loaded on first access), and for to-one
/// faults, the related row's key. One reader serves a whole fetch.
final class RowRelationshipReader {
    var faults = PropertyBitSet()
    var faultKeys: [Int: Int64] = [:]
    /// The registered object of `destination` for a row key, if any.
    let registered: (_ destination: String, _ rowID: Int64) -> (any PersistentModel)?
    /// Loads the objects of a relationship of the row `holderRowID` now
    /// (for a to-one with a column, `foreignKey` is the related row's key).
    let load:
        (_ relationship: RuntimeRelationship, _ holderRowID: Int64, _ foreignKey: Int64?) throws -> [any PersistentModel]

    init(
        registered: @escaping (String, Int64) -> (any PersistentModel)?,
        load: @escaping (RuntimeRelationship, Int64, Int64?) throws -> [any PersistentModel]
    ) {
        self.registered = registered
        self.load = load
    }

    /// Hands the faults found for one object to its state, and starts afresh.
    func moveFaults(to state: ModelState) {
        state.faults = faults
        state.faultKeys = faultKeys
        faults = PropertyBitSet()
        if !faultKeys.isEmpty { faultKeys = [:] }
    }
}

extension PersistentRow {
    /// Reads a relationship. An optional to-one whose object is registered
    /// gets it at once; other relationships start as faults (nil or empty)
    /// and load on first access. A non-optional to-one cannot be nil, so its
    /// object is loaded now.
    /// - Throws: `ModelStoreError.invalidValue` when a non-optional to-one has
    ///   no related row, or the related row cannot be read.
    public func value<Value: RelationshipValue>(at ordinal: Int, as type: Value.Type) throws -> Value {
        guard let reader = relationships, let relationship = table.relationships?.relationship(at: ordinal) else {
            throw invalidValue(ordinal, "the entity's relationships are unknown")
        }
        var foreignKey: Int64?
        if relationship.schema.foreignKeyColumn != nil {
            let column = Int32(ordinal + 1)
            if statement.storage(at: column) != .null {
                foreignKey = statement.int64(at: column)
            } else if !Value._isOptional {
                throw invalidValue(ordinal, "a non-optional relationship has no related object")
            }
        }
        if let foreignKey, let model = reader.registered(relationship.schema.destination, foreignKey),
            let value = Value._value(holdingOne: model)
        {
            return value
        }
        if Value._isOptional || Value._isToMany {
            if foreignKey != nil || relationship.schema.foreignKeyColumn == nil {
                reader.faults.insert(ordinal)
                if let foreignKey { reader.faultKeys[ordinal] = foreignKey }
            }
            guard let empty = Value._value(holding: []) else {
                throw invalidValue(ordinal, "the relationship's type cannot be empty")
            }
            return empty
        }
        let models = try reader.load(relationship, rowID, foreignKey)
        guard let value = Value._value(holding: models) else {
            throw invalidValue(ordinal, "a non-optional relationship has no related object")
        }
        return value
    }
}
