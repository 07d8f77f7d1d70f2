// The typed read of a transformed attribute lives with `PersistentRow` in the
// Model layer; the transformer calls it makes are the schema layer's
// (Schema/Values/TransformedValues.swift).

extension PersistentRow {
    // Called by the `init(_$row:)` that `@Model` generates for a property
    // with `.transformable(by:)`. Such a property has no placeholder, so a
    // partial fetch always selects its column (see `PropertyMetadata`).

    /// Reads a value stored through a value transformer.
    /// - Throws: `ModelStoreError.invalidValue` when the column is not data,
    ///   or the transformer is missing or fails.
    public func value<Value>(at ordinal: Int, as type: Value.Type, transformedBy option: Schema.Attribute.Option) throws
        -> Value
    {
        try decode(ordinal) { statement, column throws(ValueCodingFailure) in
            try decodeTransformed(Value.self, by: option, from: statement, column: column)
        }
    }

    /// Reads an optional value stored through a value transformer; NULL is nil.
    /// - Throws: `ModelStoreError.invalidValue`.
    public func value<Value>(at ordinal: Int, as type: Value?.Type, transformedBy option: Schema.Attribute.Option) throws
        -> Value?
    {
        try decode(ordinal) { statement, column throws(ValueCodingFailure) in
            try decodeOptionalTransformed(Value.self, by: option, from: statement, column: column)
        }
    }
}
