/// How the entities and properties of an older schema correspond to those of
/// a newer one: by name, or through an `originalName` (or an explicit rename
/// of a migration script) when the name changed.
package struct SchemaMapping {
    /// Explicit renames that a migration script states, on top of `originalName`.
    package struct Renames {
        /// New entity name → old entity name.
        package var entities: [String: String] = [:]
        /// New entity name → (new property name → old property name).
        package var properties: [String: [String: String]] = [:]

        package init() {}
    }

    let old: Schema
    let new: Schema
    /// New entity name → old entity name, for every new entity that existed before.
    private(set) var entityOrigins: [String: String] = [:]
    /// New entity name → (new property name → old property name), for
    /// attributes and relationships that existed before.
    private(set) var propertyOrigins: [String: [String: String]] = [:]

    init(old: Schema, new: Schema, renames: Renames = Renames()) {
        self.old = old
        self.new = new
        let newNames = Set(new.entities.map(\.name))
        var claimed = Set<String>()
        // Entities that keep their name come first, so that a rename never
        // takes an entity that is still there.
        for entity in new.entities where old.entity(named: entity.name) != nil && renames.entities[entity.name] == nil {
            entityOrigins[entity.name] = entity.name
            claimed.insert(entity.name)
        }
        for entity in new.entities where entityOrigins[entity.name] == nil {
            guard let origin = renames.entities[entity.name] ?? entity.originalName,
                old.entity(named: origin) != nil, !claimed.contains(origin),
                renames.entities[entity.name] != nil || !newNames.contains(origin)
            else { continue }
            entityOrigins[entity.name] = origin
            claimed.insert(origin)
        }
        for entity in new.entities {
            guard let origin = entityOrigins[entity.name], let oldEntity = old.entity(named: origin) else { continue }
            propertyOrigins[entity.name] = Self.matchProperties(
                entity, oldEntity, renames: renames.properties[entity.name] ?? [:])
        }
    }

    private static func matchProperties(
        _ entity: Schema.Entity, _ oldEntity: Schema.Entity, renames: [String: String]
    ) -> [String: String] {
        let oldNames = Set(oldEntity.attributes.map(\.name) + oldEntity.relationships.map(\.name))
        let newItems: [(name: String, originalName: String?, isAttribute: Bool)] =
            entity.attributes.map { ($0.name, $0.originalName, true) }
            + entity.relationships.map { ($0.name, $0.originalName, false) }
        let newNames = Set(newItems.map(\.name))
        var result: [String: String] = [:]
        var claimed = Set<String>()
        func kindMatches(_ oldName: String, _ isAttribute: Bool) -> Bool {
            isAttribute ? oldEntity.attribute(named: oldName) != nil : oldEntity.relationship(named: oldName) != nil
        }
        for item in newItems where renames[item.name] == nil && oldNames.contains(item.name) && kindMatches(item.name, item.isAttribute) {
            result[item.name] = item.name
            claimed.insert(item.name)
        }
        for item in newItems where result[item.name] == nil {
            guard let origin = renames[item.name] ?? item.originalName, oldNames.contains(origin),
                !claimed.contains(origin), kindMatches(origin, item.isAttribute),
                renames[item.name] != nil || !newNames.contains(origin)
            else { continue }
            result[item.name] = origin
            claimed.insert(origin)
        }
        return result
    }

    /// The old entity a new entity comes from, if any.
    func oldEntity(for entity: Schema.Entity) -> Schema.Entity? {
        entityOrigins[entity.name].flatMap(old.entity(named:))
    }

    /// The name a property of new entity `entity` had in the old schema.
    func oldPropertyName(_ property: String, of entity: String) -> String? {
        propertyOrigins[entity]?[property]
    }

    /// The old entities that no new entity comes from.
    var removedEntities: [Schema.Entity] {
        let origins = Set(entityOrigins.values)
        return old.entities.filter { !origins.contains($0.name) }
    }

    /// The new name of an old entity, if it is still in the schema.
    func newEntityName(forOld name: String) -> String? {
        entityOrigins.first { $0.value == name }?.key
    }
}
