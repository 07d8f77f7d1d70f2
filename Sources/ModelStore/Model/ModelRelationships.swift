
/// One relationship of a model class with its resolved schema (inverse,
/// storage) and typed access to both ends. A class, so that code reading a
/// row per relationship does not copy it.
final class RuntimeRelationship: Sendable {
    let ordinal: Int
    let schema: Schema.Relationship
    let accessor: any RelationshipAccessor
    let inverse: InverseEnd?
    /// Whether the relationship is a to-one stored in the holder's row (a
    /// foreign-key column). Asked for every row read; `schema`'s answer
    /// copies its storage description, names and all.
    let holdsForeignKey: Bool
    /// The ordinal of the inverse when the related rows hold it as a column
    /// (the inverse is a to-one stored in their rows, and this relationship
    /// is not): each related row's value there is the holder. Nil otherwise.
    let inverseColumnOrdinal: Int?

    init(ordinal: Int, schema: Schema.Relationship, accessor: any RelationshipAccessor, inverse: InverseEnd?) {
        self.ordinal = ordinal
        self.schema = schema
        self.accessor = accessor
        self.inverse = inverse
        holdsForeignKey = schema.foreignKeyColumn != nil
        if !holdsForeignKey, let inverse, inverse.schema.foreignKeyColumn != nil {
            inverseColumnOrdinal = inverse.ordinal
        } else {
            inverseColumnOrdinal = nil
        }
    }

    /// The other end of a relationship that has an inverse.
    struct InverseEnd: Sendable {
        let ordinal: Int
        let schema: Schema.Relationship
        let accessor: any RelationshipAccessor
    }
}

/// The relationships of one model class, resolved once per class and shared
/// by every object, in a context or not: inverse maintenance must work for
/// objects that were never inserted, so it cannot wait for a container.
final class ModelRelationships: Sendable {
    /// The relationships by ordinal; nil at an attribute's ordinal.
    let byOrdinal: [RuntimeRelationship?]
    let all: [RuntimeRelationship]

    private init(_ relationships: [RuntimeRelationship], propertyCount: Int) {
        var byOrdinal = [RuntimeRelationship?](repeating: nil, count: propertyCount)
        for relationship in relationships { byOrdinal[relationship.ordinal] = relationship }
        self.byOrdinal = byOrdinal
        self.all = relationships
    }

    func relationship(at ordinal: Int) -> RuntimeRelationship? {
        ordinal < byOrdinal.count ? byOrdinal[ordinal] : nil
    }

    private static let kept = KeptValues<ObjectIdentifier, ModelRelationships>()

    /// The relationships of `type`, resolved on first use. (Resolving reads
    /// other classes' property tables.)
    static func of(_ type: any PersistentModel.Type) -> ModelRelationships {
        kept.value(for: ObjectIdentifier(type)) { build(type) }
    }

    private static func build(_ type: any PersistentModel.Type) -> ModelRelationships {
        let properties = type._$persistentProperties
        guard properties.contains(where: { $0.relationship != nil }) else {
            return ModelRelationships([], propertyCount: properties.count)
        }
        // The schema of the class and every class it reaches holds both ends
        // of each of its relationships, which is all that resolution needs.
        let schema = Schema([type])
        let entity = schema.entity(named: type.entityName)
        var relationships: [RuntimeRelationship] = []
        for property in properties {
            guard let accessor = property.relationshipAccessor,
                let resolved = entity?.relationship(named: property.name) ?? property.relationship
            else { continue }
            var inverse: RuntimeRelationship.InverseEnd?
            if let inverseName = resolved.inverseName,
                let destinationProperty = property.destinationType?._$persistentProperties.first(where: {
                    $0.name == inverseName
                }),
                let inverseAccessor = destinationProperty.relationshipAccessor,
                let inverseSchema = schema.entity(named: resolved.destination)?.relationship(named: inverseName)
            {
                inverse = .init(ordinal: destinationProperty.ordinal, schema: inverseSchema, accessor: inverseAccessor)
            }
            relationships.append(
                RuntimeRelationship(ordinal: property.ordinal, schema: resolved, accessor: accessor, inverse: inverse))
        }
        return ModelRelationships(relationships, propertyCount: properties.count)
    }
}
