// UNSAFE CODE, CONTAINED (see RegistrySlots.swift for the folder's rule).
//
// What it implements: the row that `@Model`'s generated `init(_$row:)`
// reads, made by a fetch for each row without a retain or an allocation.
//
// Invariants it relies on:
// 1. Lifetime. A row holds unmanaged references (statement, table, link,
//    relationship reader) and pointers (the unfetched bit set, the context's
//    hand-over slot). `make` borrows its arguments for the whole call and a
//    row is used only during the `init(_$row:)` call it is passed to, so
//    everything it points to outlives it. Nothing may keep a row: the
//    generated initializer keeps a `FetchedRow` (strong references) or
//    attaches its state, never the row.
// 2. The hand-over slot. One per context (`ModelContext.handOverSlot`), set
//    to `.nothing` before the initializer runs and read right after it; a
//    nested row (a to-one loaded by the initializer) leaves it `.nothing`,
//    and the hand-over is the initializer's last call. The context is used
//    in one isolation domain, so no other fetch writes the slot meanwhile.
// 3. `.state(Unmanaged<ModelState>)` in the slot is unretained: the object
//    being made holds its state until `make` returns it with the object.

/// One fetched row, read by the initializer that `@Model` generates
/// (`init(_$row:)`): column 0 is the primary key, the property with ordinal N
/// is column N + 1.
///
/// A value that does not fit its property (a NULL where the property is not
/// optional, a text in an integer column, an unknown enum case) throws an error
/// naming the entity, property, row and file.
///
/// Public only because the code that `@Model` generates in an app's
/// module names it; hidden from the documentation, not API.
@_documentation(visibility: internal)
public struct PersistentRow {
    // Every field is a plain pointer or integer, so that making a row, passing
    // it to the initializer and dropping it costs no retain or release: a
    // row's statement, table, reader and bit set are kept alive by the fetch
    // that reads it (`make`), and a row is valid only during the
    // `init(_$row:)` call that receives it. The references are unmanaged:
    // used through `_withUnsafeGuaranteedRef`, they are not retained either
    // (an `unowned(unsafe)` field is, per read).
    @usableFromInline let unmanagedStatement: Unmanaged<Statement>
    let unmanagedTable: Unmanaged<EntityTable>
    /// The row's primary key.
    public let rowID: Int64
    /// The row's version (see `ModelState.version`).
    let version: Int64
    /// Where relationship columns are resolved and faults noted; nil for an
    /// entity without relationships.
    let unmanagedRelationships: Unmanaged<RowRelationshipReader>?
    /// The attributes a partial fetch did not select: they get a placeholder
    /// and become faults. Nil when the fetch selected them all.
    private let unfetchedProperties: UnsafePointer<PropertyBitSet>?
    /// Whether there are unfetched attributes: read once per column.
    @usableFromInline let hasUnfetched: Bool
    /// The fetching context's link for the row's entity (see `StateLink`).
    let unmanagedLink: Unmanaged<StateLink>
    /// Where `fetchedRow()` and `attach(_:)` tell the fetch what the
    /// initializer kept.
    @usableFromInline let handOver: UnsafeMutablePointer<RowHandOver>

    private init(
        statement: Statement, rowID: Int64, version: Int64, table: EntityTable, link: StateLink,
        relationships: RowRelationshipReader?, unfetched: UnsafePointer<PropertyBitSet>?,
        handOver: UnsafeMutablePointer<RowHandOver>
    ) {
        self.unmanagedStatement = Unmanaged.passUnretained(statement)
        self.unmanagedTable = Unmanaged.passUnretained(table)
        self.rowID = rowID
        self.version = version
        self.unmanagedLink = Unmanaged.passUnretained(link)
        self.unmanagedRelationships = relationships.map { Unmanaged.passUnretained($0) }
        self.unfetchedProperties = unfetched
        self.hasUnfetched = unfetched != nil
        self.handOver = handOver
    }

    /// Makes an object from the row of `rowID`, the statement's current row
    /// (column 0, which the caller has already read to look the row up in
    /// the identity map), with `initializer`, and returns it with what the
    /// initializer kept of the row (see `RowHandOver`). The arguments stay
    /// alive until `initializer` returns, which is as long as the row may be
    /// used; an attached state, as long as the object.
    ///
    /// `handOver` is the context's slot: one per context, not per row, so
    /// that making a row allocates nothing. A nested row (a non-optional
    /// to-one loaded by the initializer) uses the same slot and leaves it
    /// empty, and the initializer's hand-over is its last call, so what the
    /// slot holds afterwards is this object's.
    @inline(__always)
    static func make<Model>(
        statement: Statement, rowID: Int64, version: Int64, table: EntityTable, link: StateLink,
        relationships: RowRelationshipReader? = nil, unfetched: PropertyBitSet = PropertyBitSet(),
        handOver: UnsafeMutablePointer<RowHandOver>, _ initializer: (PersistentRow) throws -> Model
    ) rethrows -> (model: Model, handOver: RowHandOver) {
        handOver.pointee = .nothing
        // The arguments are borrowed for the whole call, so they outlive the initializer.
        let model: Model
        if unfetched.isEmpty {
            model = try initializer(
                PersistentRow(
                    statement: statement, rowID: rowID, version: version, table: table, link: link,
                    relationships: relationships, unfetched: nil, handOver: handOver))
        } else {
            model = try withUnsafePointer(to: unfetched) { unfetched in
                try initializer(
                    PersistentRow(
                        statement: statement, rowID: rowID, version: version, table: table, link: link,
                        relationships: relationships, unfetched: unfetched, handOver: handOver))
            }
        }
        defer { handOver.pointee = .nothing }
        return (model, handOver.pointee)
    }

    /// What the object being made keeps of its row until it needs its state
    /// (see `FetchedRow`); the fetch then sets up no state unless the row
    /// left faults. `@Model`'s `init(_$row:)` stores it last.
    public func fetchedRow() -> FetchedRow {
        handOver.pointee = .fetchedRow
        return FetchedRow(link: unmanagedLink.takeUnretainedValue(), rowID: rowID, version: version)
    }

    /// Hands the state of the object being made to the fetch, which sets it
    /// up (owner, row, faults) without asking the object for it: for a model
    /// that makes its state with the object instead of keeping a
    /// `FetchedRow`. Its `init(_$row:)` calls it last.
    @inlinable
    public func attach(_ state: ModelState) {
        handOver.pointee = .state(Unmanaged.passUnretained(state))
    }

    @usableFromInline
    func invalidValue(_ ordinal: Int, _ reason: String) -> ModelStoreError {
        let slots = table.slots
        let property = ordinal < slots.count ? slots[ordinal].name : "#\(ordinal)"
        return .invalidValue(entity: table.name, property: property, row: rowID, reason: reason, path: statement.connection.path)
    }

    /// The statement whose current row this is.
    var statement: Statement { unmanagedStatement.takeUnretainedValue() }

    /// The row's entity table.
    var table: EntityTable { unmanagedTable.takeUnretainedValue() }

    /// The fetch's relationship reader; nil for an entity without relationships.
    var relationships: RowRelationshipReader? { unmanagedRelationships?.takeUnretainedValue()
    }

    // The reading functions are inlinable, so that the initializer `@Model`
    // generates in the app's module specializes them for each property's type
    // and calls the type's decoding directly: a generic function called
    // across the module boundary runs unspecialized, with a witness call and
    // metadata passed per value. They name no coder type (that would make the
    // runtime look up its metadata on every call); only partial fetches, off
    // the common path, reach the coders' placeholders.
    @inlinable @inline(__always)
    func decode<Value>(
        _ ordinal: Int, _ body: (Statement, Int32) throws(ValueCodingFailure) -> Value
    ) throws(ModelStoreError) -> Value {
        let decoded = unmanagedStatement._withUnsafeGuaranteedRef { statement in
            Result { () throws(ValueCodingFailure) in try body(statement, Int32(ordinal + 1)) }
        }
        switch decoded {
        case .success(let value): return value
        case .failure(let failure): throw invalidValue(ordinal, failure.reason)
        }
    }

    @inlinable @inline(__always)
    func isUnfetched(_ ordinal: Int) -> Bool {
        hasUnfetched && unfetchedContains(ordinal)
    }

    @usableFromInline
    func unfetchedContains(_ ordinal: Int) -> Bool { unfetchedProperties?.pointee.contains(ordinal) ?? false }

    /// The placeholder of a property a partial fetch did not select, or the
    /// stored value when its type has no placeholder (the column was selected).
    private func unfetchedValue<Coder: ValueCoder>(_ coder: Coder.Type, ordinal: Int) throws(ModelStoreError) -> Coder.Value {
        if let placeholder = Coder.placeholder { return placeholder }
        return try decode(ordinal, Coder.decode)
    }

    @usableFromInline @inline(never)
    func unfetchedPrimitive<Value: ColumnValue>(_ ordinal: Int, _ type: Value.Type) throws(ModelStoreError) -> Value {
        try unfetchedValue(PrimitiveCoder<Value>.self, ordinal: ordinal)
    }

    @usableFromInline @inline(never)
    func unfetchedOptionalPrimitive<Value: ColumnValue>(_ ordinal: Int, _ type: Value.Type) throws(ModelStoreError) -> Value? {
        try unfetchedValue(OptionalPrimitiveCoder<Value>.self, ordinal: ordinal)
    }

    @usableFromInline @inline(never)
    func unfetchedRawValue<Value: RawRepresentable & Codable>(_ ordinal: Int, _ type: Value.Type) throws(ModelStoreError) -> Value
    where Value.RawValue: ColumnValue {
        try unfetchedValue(RawValueCoder<Value>.self, ordinal: ordinal)
    }

    @usableFromInline @inline(never)
    func unfetchedOptionalRawValue<Value: RawRepresentable & Codable>(_ ordinal: Int, _ type: Value.Type) throws(ModelStoreError)
        -> Value?
    where Value.RawValue: ColumnValue {
        try unfetchedValue(OptionalRawValueCoder<Value>.self, ordinal: ordinal)
    }

    @usableFromInline @inline(never)
    func unfetchedJSON<Value: Codable>(_ ordinal: Int, _ type: Value.Type) throws(ModelStoreError) -> Value {
        try unfetchedValue(JSONCoder<Value>.self, ordinal: ordinal)
    }

    @usableFromInline @inline(never)
    func unfetchedOptionalJSON<Value: Codable>(_ ordinal: Int, _ type: Value.Type) throws(ModelStoreError) -> Value? {
        try unfetchedValue(OptionalJSONCoder<Value>.self, ordinal: ordinal)
    }

    // The overloads below mirror `PropertyMetadata.attribute(...)`: the compiler
    // picks the coding from the property's declared type.

    /// Reads a value stored as itself.
    /// - Throws: `ModelStoreError.invalidValue`.
    @inlinable
    public func value<Value: ColumnValue>(at ordinal: Int, as type: Value.Type) throws -> Value {
        if isUnfetched(ordinal) { return try unfetchedPrimitive(ordinal, Value.self) }
        return try decode(ordinal, Value._decode)
    }

    /// Reads an optional value stored as itself; NULL is nil.
    /// - Throws: `ModelStoreError.invalidValue`.
    @inlinable
    public func value<Value: ColumnValue>(at ordinal: Int, as type: Value?.Type) throws -> Value? {
        if isUnfetched(ordinal) { return try unfetchedOptionalPrimitive(ordinal, Value.self) }
        return try decode(ordinal) { statement, column throws(ValueCodingFailure) in
            statement.isNull(at: column) ? nil : try Value._decode(from: statement, column: column)
        }
    }

    /// Reads a value stored as its raw value.
    /// - Throws: `ModelStoreError.invalidValue`, also when no case has the raw value.
    @inlinable
    public func value<Value: RawRepresentable & Codable>(at ordinal: Int, as type: Value.Type) throws -> Value
    where Value.RawValue: ColumnValue {
        if isUnfetched(ordinal) { return try unfetchedRawValue(ordinal, Value.self) }
        return try decode(ordinal) { statement, column throws(ValueCodingFailure) in
            try decodeRawValue(Value.self, from: statement, column: column)
        }
    }

    /// Reads an optional value stored as its raw value; NULL is nil.
    /// - Throws: `ModelStoreError.invalidValue`.
    @inlinable
    public func value<Value: RawRepresentable & Codable>(at ordinal: Int, as type: Value?.Type) throws -> Value?
    where Value.RawValue: ColumnValue {
        if isUnfetched(ordinal) { return try unfetchedOptionalRawValue(ordinal, Value.self) }
        return try decode(ordinal) { statement, column throws(ValueCodingFailure) in
            statement.isNull(at: column) ? nil : try decodeRawValue(Value.self, from: statement, column: column)
        }
    }

    /// Reads a `Codable` value stored as JSON text.
    /// - Throws: `ModelStoreError.invalidValue`, also when the JSON does not decode.
    @inlinable
    public func value<Value: Codable>(at ordinal: Int, as type: Value.Type) throws -> Value {
        if isUnfetched(ordinal) { return try unfetchedJSON(ordinal, Value.self) }
        return try decode(ordinal) { statement, column throws(ValueCodingFailure) in
            try decodeJSON(Value.self, from: statement, column: column)
        }
    }

    /// Reads an optional `Codable` value stored as JSON text; NULL is nil.
    /// - Throws: `ModelStoreError.invalidValue`.
    @inlinable
    public func value<Value: Codable>(at ordinal: Int, as type: Value?.Type) throws -> Value? {
        if isUnfetched(ordinal) { return try unfetchedOptionalJSON(ordinal, Value.self) }
        return try decode(ordinal) { statement, column throws(ValueCodingFailure) in
            statement.isNull(at: column) ? nil : try decodeJSON(Value.self, from: statement, column: column)
        }
    }
}

/// What an object's `init(_$row:)` kept of its row, for the fetch that made it.
@usableFromInline
enum RowHandOver {
    /// Nothing: the fetch sets up the state the object has.
    case nothing
    /// The object's state, made with the object (`PersistentRow.attach`).
    case state(Unmanaged<ModelState>)
    /// A `FetchedRow`: the object has no state yet.
    case fetchedRow
}
