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
///
/// Public only because the code that `@Model` generates in an app's
/// module names it; hidden from the documentation, not API.
@_documentation(visibility: internal)
public struct PropertyMetadata: @unchecked Sendable {
    /// The property's name.
    public let name: String
    /// Its index among the model's stored properties: the dirty bit and the
    /// column position.
    public let ordinal: Int
    /// The key path of the property on its model class; for an inherited
    /// property, rooted at the subclass (see `_$rerooting`).
    public internal(set) var keyPath: AnyKeyPath
    /// The attribute recorded in the schema; nil for a relationship.
    public let attribute: Schema.Attribute?
    /// The relationship recorded in the schema (inverse and storage not yet
    /// resolved); nil for an attribute.
    public let relationship: Schema.Relationship?
    /// The inverse given in `@Relationship(inverse:)`, if any.
    let inverseKeyPath: AnyKeyPath?
    let accessor: any PropertyAccessor
    /// For a relationship, its `TypedRelationship` (typed access to the
    /// related objects, and the model class they are): nil for an attribute.
    /// Opaque here because those types are the object model's, a layer above
    /// the schema; read it as `relationshipAccessor` and `destinationType`
    /// (Model/PropertyMetadata+Relationships.swift).
    let typedRelationship: (any Sendable)?
    /// Reads the attribute's value from a column, for a property that a
    /// partial fetch left unread (a fault); nil for a relationship, and for
    /// an attribute whose type has no placeholder (which is always read).
    let readUnfetched: (@Sendable (Statement, Int32) throws -> Any)?
    /// Binds the property's declared initial value (`var status = .planned`)
    /// as its column value; nil when the declaration has none. Migrations use
    /// it to fill a new or newly required column.
    let defaultBinder: ((Statement, Int32) throws -> Void)?
    /// Reads an attribute's stored value from a column, and binds a value
    /// of the attribute's type as its column value: what resolving a save
    /// conflict needs to take the store's values and to tell which
    /// properties the store changed. Nil for a relationship.
    let storedValueCoding: StoredValueCoding?

    private init<Model: AnyObject, Coder: ValueCoder>(
        name: String, keyPath: KeyPath<Model, Coder.Value>, coder: Coder.Type, ordinal: Int,
        options: [Schema.Attribute.Option], originalName: String?, defaultValue: (() -> Coder.Value)?,
        defaultKind: DefaultKind?
    ) {
        self.defaultBinder = defaultValue.map { value in { statement, index in try Coder.encode(value(), into: statement, at: index) } }
        self.storedValueCoding = StoredValueCoding(
            read: { statement, column in try Coder.decode(from: statement, column: column) as Any },
            bind: { value, statement, index in
                guard let value = value as? Coder.Value else { throw ValueCodingFailure("not a \(Coder.swiftTypeName)") }
                try Coder.encode(value, into: statement, at: index)
            })
        self.name = name
        self.ordinal = ordinal
        self.keyPath = keyPath
        // Only a constant initial value is recorded: `Date()` would record
        // the moment the schema was built.
        let isConstant: Bool =
            switch defaultKind {
            case .literal?: true
            case .member?: Coder.representation == .rawValue
            case nil: false
            }
        self.attribute = Schema.Attribute(
            name: name, kind: Coder.kind, representation: Coder.representation, swiftType: Coder.swiftTypeName,
            isOptional: Coder.isOptional, options: options, originalName: originalName, enumCases: Coder.enumCases,
            defaultValue: isConstant ? defaultValue.flatMap { Coder.recordText($0()) } : nil,
            codableShape: Coder.codableShape)
        self.accessor = KeyPathAccessor<Model, Coder.Value>(keyPath: keyPath)
        self.relationship = nil
        self.inverseKeyPath = nil
        self.typedRelationship = nil
        if Coder.placeholder == nil {
            self.readUnfetched = nil
        } else {
            self.readUnfetched = { statement, column in try Coder.decode(from: statement, column: column) as Any }
        }
    }

    /// What kind of expression a property's initial value is, as `@Model`
    /// sees it: it decides whether the schema record may hold the value.
    public enum DefaultKind: Sendable {
        /// A literal, or an array or dictionary of literals: the same value
        /// every time (`3`, `"x"`, `true`, `[]`).
        case literal
        /// A member without arguments (`.planned`, `Status.planned`):
        /// recorded only for a type stored as its raw value (an enum case);
        /// for other types it may be computed (`.now`).
        case member
    }

    // The overloads below let the compiler choose how a property's type is
    // stored; see `ValueCoder`.

    /// Describes a property whose type is stored as itself.
    public static func attribute<Model: AnyObject, Value: ColumnValue>(
        name: String, keyPath: KeyPath<Model, Value>, type: Value.Type, ordinal: Int,
        options: [Schema.Attribute.Option], originalName: String?, defaultValue: (() -> Value)? = nil,
        defaultKind: DefaultKind? = nil
    ) -> PropertyMetadata {
        PropertyMetadata(
            name: name, keyPath: keyPath, coder: PrimitiveCoder<Value>.self, ordinal: ordinal, options: options,
            originalName: originalName, defaultValue: defaultValue, defaultKind: defaultKind)
    }

    /// Describes an optional property whose type is stored as itself.
    public static func attribute<Model: AnyObject, Value: ColumnValue>(
        name: String, keyPath: KeyPath<Model, Value?>, type: Value?.Type, ordinal: Int,
        options: [Schema.Attribute.Option], originalName: String?, defaultValue: (() -> Value?)? = nil,
        defaultKind: DefaultKind? = nil
    ) -> PropertyMetadata {
        PropertyMetadata(
            name: name, keyPath: keyPath, coder: OptionalPrimitiveCoder<Value>.self, ordinal: ordinal,
            options: options, originalName: originalName, defaultValue: defaultValue, defaultKind: defaultKind)
    }

    /// Describes a property stored as its raw value (an enum).
    public static func attribute<Model: AnyObject, Value: RawRepresentable & Codable>(
        name: String, keyPath: KeyPath<Model, Value>, type: Value.Type, ordinal: Int,
        options: [Schema.Attribute.Option], originalName: String?, defaultValue: (() -> Value)? = nil,
        defaultKind: DefaultKind? = nil
    ) -> PropertyMetadata where Value.RawValue: ColumnValue {
        PropertyMetadata(
            name: name, keyPath: keyPath, coder: RawValueCoder<Value>.self, ordinal: ordinal, options: options,
            originalName: originalName, defaultValue: defaultValue, defaultKind: defaultKind)
    }

    /// Describes an optional property stored as its raw value.
    public static func attribute<Model: AnyObject, Value: RawRepresentable & Codable>(
        name: String, keyPath: KeyPath<Model, Value?>, type: Value?.Type, ordinal: Int,
        options: [Schema.Attribute.Option], originalName: String?, defaultValue: (() -> Value?)? = nil,
        defaultKind: DefaultKind? = nil
    ) -> PropertyMetadata where Value.RawValue: ColumnValue {
        PropertyMetadata(
            name: name, keyPath: keyPath, coder: OptionalRawValueCoder<Value>.self, ordinal: ordinal,
            options: options, originalName: originalName, defaultValue: defaultValue, defaultKind: defaultKind)
    }

    /// Describes a `Codable` property stored as JSON text.
    public static func attribute<Model: AnyObject, Value: Codable>(
        name: String, keyPath: KeyPath<Model, Value>, type: Value.Type, ordinal: Int,
        options: [Schema.Attribute.Option], originalName: String?, defaultValue: (() -> Value)? = nil,
        defaultKind: DefaultKind? = nil
    ) -> PropertyMetadata {
        PropertyMetadata(
            name: name, keyPath: keyPath, coder: JSONCoder<Value>.self, ordinal: ordinal, options: options,
            originalName: originalName, defaultValue: defaultValue, defaultKind: defaultKind)
    }

    /// Describes an optional `Codable` property stored as JSON text, nil as NULL.
    public static func attribute<Model: AnyObject, Value: Codable>(
        name: String, keyPath: KeyPath<Model, Value?>, type: Value?.Type, ordinal: Int,
        options: [Schema.Attribute.Option], originalName: String?, defaultValue: (() -> Value?)? = nil,
        defaultKind: DefaultKind? = nil
    ) -> PropertyMetadata {
        PropertyMetadata(
            name: name, keyPath: keyPath, coder: OptionalJSONCoder<Value>.self, ordinal: ordinal,
            options: options, originalName: originalName, defaultValue: defaultValue, defaultKind: defaultKind)
    }
}

/// Typed access to one property of a model object, behind a type-erased face
/// so that one table can hold the properties of any types. The save and fetch
/// paths use the code `@Model` generates instead; this serves the operations
/// that work property by property on values of any type (rollback, upsert).
protocol PropertyAccessor: Sendable {
    /// The property's current value, boxed.
    func value(of model: AnyObject) -> Any
    /// Sets the property through its setter (so observers hear of it); does
    /// nothing for a persisted `let`, which keeps the value `init` gave it.
    /// Returns false when `value` is not of the property's type.
    func setValue(_ value: Any, of model: AnyObject) -> Bool
}

/// `@unchecked Sendable`: it holds only immutable key paths (see `PropertyMetadata`).
struct KeyPathAccessor<Model: AnyObject, Value>: PropertyAccessor, @unchecked Sendable {
    let keyPath: KeyPath<Model, Value>
    /// Nil for a persisted `let`, which nothing sets after `init`.
    let writableKeyPath: ReferenceWritableKeyPath<Model, Value>?

    init(keyPath: KeyPath<Model, Value>) {
        self.keyPath = keyPath
        self.writableKeyPath = keyPath as? ReferenceWritableKeyPath<Model, Value>
    }

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
        guard let value = value as? Value else { return false }
        guard let writableKeyPath else { return true }
        typed(model)[keyPath: writableKeyPath] = value
        return true
    }
}

/// An attribute's column value read as the property's type, and bound from it.
struct StoredValueCoding: Sendable {
    let read: @Sendable (Statement, Int32) throws -> Any
    let bind: @Sendable (Any, Statement, Int32) throws -> Void
}
