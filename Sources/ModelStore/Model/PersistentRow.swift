/// One fetched row, read by the initializer that `@Model` generates
/// (`init(_$row:)`): column 0 is the primary key, the property with ordinal N
/// is column N + 1.
///
/// A value that does not fit its property (a NULL where the property is not
/// optional, a text in an integer column, an unknown enum case) throws an error
/// naming the entity, property, row and file.
public struct PersistentRow {
    let statement: Statement
    let table: EntityTable
    /// The row's primary key.
    public let rowID: Int64
    /// Where relationship columns are resolved and faults noted; nil for an
    /// entity without relationships.
    let relationships: RowRelationshipReader?
    /// The attributes a partial fetch did not select: they get a placeholder
    /// and become faults.
    let unfetched: PropertyBitSet
    /// Whether `unfetched` has any: read once per column, so kept as a Bool.
    private let hasUnfetched: Bool

    init(
        statement: Statement, table: EntityTable, relationships: RowRelationshipReader? = nil,
        unfetched: PropertyBitSet = PropertyBitSet()
    ) {
        self.statement = statement
        self.table = table
        self.rowID = statement.int64(at: 0)
        self.relationships = relationships
        self.unfetched = unfetched
        self.hasUnfetched = !unfetched.isEmpty
    }

    func invalidValue(_ ordinal: Int, _ reason: String) -> ModelStoreError {
        let slots = table.slots
        let property = ordinal < slots.count ? slots[ordinal].name : "#\(ordinal)"
        return .invalidValue(entity: table.name, property: property, row: rowID, reason: reason, path: statement.connection.path)
    }

    @inline(__always)
    private func read<Coder: ValueCoder>(_ coder: Coder.Type, ordinal: Int) throws(ModelStoreError) -> Coder.Value {
        if hasUnfetched, unfetched.contains(ordinal), let placeholder = Coder.placeholder { return placeholder }
        do {
            return try Coder.decode(from: statement, column: Int32(ordinal + 1))
        } catch {
            throw invalidValue(ordinal, error.reason)
        }
    }

    // The overloads below mirror `PropertyMetadata.attribute(...)`: the compiler
    // picks the coder from the property's declared type.

    /// Reads a value stored as itself.
    /// - Throws: `ModelStoreError.invalidValue`.
    public func value<Value: ColumnValue>(at ordinal: Int, as type: Value.Type) throws -> Value {
        try read(PrimitiveCoder<Value>.self, ordinal: ordinal)
    }

    /// Reads an optional value stored as itself; NULL is nil.
    /// - Throws: `ModelStoreError.invalidValue`.
    public func value<Value: ColumnValue>(at ordinal: Int, as type: Value?.Type) throws -> Value? {
        try read(OptionalPrimitiveCoder<Value>.self, ordinal: ordinal)
    }

    /// Reads a value stored as its raw value.
    /// - Throws: `ModelStoreError.invalidValue`, also when no case has the raw value.
    public func value<Value: RawRepresentable & Codable>(at ordinal: Int, as type: Value.Type) throws -> Value
    where Value.RawValue: ColumnValue {
        try read(RawValueCoder<Value>.self, ordinal: ordinal)
    }

    /// Reads an optional value stored as its raw value; NULL is nil.
    /// - Throws: `ModelStoreError.invalidValue`.
    public func value<Value: RawRepresentable & Codable>(at ordinal: Int, as type: Value?.Type) throws -> Value?
    where Value.RawValue: ColumnValue {
        try read(OptionalRawValueCoder<Value>.self, ordinal: ordinal)
    }

    /// Reads a `Codable` value stored as JSON text.
    /// - Throws: `ModelStoreError.invalidValue`, also when the JSON does not decode.
    public func value<Value: Codable>(at ordinal: Int, as type: Value.Type) throws -> Value {
        try read(JSONCoder<Value>.self, ordinal: ordinal)
    }

    /// Reads an optional `Codable` value stored as JSON text; NULL is nil.
    /// - Throws: `ModelStoreError.invalidValue`.
    public func value<Value: Codable>(at ordinal: Int, as type: Value?.Type) throws -> Value? {
        try read(OptionalJSONCoder<Value>.self, ordinal: ordinal)
    }
}
