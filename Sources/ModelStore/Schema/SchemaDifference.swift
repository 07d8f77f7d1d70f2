/// One way in which two schemas differ, as found by `Schema.differences(from:)`.
///
/// Opening a store whose recorded schema differs from the app's lists these in
/// its error; the migration engine plans its steps from them.
public enum SchemaDifference: Hashable, Sendable, CustomStringConvertible {
    case entityAdded(String)
    case entityRemoved(String)
    case attributeAdded(entity: String, attribute: String)
    case attributeRemoved(entity: String, attribute: String)
    case attributeTypeChanged(entity: String, attribute: String, from: String, to: String)
    case attributeOptionalityChanged(entity: String, attribute: String, isOptional: Bool)
    case attributeUniquenessChanged(entity: String, attribute: String, isUnique: Bool)
    case relationshipAdded(entity: String, relationship: String)
    case relationshipRemoved(entity: String, relationship: String)
    /// A relationship's destination, cardinality, inverse or storage changed (the
    /// things the tables depend on; a delete rule is behaviour, not layout).
    case relationshipChanged(entity: String, relationship: String, change: String)

    public var description: String {
        switch self {
        case .entityAdded(let name): "entity \(name) is new"
        case .entityRemoved(let name): "entity \(name) is no longer in the schema"
        case .attributeAdded(let entity, let attribute): "attribute \(entity).\(attribute) is new"
        case .attributeRemoved(let entity, let attribute): "attribute \(entity).\(attribute) is no longer in the schema"
        case .attributeTypeChanged(let entity, let attribute, let from, let to):
            "attribute \(entity).\(attribute) changed type from \(from) to \(to)"
        case .attributeOptionalityChanged(let entity, let attribute, let isOptional):
            "attribute \(entity).\(attribute) became \(isOptional ? "optional" : "non-optional")"
        case .attributeUniquenessChanged(let entity, let attribute, let isUnique):
            "attribute \(entity).\(attribute) \(isUnique ? "became unique" : "is no longer unique")"
        case .relationshipAdded(let entity, let relationship): "relationship \(entity).\(relationship) is new"
        case .relationshipRemoved(let entity, let relationship):
            "relationship \(entity).\(relationship) is no longer in the schema"
        case .relationshipChanged(let entity, let relationship, let change):
            "relationship \(entity).\(relationship) changed: \(change)"
        }
    }
}

extension Schema {
    /// How `self` (the newer schema) differs from `old`, entity by entity and
    /// attribute by attribute, in a stable order. Empty when the stored tables
    /// would be the same.
    public func differences(from old: Schema) -> [SchemaDifference] {
        var result: [SchemaDifference] = []
        for entity in old.entities where self.entity(named: entity.name) == nil {
            result.append(.entityRemoved(entity.name))
        }
        for entity in entities {
            guard let oldEntity = old.entity(named: entity.name) else {
                result.append(.entityAdded(entity.name))
                continue
            }
            result += entity.differences(from: oldEntity)
        }
        return result
    }
}

extension Schema.Entity {
    func differences(from old: Schema.Entity) -> [SchemaDifference] {
        var result: [SchemaDifference] = []
        for attribute in old.attributes where self.attribute(named: attribute.name) == nil {
            result.append(.attributeRemoved(entity: name, attribute: attribute.name))
        }
        for attribute in attributes {
            guard let oldAttribute = old.attribute(named: attribute.name) else {
                result.append(.attributeAdded(entity: name, attribute: attribute.name))
                continue
            }
            if attribute.kind != oldAttribute.kind || attribute.representation != oldAttribute.representation {
                result.append(
                    .attributeTypeChanged(
                        entity: name, attribute: attribute.name, from: oldAttribute.kind.rawValue,
                        to: attribute.kind.rawValue))
            }
            if attribute.isOptional != oldAttribute.isOptional {
                result.append(
                    .attributeOptionalityChanged(entity: name, attribute: attribute.name, isOptional: attribute.isOptional))
            }
            if attribute.isUnique != oldAttribute.isUnique {
                result.append(
                    .attributeUniquenessChanged(entity: name, attribute: attribute.name, isUnique: attribute.isUnique))
            }
        }
        result += relationshipDifferences(from: old)
        return result
    }

    private func relationshipDifferences(from old: Schema.Entity) -> [SchemaDifference] {
        var result: [SchemaDifference] = []
        for relationship in old.relationships where self.relationship(named: relationship.name) == nil {
            result.append(.relationshipRemoved(entity: name, relationship: relationship.name))
        }
        for relationship in relationships {
            guard let oldRelationship = old.relationship(named: relationship.name) else {
                result.append(.relationshipAdded(entity: name, relationship: relationship.name))
                continue
            }
            func changed(_ what: String, _ from: Any, _ to: Any) {
                result.append(
                    .relationshipChanged(entity: name, relationship: relationship.name, change: "\(what) \(from) → \(to)"))
            }
            if relationship.destination != oldRelationship.destination {
                changed("destination", oldRelationship.destination, relationship.destination)
            }
            if relationship.isToMany != oldRelationship.isToMany {
                changed("to-many", oldRelationship.isToMany, relationship.isToMany)
            }
            if relationship.inverseName != oldRelationship.inverseName {
                changed("inverse", oldRelationship.inverseName ?? "none", relationship.inverseName ?? "none")
            }
            if relationship.storage != oldRelationship.storage {
                changed("storage", oldRelationship.storage, relationship.storage)
            }
        }
        return result
    }
}
