/// One way in which two schemas differ, as found by `Schema.differences(from:)`.
///
/// Opening a store whose recorded schema differs from the app's lists these in
/// its error; the migration engine plans its steps from them.
public enum SchemaDifference: Hashable, Sendable, CustomStringConvertible {
    case entityAdded(String)
    case entityRemoved(String)
    /// An entity renamed through `@Model(originalName:)` or a script.
    case entityRenamed(from: String, to: String)
    case attributeAdded(entity: String, attribute: String)
    case attributeRemoved(entity: String, attribute: String)
    /// An attribute renamed through `@Attribute(originalName:)` or a script.
    case attributeRenamed(entity: String, from: String, to: String)
    case attributeTypeChanged(entity: String, attribute: String, from: String, to: String)
    case attributeOptionalityChanged(entity: String, attribute: String, isOptional: Bool)
    case attributeUniquenessChanged(entity: String, attribute: String, isUnique: Bool)
    case relationshipAdded(entity: String, relationship: String)
    case relationshipRemoved(entity: String, relationship: String)
    /// A relationship renamed through `@Relationship(originalName:)`.
    case relationshipRenamed(entity: String, from: String, to: String)
    /// A relationship's destination, cardinality, inverse or storage changed (the
    /// things the tables depend on; a delete rule is behaviour, not layout).
    case relationshipChanged(entity: String, relationship: String, change: String)
    /// A `#Unique` constraint over these attributes is new.
    case uniqueConstraintAdded(entity: String, attributes: [String])
    /// A `#Unique` constraint over these attributes is gone.
    case uniqueConstraintRemoved(entity: String, attributes: [String])
    /// An `#Index` over these attributes is new.
    case indexAdded(entity: String, attributes: [String])
    /// An `#Index` over these attributes is gone.
    case indexRemoved(entity: String, attributes: [String])
    /// The entity inherits from another entity, or from none (nil), than
    /// before: its objects would move to another class hierarchy's table.
    case superentityChanged(entity: String, from: String?, to: String?)

    public var description: String {
        switch self {
        case .entityAdded(let name): "entity \(name) is new"
        case .entityRemoved(let name): "entity \(name) is no longer in the schema"
        case .entityRenamed(let from, let to): "entity \(from) was renamed to \(to)"
        case .attributeAdded(let entity, let attribute): "attribute \(entity).\(attribute) is new"
        case .attributeRemoved(let entity, let attribute): "attribute \(entity).\(attribute) is no longer in the schema"
        case .attributeRenamed(let entity, let from, let to): "attribute \(entity).\(from) was renamed to \(to)"
        case .attributeTypeChanged(let entity, let attribute, let from, let to):
            "attribute \(entity).\(attribute) changed type from \(from) to \(to)"
        case .attributeOptionalityChanged(let entity, let attribute, let isOptional):
            "attribute \(entity).\(attribute) became \(isOptional ? "optional" : "non-optional")"
        case .attributeUniquenessChanged(let entity, let attribute, let isUnique):
            "attribute \(entity).\(attribute) \(isUnique ? "became unique" : "is no longer unique")"
        case .relationshipAdded(let entity, let relationship): "relationship \(entity).\(relationship) is new"
        case .relationshipRemoved(let entity, let relationship):
            "relationship \(entity).\(relationship) is no longer in the schema"
        case .relationshipRenamed(let entity, let from, let to): "relationship \(entity).\(from) was renamed to \(to)"
        case .relationshipChanged(let entity, let relationship, let change):
            "relationship \(entity).\(relationship) changed: \(change)"
        case .uniqueConstraintAdded(let entity, let attributes):
            "#Unique(\(attributes.joined(separator: ", "))) of \(entity) is new"
        case .uniqueConstraintRemoved(let entity, let attributes):
            "#Unique(\(attributes.joined(separator: ", "))) of \(entity) is no longer in the schema"
        case .indexAdded(let entity, let attributes): "#Index(\(attributes.joined(separator: ", "))) of \(entity) is new"
        case .indexRemoved(let entity, let attributes):
            "#Index(\(attributes.joined(separator: ", "))) of \(entity) is no longer in the schema"
        case .superentityChanged(let entity, let from, let to):
            "entity \(entity) inherits from \(to ?? "no entity") instead of \(from ?? "no entity")"
        }
    }
}

extension Schema {
    /// How `self` (the newer schema) differs from `old`, entity by entity and
    /// attribute by attribute, in a stable order. Entities and properties are
    /// matched by name, then through their `originalName`. Empty when the
    /// stored tables would be the same.
    public func differences(from old: Schema) -> [SchemaDifference] {
        differences(from: old, mapping: SchemaMapping(old: old, new: self))
    }

    func differences(from old: Schema, mapping: SchemaMapping) -> [SchemaDifference] {
        var result: [SchemaDifference] = []
        for entity in mapping.removedEntities {
            result.append(.entityRemoved(entity.name))
        }
        for entity in entities {
            guard let oldEntity = mapping.oldEntity(for: entity) else {
                result.append(.entityAdded(entity.name))
                continue
            }
            if oldEntity.name != entity.name { result.append(.entityRenamed(from: oldEntity.name, to: entity.name)) }
            let oldSuperentity = oldEntity.superentityName.map { mapping.newEntityName(forOld: $0) ?? $0 }
            if oldSuperentity != entity.superentityName {
                result.append(.superentityChanged(entity: entity.name, from: oldEntity.superentityName, to: entity.superentityName))
            }
            result += entity.differences(from: oldEntity, mapping: mapping)
        }
        return result
    }
}

extension Schema.Entity {
    func differences(from old: Schema.Entity, mapping: SchemaMapping) -> [SchemaDifference] {
        var result: [SchemaDifference] = []
        let kept = Set(attributes.compactMap { mapping.oldPropertyName($0.name, of: name) })
        for attribute in old.attributes where !kept.contains(attribute.name) {
            result.append(.attributeRemoved(entity: name, attribute: attribute.name))
        }
        for attribute in attributes {
            guard let oldName = mapping.oldPropertyName(attribute.name, of: name),
                let oldAttribute = old.attribute(named: oldName)
            else {
                result.append(.attributeAdded(entity: name, attribute: attribute.name))
                continue
            }
            if oldName != attribute.name {
                result.append(.attributeRenamed(entity: name, from: oldName, to: attribute.name))
            }
            if attribute.kind != oldAttribute.kind || attribute.representation != oldAttribute.representation {
                result.append(
                    .attributeTypeChanged(
                        entity: name, attribute: attribute.name, from: oldAttribute.typeDescription,
                        to: attribute.typeDescription))
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
        result += relationshipDifferences(from: old, mapping: mapping)
        result += constraintDifferences(from: old, mapping: mapping)
        return result
    }

    /// `#Unique` and `#Index` lists compared after renaming the old ones'
    /// attributes to their new names.
    private func constraintDifferences(from old: Schema.Entity, mapping: SchemaMapping) -> [SchemaDifference] {
        var newNames: [String: String] = [:]
        for attribute in attributes {
            if let oldName = mapping.oldPropertyName(attribute.name, of: name) { newNames[oldName] = attribute.name }
        }
        func renamed(_ lists: [[String]]) -> [[String]] {
            lists.map { $0.map { newNames[$0] ?? "\u{0}\($0)" } }
        }
        var result: [SchemaDifference] = []
        let oldUnique = renamed(old.uniqueConstraints)
        let oldIndexes = renamed(old.indexes)
        for (index, list) in oldUnique.enumerated() where !uniqueConstraints.contains(list) {
            result.append(.uniqueConstraintRemoved(entity: name, attributes: old.uniqueConstraints[index]))
        }
        for list in uniqueConstraints where !oldUnique.contains(list) {
            result.append(.uniqueConstraintAdded(entity: name, attributes: list))
        }
        for (index, list) in oldIndexes.enumerated() where !indexes.contains(list) {
            result.append(.indexRemoved(entity: name, attributes: old.indexes[index]))
        }
        for list in indexes where !oldIndexes.contains(list) {
            result.append(.indexAdded(entity: name, attributes: list))
        }
        return result
    }

    private func relationshipDifferences(from old: Schema.Entity, mapping: SchemaMapping) -> [SchemaDifference] {
        var result: [SchemaDifference] = []
        let kept = Set(relationships.compactMap { mapping.oldPropertyName($0.name, of: name) })
        for relationship in old.relationships where !kept.contains(relationship.name) {
            result.append(.relationshipRemoved(entity: name, relationship: relationship.name))
        }
        for relationship in relationships {
            guard let oldName = mapping.oldPropertyName(relationship.name, of: name),
                let oldRelationship = old.relationship(named: oldName)
            else {
                result.append(.relationshipAdded(entity: name, relationship: relationship.name))
                continue
            }
            if oldName != relationship.name {
                result.append(.relationshipRenamed(entity: name, from: oldName, to: relationship.name))
            }
            func changed(_ what: String, _ from: Any, _ to: Any) {
                result.append(
                    .relationshipChanged(entity: name, relationship: relationship.name, change: "\(what) \(from) → \(to)"))
            }
            let destination = mapping.newEntityName(forOld: oldRelationship.destination) ?? oldRelationship.destination
            if relationship.destination != destination {
                changed("destination", oldRelationship.destination, relationship.destination)
            }
            if relationship.isToMany != oldRelationship.isToMany {
                changed("to-many", oldRelationship.isToMany, relationship.isToMany)
            }
            let inverse = relationship.inverseName.flatMap { mapping.oldPropertyName($0, of: relationship.destination) }
            if inverse != oldRelationship.inverseName {
                changed("inverse", oldRelationship.inverseName ?? "none", relationship.inverseName ?? "none")
            }
            if !relationship.storage.isEquivalent(to: oldRelationship.storage, renamed: oldName != relationship.name || old.name != name) {
                changed("storage", oldRelationship.storage, relationship.storage)
            }
        }
        return result
    }
}

extension Schema.Attribute {
    /// The type as differences and errors name it: the kind, and how the
    /// Swift value maps to it when that is not the value itself.
    var typeDescription: String {
        representation == .primitive ? kind.rawValue : "\(kind.rawValue) (\(representation.rawValue))"
    }
}

extension Schema.Relationship.Storage {
    /// True when the storage is the same, allowing for the column and table
    /// names that follow a renamed relationship or entity.
    func isEquivalent(to other: Self, renamed: Bool) -> Bool {
        if self == other { return true }
        guard renamed else { return false }
        switch (self, other) {
        case (.foreignKey(_, let a), .foreignKey(_, let b)): return (a == nil) == (b == nil)
        case (.joinTable, .joinTable): return true
        default: return false
        }
    }
}
