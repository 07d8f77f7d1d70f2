extension Statement {
    // The overloads below mirror `PersistentRow.value(at:as:)`: the code that
    // `@Model` generates (`_$bindValue`) passes each property's declared type,
    // and the compiler picks the coder. Called only by the save pipeline. They
    // name no coder type: see `decodeRawValue` for why.

    /// Binds a value stored as itself.
    /// - Throws: `ValueCodingFailure` when the value cannot be stored; `SQLiteError`.
    public func bindValue<Value: ColumnValue>(_ value: Value, as type: Value.Type, at index: Int32) throws {
        try value._encode(into: self, at: index)
    }

    /// Binds an optional value stored as itself; nil binds NULL.
    /// - Throws: `ValueCodingFailure`; `SQLiteError`.
    public func bindValue<Value: ColumnValue>(_ value: Value?, as type: Value?.Type, at index: Int32) throws {
        guard let value else { return try bindNull(at: index) }
        try value._encode(into: self, at: index)
    }

    // `Int` and `Int?` spelled out, for the reason given at
    // `PersistentRow.value(at:as:)`'s: the generic functions called Int's
    // `_encode` through the witness table.

    /// Binds an `Int`.
    /// - Throws: `SQLiteError`.
    public func bindValue(_ value: Int, as type: Int.Type, at index: Int32) throws {
        try bind(Int64(value), at: index)
    }

    /// Binds an optional `Int`; nil binds NULL.
    /// - Throws: `SQLiteError`.
    public func bindValue(_ value: Int?, as type: Int?.Type, at index: Int32) throws {
        guard let value else { return try bindNull(at: index) }
        try bind(Int64(value), at: index)
    }

    /// Binds a value stored as its raw value.
    /// - Throws: `ValueCodingFailure`; `SQLiteError`.
    public func bindValue<Value: RawRepresentable & Codable>(_ value: Value, as type: Value.Type, at index: Int32) throws
    where Value.RawValue: ColumnValue {
        try value.rawValue._encode(into: self, at: index)
    }

    /// Binds an optional value stored as its raw value; nil binds NULL.
    /// - Throws: `ValueCodingFailure`; `SQLiteError`.
    public func bindValue<Value: RawRepresentable & Codable>(_ value: Value?, as type: Value?.Type, at index: Int32) throws
    where Value.RawValue: ColumnValue {
        guard let value else { return try bindNull(at: index) }
        try value.rawValue._encode(into: self, at: index)
    }

    /// Binds a `Codable` value as JSON text.
    /// - Throws: `ValueCodingFailure` when the value does not encode; `SQLiteError`.
    public func bindValue<Value: Codable>(_ value: Value, as type: Value.Type, at index: Int32) throws {
        try encodeJSON(value, into: self, at: index)
    }

    /// Binds an optional `Codable` value as JSON text; nil binds NULL.
    /// - Throws: `ValueCodingFailure`; `SQLiteError`.
    public func bindValue<Value: Codable>(_ value: Value?, as type: Value?.Type, at index: Int32) throws {
        guard let value else { return try bindNull(at: index) }
        try encodeJSON(value, into: self, at: index)
    }
}
