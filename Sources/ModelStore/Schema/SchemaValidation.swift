extension Schema {
    /// Prefix of ModelStore's own tables; no entity may use it.
    static let reservedTablePrefix = "_modelstore"

    /// Checks that the schema can be stored: entity and property names are
    /// unique, non-empty, and do not collide with ModelStore's own tables and
    /// columns or SQLite's.
    /// - Throws: `ModelStoreError.invalidSchema` naming the entity and property.
    public func validate() throws(ModelStoreError) {
        var entityNames = DistinctNames()
        for entity in entities {
            let lowered = entity.name.lowercased()
            if entity.name.isEmpty {
                throw .invalidSchema(reason: "an entity has an empty name")
            }
            if lowered.hasPrefix(Schema.reservedTablePrefix) || lowered.hasPrefix("sqlite_") {
                throw .invalidSchema(reason: "entity name \(entity.name) is reserved (it starts with _modelstore or sqlite_)")
            }
            guard entityNames.insert(lowered) else {
                throw .invalidSchema(reason: "two entities are named \(entity.name) (names are compared without case, as SQLite does)")
            }
            var columnNames = DistinctNames([primaryKeyColumn, rowVersionColumn, entityColumn])
            for name in entity.attributes.map(\.name) + entity.relationships.map(\.name) {
                let lowered = name.lowercased()
                if lowered == primaryKeyColumn {
                    throw .invalidSchema(reason: "\(entity.name).\(name) uses the name of the primary key column \(primaryKeyColumn)")
                }
                if lowered == rowVersionColumn {
                    throw .invalidSchema(reason: "\(entity.name).\(name) uses the name of the row version column \(rowVersionColumn)")
                }
                if lowered == entityColumn {
                    throw .invalidSchema(
                        reason: "\(entity.name).\(name) uses the name of the column \(entityColumn) that holds the entity "
                            + "of each row of a class hierarchy's table")
                }
                guard columnNames.insert(lowered) else {
                    throw .invalidSchema(reason: "\(entity.name) has two properties named \(name)")
                }
            }
        }
        try validateHierarchy()
        try validateHierarchyColumns()
        for entity in entities {
            for (kind, lists) in [("#Unique", entity.uniqueConstraints), ("#Index", entity.indexes)] {
                for names in lists {
                    if names.isEmpty { throw .invalidSchema(reason: "a \(kind) of \(entity.name) names no attribute") }
                    for name in names where entity.attribute(named: name) == nil {
                        throw .invalidSchema(
                            reason: "\(kind) of \(entity.name) names \(name), which is not a stored attribute of \(entity.name)")
                    }
                }
            }
        }
        let resolved = try resolvingRelationships()
        for entity in resolved.entities {
            let orderColumns = entity.relationships.compactMap { relationship -> (Schema.Relationship, String)? in
                guard case .foreignKey(_, let orderColumn?) = relationship.storage else { return nil }
                return (relationship, orderColumn)
            }
            guard !orderColumns.isEmpty else { continue }
            let names = Set((entity.attributes.map(\.name) + entity.relationships.map(\.name)).map { $0.lowercased() })
            for (relationship, orderColumn) in orderColumns {
                if names.contains(orderColumn.lowercased()) {
                    throw .invalidSchema(
                        reason: "\(entity.name).\(orderColumn) is the name of the column that keeps the order of "
                            + "\(relationship.destination).\(relationship.inverseName ?? "?"); rename the property")
                }
            }
        }
    }
}

/// Names seen so far, for finding a repeat: searched one by one while they
/// are few (an entity's properties, a small schema's entities), which costs
/// less than hashing each name, and hashed once there are more.
private struct DistinctNames {
    private static let searchedCount = 16
    private var few: [String]
    private var many: Set<String>?

    init(_ names: [String] = []) {
        few = names
    }

    /// Adds `name`; false when it was there already.
    mutating func insert(_ name: String) -> Bool {
        if let inserted = many?.insert(name).inserted { return inserted }
        if few.contains(name) { return false }
        few.append(name)
        if few.count > DistinctNames.searchedCount {
            many = Set(few)
            few = []
        }
        return true
    }
}
