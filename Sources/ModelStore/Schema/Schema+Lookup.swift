extension Schema {
    /// The entities by name, as SwiftData's `Schema.entitiesByName`.
    /// - Complexity: O(*n*) in the number of entities, on each call.
    public var entitiesByName: [String: Entity] {
        Dictionary(entities.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
    }
}

extension Schema.Entity {
    /// The attributes by name, as SwiftData's `Schema.Entity.attributesByName`.
    /// - Complexity: O(*n*) in the number of attributes, on each call.
    public var attributesByName: [String: Schema.Attribute] {
        Dictionary(attributes.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// The relationships by name, as SwiftData's `Schema.Entity.relationshipsByName`.
    /// - Complexity: O(*n*) in the number of relationships, on each call.
    public var relationshipsByName: [String: Schema.Relationship] {
        Dictionary(relationships.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
    }
}
