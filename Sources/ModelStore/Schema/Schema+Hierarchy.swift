/// Entity inheritance: a subentity (a `@Model` subclass) names its
/// superentity, and inherits its properties. These answer SwiftData's
/// `superentity` and `subentities` from the names a schema records.
extension Schema {
    /// The entity `entity` inherits from, as SwiftData's
    /// `Schema.Entity.superentity`; nil for a root entity or a name the
    /// schema does not hold.
    public func superentity(of entity: Entity) -> Entity? {
        entity.superentityName.flatMap(self.entity(named:))
    }

    /// The entities that inherit directly from `entity`, in schema order, as
    /// SwiftData's `Schema.Entity.subentities`.
    public func subentities(of entity: Entity) -> [Entity] {
        entities.filter { $0.superentityName == entity.name }
    }

    /// `entity` and every entity that inherits from it, at any depth, in
    /// schema order: what a fetch of `entity` returns objects of.
    public func entityWithSubentities(_ entity: Entity) -> [Entity] {
        entities.filter { candidate in
            var current: Entity? = candidate
            var steps = 0
            while let step = current, steps <= entities.count {
                if step.name == entity.name { return true }
                current = superentity(of: step)
                steps += 1
            }
            return false
        }
    }

    /// The root of `entity`'s hierarchy (itself for a root entity): the
    /// entity whose table holds the objects of the whole hierarchy.
    /// Nil when the superentity chain names a missing entity or loops, which
    /// `validate()` reports.
    func rootEntity(of entity: Entity) -> Entity? {
        var current = entity
        for _ in 0...entities.count {
            guard let name = current.superentityName else { return current }
            guard let next = self.entity(named: name) else { return nil }
            current = next
        }
        return nil
    }

    /// Checks the superentity names: each names another entity of the
    /// schema, without a loop, and a subentity starts with its superentity's
    /// properties, unchanged.
    /// - Throws: `ModelStoreError.invalidSchema` naming the entity.
    func validateHierarchy() throws(ModelStoreError) {
        for entity in entities {
            guard let name = entity.superentityName else { continue }
            guard let parent = self.entity(named: name) else {
                throw .invalidSchema(reason: "entity \(entity.name) inherits from \(name), which is not in the schema")
            }
            guard rootEntity(of: entity) != nil else {
                throw .invalidSchema(reason: "entity \(entity.name) inherits from itself (through \(name))")
            }
            guard entity.attributes.starts(with: parent.attributes),
                entity.relationships.starts(with: parent.relationships)
            else {
                throw .invalidSchema(
                    reason: "entity \(entity.name) does not start with the properties of its superentity \(name)")
            }
        }
    }
}
