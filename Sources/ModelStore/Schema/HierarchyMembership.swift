/// Where an entity is in a class hierarchy, for the SQL of its
/// `EntityTable`: the hierarchy's one table, the rows that are its own, and
/// the columns that read them (see `Schema+HierarchyTable.swift`).
struct HierarchyMembership: Sendable {
    /// The entity's name, which its rows hold in `entityColumn`.
    let entityName: String
    /// The hierarchy's table (its root entity's name).
    let tableName: String
    /// One per hierarchy, shared by its entities' tables: the identity map's key.
    let key: HierarchyKey
    /// The entity and its subentities at any depth, in schema order, with
    /// their properties by ordinal: the classes a SELECT of the entity makes.
    let members: [(name: String, slots: [Schema.PropertySlot])]
    /// True for a subentity: its SELECTs keep to its members' rows.
    let isSubentity: Bool
    /// True when the root entity has a uniqueness constraint, which holds
    /// over the whole table: every entity's inserts are then upserts.
    let rootHasUniqueness: Bool

    /// The membership of `entity` in the hierarchy of `schema` it belongs
    /// to; nil for an entity of no hierarchy (a root without subentities).
    /// `keys` holds the hierarchies' keys by root name, made on first use.
    static func of(
        _ entity: Schema.Entity, in schema: Schema, keys: inout [String: HierarchyKey]
    ) -> HierarchyMembership? {
        guard let root = schema.rootEntity(of: entity), schema.hasSubentities(root) else { return nil }
        let key = keys[root.name] ?? HierarchyKey()
        keys[root.name] = key
        return HierarchyMembership(
            entityName: entity.name, tableName: root.name, key: key,
            members: schema.entityWithSubentities(entity).map { ($0.name, $0.slots) },
            isSubentity: entity.superentityName != nil, rootHasUniqueness: root.hasUniqueness)
    }

    /// `"_entity" IN ('Car', 'Sedan')` for a subentity; nil for the root,
    /// whose SELECTs take every row.
    func condition(qualifier: String?) -> String? {
        guard isSubentity else { return nil }
        let prefix = qualifier.map { "\($0)." } ?? ""
        let names = members.map { sqlStringLiteral($0.name) }.joined(separator: ", ")
        return members.count == 1
            ? "\(prefix)\(quoteIdentifier(entityColumn)) = \(names)"
            : "\(prefix)\(quoteIdentifier(entityColumn)) IN (\(names))"
    }

    /// The columns of a SELECT that makes the members' objects: the key, then
    /// at column N + 1 the value of ordinal N of the row's own class. Sibling
    /// classes give one ordinal different properties (each numbers its own
    /// after the shared superclass's), so where the members disagree the
    /// column is a `CASE` on the row's entity; where they agree (inherited
    /// properties, or one member only), the plain column. With `version`,
    /// the row version follows, then the row's entity name.
    func selectColumns(qualifier: String?, omitting: PropertyBitSet, version: VersionSelect?) -> String {
        let prefix = qualifier.map { "\($0)." } ?? ""
        let width = members.map(\.slots.count).max() ?? 0
        var columns = [prefix + quoteIdentifier(primaryKeyColumn)]
        for ordinal in 0..<width {
            // The members by the column they read ordinal N from, in order.
            var byColumn: [(column: String, names: [String])] = []
            for member in members where ordinal < member.slots.count {
                guard let column = member.slots[ordinal].column else { continue }
                if let index = byColumn.firstIndex(where: { $0.column == column }) {
                    byColumn[index].names.append(member.name)
                } else {
                    byColumn.append((column, [member.name]))
                }
            }
            if omitting.contains(ordinal) || byColumn.isEmpty {
                columns.append("NULL")
            } else if byColumn.count == 1 {
                columns.append(prefix + quoteIdentifier(byColumn[0].column))
            } else {
                let discriminator = prefix + quoteIdentifier(entityColumn)
                let cases = byColumn.map { group in
                    "WHEN \(discriminator) IN (\(group.names.map(sqlStringLiteral).joined(separator: ", "))) "
                        + "THEN \(prefix)\(quoteIdentifier(group.column))"
                }
                columns.append("CASE \(cases.joined(separator: " ")) END")
            }
        }
        switch version {
        case .column?: columns.append(prefix + quoteIdentifier(rowVersionColumn))
        case .absent?: columns.append("0")
        case nil: return columns.joined(separator: ", ")
        }
        columns.append(prefix + quoteIdentifier(entityColumn))
        return columns.joined(separator: ", ")
    }
}

/// Identifies one class hierarchy of a store (see `HierarchyMembership.key`).
final class HierarchyKey: Sendable {}

/// `name` as an SQL string literal. Only for entity names from a schema,
/// which are constant per statement shape (a discriminator); values from
/// users are always bound.
func sqlStringLiteral(_ name: String) -> String {
    "'" + name.replacingOccurrences(of: "'", with: "''") + "'"
}
