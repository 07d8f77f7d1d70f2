extension Schema {
    /// Prefix of ModelStore's own tables; no entity may use it.
    static let reservedTablePrefix = "_modelstore"

    /// Checks that the schema can be stored: entity and property names are
    /// unique, non-empty, and do not collide with ModelStore's own tables and
    /// columns or SQLite's.
    /// - Throws: `ModelStoreError.invalidSchema` naming the entity and property.
    public func validate() throws(ModelStoreError) {
        var entityNames = Set<String>()
        for entity in entities {
            let lowered = entity.name.lowercased()
            if entity.name.isEmpty {
                throw .invalidSchema(reason: "an entity has an empty name")
            }
            if lowered.hasPrefix(Schema.reservedTablePrefix) || lowered.hasPrefix("sqlite_") {
                throw .invalidSchema(reason: "entity name \(entity.name) is reserved (it starts with _modelstore or sqlite_)")
            }
            guard entityNames.insert(lowered).inserted else {
                throw .invalidSchema(reason: "two entities are named \(entity.name) (names are compared without case, as SQLite does)")
            }
            var propertyNames = Set<String>()
            for attribute in entity.attributes {
                if attribute.name.lowercased() == primaryKeyColumn {
                    throw .invalidSchema(reason: "\(entity.name).\(attribute.name) uses the name of the primary key column \(primaryKeyColumn)")
                }
                guard propertyNames.insert(attribute.name.lowercased()).inserted else {
                    throw .invalidSchema(reason: "\(entity.name) has two properties named \(attribute.name)")
                }
            }
        }
    }
}
