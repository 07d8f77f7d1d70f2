/// The object model's side of a relationship property, which the schema
/// layer's `PropertyMetadata` holds without knowing its types
/// (`PropertyMetadata.typedRelationship`).
///
/// `@unchecked Sendable` because of the metatype, which the compiler does not
/// see as `Sendable` (a model class need not be `SendableMetatype`): a
/// metatype is an immutable reference to the class's metadata, and the
/// accessor is `Sendable`.
struct TypedRelationship: @unchecked Sendable {
    /// Typed access to the related objects.
    let accessor: any RelationshipAccessor
    /// The model class the relationship leads to.
    let destinationType: any PersistentModel.Type
}

extension PropertyMetadata {
    /// Typed access to the related objects; nil for an attribute.
    var relationshipAccessor: (any RelationshipAccessor)? { typedRelationshipIfAny?.accessor }
    /// The model class a relationship leads to; nil for an attribute.
    var destinationType: (any PersistentModel.Type)? { typedRelationshipIfAny?.destinationType }

    // Only the initializer below sets `typedRelationship`, always to a
    // `TypedRelationship`, so the cast fails only for an attribute's nil.
    private var typedRelationshipIfAny: TypedRelationship? {
        guard let typedRelationship else { return nil }
        let typed = typedRelationship as? TypedRelationship
        assert(typed != nil, "PropertyMetadata \(name): typedRelationship is not a TypedRelationship")
        return typed
    }

    init<Model: PersistentModel, Value: RelationshipValue>(
        name: String, keyPath: ReferenceWritableKeyPath<Model, Value>, ordinal: Int,
        deleteRule: Schema.Relationship.DeleteRule, inverse: AnyKeyPath?, minimumModelCount: Int?,
        maximumModelCount: Int?, originalName: String?, forwardsChanges: Bool
    ) {
        self.name = name
        self.ordinal = ordinal
        self.keyPath = keyPath
        self.attribute = nil
        self.relationship = Schema.Relationship(
            name: name, destination: Value._destinationType.entityName, isToMany: Value._isToMany,
            isOptional: Value._isOptional || Value._isToMany, deleteRule: deleteRule,
            minimumModelCount: minimumModelCount, maximumModelCount: maximumModelCount, originalName: originalName,
            forwardsChanges: forwardsChanges)
        self.inverseKeyPath = inverse
        self.accessor = KeyPathAccessor<Model, Value>(keyPath: keyPath)
        self.typedRelationship = TypedRelationship(
            accessor: KeyPathRelationshipAccessor<Model, Value>(keyPath: keyPath, ordinal: ordinal),
            destinationType: Value._destinationType)
        self.readUnfetched = nil
        self.defaultBinder = nil
        self.storedValueCoding = nil
    }

    /// Describes a relationship declared without `@Relationship`: nullify,
    /// inverse inferred.
    public static func attribute<Model: PersistentModel, Value: RelationshipValue>(
        name: String, keyPath: ReferenceWritableKeyPath<Model, Value>, type: Value.Type, ordinal: Int,
        options: [Schema.Attribute.Option], originalName: String?, defaultValue: (() -> Value)? = nil,
        defaultKind: DefaultKind? = nil
    ) -> PropertyMetadata {
        PropertyMetadata(
            name: name, keyPath: keyPath, ordinal: ordinal, deleteRule: .nullify, inverse: nil, minimumModelCount: nil,
            maximumModelCount: nil, originalName: originalName, forwardsChanges: false)
    }

    /// Describes a relationship declared with `@Relationship`.
    public static func relationship<Model: PersistentModel, Value: RelationshipValue>(
        name: String, keyPath: ReferenceWritableKeyPath<Model, Value>, type: Value.Type, ordinal: Int,
        options: [Schema.Relationship.Option], deleteRule: Schema.Relationship.DeleteRule, minimumModelCount: Int?,
        maximumModelCount: Int?, originalName: String?, inverse: AnyKeyPath?, forwardsChanges: Bool
    ) -> PropertyMetadata {
        PropertyMetadata(
            name: name, keyPath: keyPath, ordinal: ordinal, deleteRule: deleteRule, inverse: inverse,
            minimumModelCount: minimumModelCount, maximumModelCount: maximumModelCount, originalName: originalName,
            forwardsChanges: forwardsChanges)
    }
}
