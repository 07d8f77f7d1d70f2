extension Schema {
    /// The schema with every relationship's inverse and storage decided.
    ///
    /// - An inverse given on either side pairs the two relationships.
    /// - Without one, a relationship is paired with the destination's only
    ///   relationship back to its entity, when there is exactly one candidate
    ///   on both sides; otherwise it has no inverse.
    /// - Storage: a to-one holds a foreign-key column (with an order column
    ///   when its inverse is a to-many, so the to-many keeps its order); a
    ///   to-many whose inverse is a to-one is read through that column; two
    ///   to-ones put the column on the side whose `Entity.property` name sorts
    ///   first; a many-to-many, or a to-many without inverse, uses a join table.
    ///
    /// - Throws: `ModelStoreError.invalidSchema` naming the relationship whose
    ///   destination is missing, or whose inverse does not exist, does not
    ///   point back, or conflicts with the other side's.
    public func resolvingRelationships() throws(ModelStoreError) -> Schema {
        var resolved = self
        let pairs = try relationshipPairs()
        for (entityIndex, entity) in entities.enumerated() {
            for (relationshipIndex, relationship) in entity.relationships.enumerated()
            where relationshipIndex >= inheritedRelationshipCount(of: entity) {
                let key = RelationshipKey(entity: entity.name, name: relationship.name)
                let inverse = pairs[key].flatMap { self.relationship($0) }
                var result = relationship
                result.inverseName = pairs[key]?.name
                result.storage = Self.storage(of: relationship, in: key, inverse: inverse, inverseKey: pairs[key])
                resolved.entities[entityIndex].relationships[relationshipIndex] = result
            }
        }
        // A subentity's inherited relationships are its superentity's: the
        // same inverse and storage (one column or join table per hierarchy).
        // One pass per level of the deepest hierarchy.
        var copied = true
        var passes = 0
        while copied && passes <= entities.count {
            copied = false
            passes += 1
            for (entityIndex, entity) in entities.enumerated() where entity.superentityName != nil {
                guard let parent = entity.superentityName.flatMap(resolved.entity(named:)) else { continue }
                for (index, relationship) in parent.relationships.enumerated()
                where index < entity.relationships.count && resolved.entities[entityIndex].relationships[index] != relationship {
                    resolved.entities[entityIndex].relationships[index] = relationship
                    copied = true
                }
            }
        }
        return resolved
    }

    /// How many of `entity`'s relationships it inherits from its superentity
    /// (they come first); resolved once, on the superentity.
    private func inheritedRelationshipCount(of entity: Entity) -> Int {
        guard entity.superentityName != nil else { return 0 }
        return superentity(of: entity)?.relationships.count ?? 0
    }

    private func relationship(_ key: RelationshipKey) -> Relationship? {
        entity(named: key.entity)?.relationships.first { $0.name == key.name }
    }

    /// Every relationship's inverse, both directions.
    private func relationshipPairs() throws(ModelStoreError) -> [RelationshipKey: RelationshipKey] {
        var pairs: [RelationshipKey: RelationshipKey] = [:]
        for entity in entities {
            for relationship in entity.relationships.dropFirst(inheritedRelationshipCount(of: entity)) {
                guard let destination = self.entity(named: relationship.destination) else {
                    throw .invalidSchema(
                        reason: "\(entity.name).\(relationship.name) refers to \(relationship.destination), which is not in the schema")
                }
                guard let inverseName = relationship.inverseName else { continue }
                let key = RelationshipKey(entity: entity.name, name: relationship.name)
                guard let inverse = destination.relationships.first(where: { $0.name == inverseName }),
                    inverse.destination == entity.name
                else {
                    throw .invalidSchema(
                        reason: "the inverse of \(entity.name).\(relationship.name) is \(destination.name).\(inverseName), "
                            + "which is not a relationship to \(entity.name)")
                }
                let inverseKey = RelationshipKey(entity: destination.name, name: inverseName)
                if inverseKey == key {
                    throw .invalidSchema(reason: "\(entity.name).\(relationship.name) cannot be its own inverse")
                }
                for (one, other) in [(key, inverseKey), (inverseKey, key)] {
                    if let existing = pairs[one], existing != other {
                        throw .invalidSchema(
                            reason: "\(one) has two inverses: \(existing) and \(other); declare one inverse per relationship")
                    }
                    pairs[one] = other
                }
            }
        }
        // Inference, for relationships that no declaration paired.
        for entity in entities {
            for relationship in entity.relationships.dropFirst(inheritedRelationshipCount(of: entity)) {
                let key = RelationshipKey(entity: entity.name, name: relationship.name)
                guard pairs[key] == nil,
                    let candidate = unpairedCandidates(toward: entity.name, from: relationship.destination, excluding: key, pairs)
                        .onlyElement,
                    unpairedCandidates(toward: relationship.destination, from: entity.name, excluding: candidate, pairs)
                        .onlyElement == key
                else { continue }
                pairs[key] = candidate
                pairs[candidate] = key
            }
        }
        return pairs
    }

    /// Relationships of entity `source` that lead to `destination` and have no inverse yet.
    private func unpairedCandidates(
        toward destination: String, from source: String, excluding excluded: RelationshipKey,
        _ pairs: [RelationshipKey: RelationshipKey]
    ) -> [RelationshipKey] {
        guard let entity = entity(named: source) else { return [] }
        return entity.relationships.dropFirst(inheritedRelationshipCount(of: entity)).compactMap { relationship in
            let key = RelationshipKey(entity: source, name: relationship.name)
            guard relationship.destination == destination, key != excluded, pairs[key] == nil else { return nil }
            return key
        }
    }

    private static func storage(
        of relationship: Relationship, in key: RelationshipKey, inverse: Relationship?, inverseKey: RelationshipKey?
    ) -> Relationship.Storage {
        guard let inverse, let inverseKey else {
            return relationship.isToMany
                ? .joinTable(name: key.description, isSource: true)
                : .foreignKey(column: relationship.name, orderColumn: nil)
        }
        switch (relationship.isToMany, inverse.isToMany) {
        case (false, true):
            return .foreignKey(column: relationship.name, orderColumn: "_\(relationship.name)_order")
        case (true, false):
            return .inverseForeignKey
        case (false, false):
            return key < inverseKey ? .foreignKey(column: relationship.name, orderColumn: nil) : .inverseForeignKey
        case (true, true):
            let source = min(key, inverseKey)
            return .joinTable(name: source.description, isSource: source == key)
        }
    }
}

/// `Entity.relationship`, as a dictionary key and in messages.
struct RelationshipKey: Hashable, Comparable, CustomStringConvertible {
    let entity: String
    let name: String

    var description: String { "\(entity).\(name)" }

    static func < (lhs: RelationshipKey, rhs: RelationshipKey) -> Bool {
        (lhs.entity, lhs.name) < (rhs.entity, rhs.name)
    }
}

extension Array {
    /// The element of a one-element array; nil for any other count.
    fileprivate var onlyElement: Element? { count == 1 ? first : nil }
}
