/// How a class hierarchy is stored: one table per hierarchy, named after its
/// root entity, with the columns of every entity of the hierarchy and a
/// discriminator column (`entityColumn`) holding each row's entity name, as
/// Core Data stores one. See README "Class inheritance".
///
/// A subentity's own columns are nullable in SQL: the rows of its
/// superentity and siblings have none. Its Swift type's non-optionality is
/// checked when a row is read (a NULL there is an `invalidValue` error naming
/// entity, row and property, as for any other value that does not fit).

/// The column of a hierarchy's table that holds each row's entity name.
/// Underscored like `_pk` and `_version`, which no property may be named.
package let entityColumn = "_entity"

extension Schema {
    /// The name of the table that holds `entityName`'s objects: its root
    /// entity's (itself for an entity without superentity, or a name the
    /// schema does not hold).
    package func tableName(of entityName: String) -> String {
        guard let entity = entity(named: entityName), entity.superentityName != nil else { return entityName }
        return rootEntity(of: entity)?.name ?? entityName
    }

    /// The condition that keeps a SELECT of the hierarchy's table (aliased
    /// `qualifier`) to `entity`'s rows and its subentities'; nil for an
    /// entity without superentity, whose table's rows are all its own.
    package func rowCondition(of entity: Entity, qualifier: String) -> String? {
        guard entity.superentityName != nil else { return nil }
        let names = entityWithSubentities(entity).map { sqlStringLiteral($0.name) }
        return "\(qualifier).\(quoteIdentifier(entityColumn)) IN (\(names.joined(separator: ", ")))"
    }

    /// The condition that keeps a SELECT of the hierarchy's table to
    /// `entity`'s own rows, without its subentities'; nil for an entity
    /// outside a hierarchy.
    package func ownRowCondition(of entity: Entity, qualifier: String) -> String? {
        guard entity.superentityName != nil || hasSubentities(entity) else { return nil }
        return "\(qualifier).\(quoteIdentifier(entityColumn)) = \(sqlStringLiteral(entity.name))"
    }

    /// True when `entity` is a root with subentities: its table has the
    /// discriminator column.
    func hasSubentities(_ entity: Entity) -> Bool {
        entities.contains { $0.superentityName == entity.name }
    }

    /// The entities of the hierarchy rooted at `root` below it, in schema
    /// order.
    func descendants(of root: Entity) -> [Entity] {
        entityWithSubentities(root).filter { $0.name != root.name }
    }

    /// The schema as its tables are: each class hierarchy one entity named
    /// after its root, with the root's properties, then each subentity's
    /// own (attributes made optional; relationships whose destination is a
    /// subentity point at the destination's table). Subentities' `#Unique`
    /// and `#Index` apply to the hierarchy's table. Entities without a
    /// hierarchy are unchanged. `discriminated` names the tables with the
    /// discriminator column. `self` must be resolved and validated.
    package func storageLayout() -> (schema: Schema, discriminated: Set<String>) {
        guard entities.contains(where: { $0.superentityName != nil }) else { return (self, []) }
        var tables: [Entity] = []
        var discriminated: Set<String> = []
        for entity in entities where entity.superentityName == nil {
            var table = entity
            let descendants = descendants(of: entity)
            if !descendants.isEmpty { discriminated.insert(entity.name) }
            for descendant in descendants {
                let parent = superentity(of: descendant)
                table.attributes += descendant.attributes.dropFirst(parent?.attributes.count ?? 0).map { attribute in
                    var nullable = attribute
                    nullable.isOptional = true
                    return nullable
                }
                table.relationships += descendant.relationships.dropFirst(parent?.relationships.count ?? 0)
                table.uniqueConstraints += descendant.uniqueConstraints.filter { !table.uniqueConstraints.contains($0) }
                table.indexes += descendant.indexes.filter { !table.indexes.contains($0) }
            }
            for index in table.relationships.indices {
                table.relationships[index].destination = tableName(of: table.relationships[index].destination)
            }
            tables.append(table)
        }
        return (Schema(entities: tables, version: version), discriminated)
    }

    /// Checks what one table per hierarchy needs: sibling subentities do not
    /// declare a property of the same name (it would be one column).
    /// - Throws: `ModelStoreError.invalidSchema` naming both entities.
    func validateHierarchyColumns() throws(ModelStoreError) {
        for root in entities where root.superentityName == nil && hasSubentities(root) {
            var owners: [String: String] = [:]
            for property in root.attributes.map(\.name) + root.relationships.map(\.name) {
                owners[property.lowercased()] = root.name
            }
            for descendant in descendants(of: root) {
                let parent = superentity(of: descendant)
                let own =
                    descendant.attributes.dropFirst(parent?.attributes.count ?? 0).map(\.name)
                    + descendant.relationships.dropFirst(parent?.relationships.count ?? 0).map(\.name)
                for name in own {
                    if let owner = owners[name.lowercased()] {
                        throw .invalidSchema(
                            reason: "\(descendant.name).\(name) and \(owner).\(name) would share a column of table "
                                + "\(root.name), which stores their class hierarchy; rename one")
                    }
                    owners[name.lowercased()] = descendant.name
                }
            }
        }
    }
}
