/// One stored property of a model class, as the `@Model` macro describes it:
/// its name, ordinal, key path, schema attribute, and typed access to its value.
///
/// The macro generates a table of these per model (`_$persistentProperties`).
/// The schema is built from it; the accessor reads and writes the property
/// through its key path for work done property by property (rollback,
/// upsert). Saving and fetching go through the generated `_$bindValue` and
/// `init(_$row:)` instead, which touch the backing fields directly.
///
/// `@unchecked Sendable` because of the key paths: a key path is an immutable
/// value once formed, and the standard library does not yet mark the generic
/// key path classes `Sendable`.
public struct PropertyMetadata: @unchecked Sendable {
    /// The property's name.
    public let name: String
    /// Its index among the model's stored properties: the dirty bit and the
    /// column position.
    public let ordinal: Int
    /// The key path of the property on its model class.
    public let keyPath: AnyKeyPath
    /// The attribute recorded in the schema.
    public let attribute: Schema.Attribute
    let accessor: any PropertyAccessor

    private init<Model: AnyObject, Coder: ValueCoder>(
        name: String, keyPath: ReferenceWritableKeyPath<Model, Coder.Value>, coder: Coder.Type, ordinal: Int,
        options: [Schema.Attribute.Option], originalName: String?
    ) {
        self.name = name
        self.ordinal = ordinal
        self.keyPath = keyPath
        self.attribute = Schema.Attribute(
            name: name, kind: Coder.kind, representation: Coder.representation, swiftType: Coder.swiftTypeName,
            isOptional: Coder.isOptional, options: options, originalName: originalName)
        self.accessor = KeyPathAccessor<Model, Coder>(keyPath: keyPath)
    }

    // The overloads below let the compiler choose how a property's type is
    // stored; see `ValueCoder`.

    /// Describes a property whose type is stored as itself.
    public static func attribute<Model: AnyObject, Value: ColumnValue>(
        name: String, keyPath: ReferenceWritableKeyPath<Model, Value>, type: Value.Type, ordinal: Int,
        options: [Schema.Attribute.Option], originalName: String?
    ) -> PropertyMetadata {
        PropertyMetadata(
            name: name, keyPath: keyPath, coder: PrimitiveCoder<Value>.self, ordinal: ordinal, options: options,
            originalName: originalName)
    }

    /// Describes an optional property whose type is stored as itself.
    public static func attribute<Model: AnyObject, Value: ColumnValue>(
        name: String, keyPath: ReferenceWritableKeyPath<Model, Value?>, type: Value?.Type, ordinal: Int,
        options: [Schema.Attribute.Option], originalName: String?
    ) -> PropertyMetadata {
        PropertyMetadata(
            name: name, keyPath: keyPath, coder: OptionalPrimitiveCoder<Value>.self, ordinal: ordinal,
            options: options, originalName: originalName)
    }

    /// Describes a property stored as its raw value (an enum).
    public static func attribute<Model: AnyObject, Value: RawRepresentable & Codable>(
        name: String, keyPath: ReferenceWritableKeyPath<Model, Value>, type: Value.Type, ordinal: Int,
        options: [Schema.Attribute.Option], originalName: String?
    ) -> PropertyMetadata where Value.RawValue: ColumnValue {
        PropertyMetadata(
            name: name, keyPath: keyPath, coder: RawValueCoder<Value>.self, ordinal: ordinal, options: options,
            originalName: originalName)
    }

    /// Describes an optional property stored as its raw value.
    public static func attribute<Model: AnyObject, Value: RawRepresentable & Codable>(
        name: String, keyPath: ReferenceWritableKeyPath<Model, Value?>, type: Value?.Type, ordinal: Int,
        options: [Schema.Attribute.Option], originalName: String?
    ) -> PropertyMetadata where Value.RawValue: ColumnValue {
        PropertyMetadata(
            name: name, keyPath: keyPath, coder: OptionalRawValueCoder<Value>.self, ordinal: ordinal,
            options: options, originalName: originalName)
    }

    /// Describes a `Codable` property stored as JSON text.
    public static func attribute<Model: AnyObject, Value: Codable>(
        name: String, keyPath: ReferenceWritableKeyPath<Model, Value>, type: Value.Type, ordinal: Int,
        options: [Schema.Attribute.Option], originalName: String?
    ) -> PropertyMetadata {
        PropertyMetadata(
            name: name, keyPath: keyPath, coder: JSONCoder<Value>.self, ordinal: ordinal, options: options,
            originalName: originalName)
    }

    /// Describes an optional `Codable` property stored as JSON text, nil as NULL.
    public static func attribute<Model: AnyObject, Value: Codable>(
        name: String, keyPath: ReferenceWritableKeyPath<Model, Value?>, type: Value?.Type, ordinal: Int,
        options: [Schema.Attribute.Option], originalName: String?
    ) -> PropertyMetadata {
        PropertyMetadata(
            name: name, keyPath: keyPath, coder: OptionalJSONCoder<Value>.self, ordinal: ordinal,
            options: options, originalName: originalName)
    }
}

/// Typed access to one property of a model object, behind a type-erased face
/// so that one table can hold the properties of any types. The save and fetch
/// paths use the code `@Model` generates instead; this serves the operations
/// that work property by property on values of any type (rollback, upsert).
protocol PropertyAccessor: Sendable {
    /// The property's current value, boxed.
    func value(of model: AnyObject) -> Any
    /// Sets the property through its setter (so observers hear of it).
    /// Returns false when `value` is not of the property's type.
    func setValue(_ value: Any, of model: AnyObject) -> Bool
}

/// `@unchecked Sendable`: it holds only an immutable key path (see `PropertyMetadata`).
struct KeyPathAccessor<Model: AnyObject, Coder: ValueCoder>: PropertyAccessor, @unchecked Sendable {
    let keyPath: ReferenceWritableKeyPath<Model, Coder.Value>

    // Accessors are looked up through the model's own entity, so the object
    // is always a `Model`; unsafeDowncast checks that in debug builds without
    // paying for a dynamic cast on every value in release builds.
    @inline(__always)
    private func typed(_ model: AnyObject) -> Model {
        unsafeDowncast(model, to: Model.self)
    }

    func value(of model: AnyObject) -> Any {
        typed(model)[keyPath: keyPath]
    }

    func setValue(_ value: Any, of model: AnyObject) -> Bool {
        guard let value = value as? Coder.Value else { return false }
        typed(model)[keyPath: keyPath] = value
        return true
    }
}
