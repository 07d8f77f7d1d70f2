import Foundation

// An attribute with `.transformable(by:)` is stored as the `Data` its value
// transformer makes of the value (a BLOB column, kind `.data`), and read back
// through the transformer's reverse transformation. The transformer is found
// by the name the option records, so that the schema record, store-tool and
// migrations know the column as plain data without the app's code.
//
// A transformer that returns nil or something else than expected is an
// error, never a default: the caller names the entity, property and row.
// Nil is stored as NULL without calling the transformer, as in Core Data.

/// The name a transformer class is registered under for
/// `.transformable(by: SomeTransformer.self)`: its qualified name, like the
/// class name Core Data records (`MyApp.ColorTransformer`).
func transformerRegistrationName(_ type: ValueTransformer.Type) -> String {
    let name = String(reflecting: type)
    registerIfAbsent(type, name: name)
    return name
}

#if canImport(Darwin)
private func registerIfAbsent(_ type: ValueTransformer.Type, name: String) {
    let key = NSValueTransformerName(name)
    if ValueTransformer(forName: key) == nil { ValueTransformer.setValueTransformer(type.init(), forName: key) }
}

private func registeredTransformer(_ name: String) -> ValueTransformer? {
    ValueTransformer(forName: NSValueTransformerName(name))
}
#else
private func registerIfAbsent(_ type: ValueTransformer.Type, name: String) {
    _ = ValueTransformer.registered(NSValueTransformerName(name), orMake: type)
}

private func registeredTransformer(_ name: String) -> ValueTransformer? {
    ValueTransformer.registered(NSValueTransformerName(name))
}
#endif

extension Schema.Attribute.Option {
    /// The transformer this `.transformable(by:)` option names.
    /// - Throws: `ValueCodingFailure` when the option is another one, or
    ///   when no transformer is registered under the name.
    func valueTransformer() throws(ValueCodingFailure) -> (name: String, transformer: ValueTransformer) {
        guard let transformerName else {
            throw ValueCodingFailure("the option \(self) is not .transformable(by:)")
        }
        guard let transformer = registeredTransformer(transformerName) else {
            throw ValueCodingFailure(
                "no value transformer is registered under the name '\(transformerName)' "
                    + "(register one with ValueTransformer.setValueTransformer(_:forName:))")
        }
        return (transformerName, transformer)
    }
}

/// The data `option`'s transformer makes of `value` (not nil).
/// - Throws: `ValueCodingFailure` when there is no such transformer, or when
///   it returns nil or anything but `Data`.
func transformedData<Value>(_ value: Value, by option: Schema.Attribute.Option) throws(ValueCodingFailure) -> Data {
    let (name, transformer) = try option.valueTransformer()
    guard let result = transformer.transformedValue(value) else {
        throw ValueCodingFailure("the value transformer '\(name)' returned nil for a \(Value.self) value")
    }
    guard let data = result as? Data else {
        throw ValueCodingFailure("the value transformer '\(name)' returned a \(type(of: result)), not Data")
    }
    return data
}

/// The value `option`'s transformer makes of stored `data`.
/// - Throws: `ValueCodingFailure` when there is no such transformer, when it
///   does not allow reverse transformation, or when it returns nil or
///   anything but a `Value`.
func reverseTransformed<Value>(
    _ data: Data, as type: Value.Type, by option: Schema.Attribute.Option
) throws(ValueCodingFailure) -> Value {
    let (name, transformer) = try option.valueTransformer()
    guard Swift.type(of: transformer).allowsReverseTransformation() else {
        throw ValueCodingFailure("the value transformer '\(name)' does not allow reverse transformation")
    }
    guard let result = transformer.reverseTransformedValue(data) else {
        throw ValueCodingFailure("the value transformer '\(name)' returned nil for the stored data")
    }
    guard let value = result as? Value else {
        throw ValueCodingFailure("the value transformer '\(name)' returned a \(Swift.type(of: result)), not a \(Value.self)")
    }
    return value
}

/// Reads a transformed value from a column: a BLOB, given to the reverse
/// transformation.
/// - Throws: `ValueCodingFailure` when the column is not a BLOB (or NULL),
///   or as `reverseTransformed(_:as:by:)`.
func decodeTransformed<Value>(
    _ type: Value.Type, by option: Schema.Attribute.Option, from statement: Statement, column: Int32
) throws(ValueCodingFailure) -> Value {
    let data = try Data._decode(from: statement, column: column)
    return try reverseTransformed(data, as: Value.self, by: option)
}

/// Reads an optional transformed value: NULL is nil, without the transformer.
/// - Throws: as `decodeTransformed(_:by:from:column:)`.
func decodeOptionalTransformed<Value>(
    _ type: Value.Type, by option: Schema.Attribute.Option, from statement: Statement, column: Int32
) throws(ValueCodingFailure) -> Value? {
    statement.isNull(at: column) ? nil : try decodeTransformed(Value.self, by: option, from: statement, column: column)
}

extension Statement {
    // Called by the `_$bindValue` that `@Model` generates for a property
    // with `.transformable(by:)`; `option` is that option, as written.

    /// Binds a value as the data its transformer makes of it.
    /// - Throws: `ValueCodingFailure` when the transformer is missing or
    ///   fails; `SQLiteError`.
    public func bindValue<Value>(
        _ value: Value, as type: Value.Type, at index: Int32, transformedBy option: Schema.Attribute.Option
    ) throws {
        try bind(try transformedData(value, by: option), at: index)
    }

    /// Binds an optional value as the data its transformer makes of it;
    /// nil binds NULL without calling the transformer.
    /// - Throws: `ValueCodingFailure` when the transformer is missing or
    ///   fails; `SQLiteError`.
    public func bindValue<Value>(
        _ value: Value?, as type: Value?.Type, at index: Int32, transformedBy option: Schema.Attribute.Option
    ) throws {
        guard let value else { return try bindNull(at: index) }
        try bind(try transformedData(value, by: option), at: index)
    }
}
