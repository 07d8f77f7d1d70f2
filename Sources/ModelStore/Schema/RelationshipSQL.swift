/// The SQL that reads and writes a relationship's links, from its resolved
/// schema (storage) and its inverse's. Shared by the typed context and the
/// dynamic layer, so that both read and write links the same way. Pure string
/// building: names are quoted, keys are bound.
package enum RelationshipSQL {
    /// `IN (…)` over a JSON array of keys bound as one parameter.
    package static let inKeys = "IN (SELECT value FROM json_each(?))"

    /// `SELECT holder, related` for the holders whose keys are bound at
    /// parameter 1 as a JSON array (see `jsonKeys`), one row per link. Nil
    /// when the relationship's storage is not resolved.
    /// `destinationTable`: the destination's table, when it is in a class
    /// hierarchy (its root's); the destination's name otherwise.
    static func linkedKeys(
        _ relationship: Schema.Relationship, inverse: Schema.Relationship?, holderTable: String, destinationTable: String? = nil
    ) -> String? {
        let key = quoteIdentifier(primaryKeyColumn)
        switch relationship.storage {
        case .foreignKey(let column, _):
            return "SELECT \(key), \(quoteIdentifier(column)) FROM \(quoteIdentifier(holderTable)) "
                + "WHERE \(key) \(inKeys) AND \(quoteIdentifier(column)) IS NOT NULL"
        case .inverseForeignKey:
            guard let column = inverse?.foreignKeyColumn else { return nil }
            return "SELECT \(quoteIdentifier(column)), \(key) FROM \(quoteIdentifier(destinationTable ?? relationship.destination)) "
                + "WHERE \(quoteIdentifier(column)) \(inKeys)"
        case .joinTable(let name, let isSource):
            let (holderSide, otherSide) =
                isSource ? (JoinTableColumn.source, JoinTableColumn.target) : (JoinTableColumn.target, JoinTableColumn.source)
            return "SELECT \(quoteIdentifier(holderSide)), \(quoteIdentifier(otherSide)) FROM \(quoteIdentifier(name)) "
                + "WHERE \(quoteIdentifier(holderSide)) \(inKeys)"
        case .unresolved:
            return nil
        }
    }

    /// Which holders a SELECT of related rows is for.
    package enum Holders {
        /// The holder whose key is bound at parameter 1.
        case one
        /// The holders whose keys are bound at parameter 1 as a JSON array.
        case many
        /// Every row of the holder's table. No keys are bound, and SQLite
        /// builds no temporary index of them: for a prefetch after a fetch of
        /// a whole table. Not for a to-one held in the holder's row.
        case all
    }

    /// A SELECT of the destination's rows related to `holders`, with
    /// `destinationSlots`' columns (see `SchemaSQL.selectColumns`), the
    /// holder's key as the last column, in the relationship's order. Nil when
    /// the storage is not resolved, or for `.all` holders of a to-one held in
    /// the holder's row. With `version`, the row version comes before the
    /// holder's key.
    ///
    /// `destinationColumns` are the destination's select columns for alias
    /// `t` (`EntityTable.selectColumns`), `destinationTable` its table. With
    /// `linkAmongColumns`, a to-many stored as its inverse's foreign key
    /// adds no column: the caller reads the holder's key from that foreign
    /// key's place among `destinationColumns`.
    package static func relatedRows(
        _ relationship: Schema.Relationship, inverse: Schema.Relationship?, destinationColumns columns: String,
        destinationTable: String, holders: Holders, linkAmongColumns: Bool = false
    ) -> String? {
        let match: String
        switch holders {
        case .one: match = "= ?"
        case .many: match = inKeys
        // Every row has a holder: only rows that link to none are left out.
        case .all: match = "IS NOT NULL"
        }
        let table = "\(quoteIdentifier(destinationTable)) AS t"
        let key = quoteIdentifier(primaryKeyColumn)
        switch relationship.storage {
        case .inverseForeignKey:
            guard case .foreignKey(let column, let orderColumn)? = inverse?.storage else { return nil }
            let link = "t.\(quoteIdentifier(column))"
            let order = orderColumn.map { "t.\(quoteIdentifier($0)), " } ?? ""
            let selected = linkAmongColumns ? columns : "\(columns), \(link)"
            return "SELECT \(selected) FROM \(table) WHERE \(link) \(match) ORDER BY \(link), \(order)t.\(key)"
        case .joinTable(let name, let isSource):
            let (holderSide, otherSide, order) =
                isSource
                ? (JoinTableColumn.source, JoinTableColumn.target, JoinTableColumn.sourceOrder)
                : (JoinTableColumn.target, JoinTableColumn.source, JoinTableColumn.targetOrder)
            let link = "j.\(quoteIdentifier(holderSide))"
            return "SELECT \(columns), \(link) FROM \(table) JOIN \(quoteIdentifier(name)) AS j "
                + "ON j.\(quoteIdentifier(otherSide)) = t.\(key) WHERE \(link) \(match) "
                + "ORDER BY \(link), j.\(quoteIdentifier(order)), t.\(key)"
        case .foreignKey:
            // A to-one held in the holder's row: the related rows by key.
            if case .all = holders { return nil }
            return "SELECT \(columns), t.\(key) FROM \(table) WHERE t.\(key) \(match) ORDER BY t.\(key)"
        case .unresolved:
            return nil
        }
    }

    /// `SELECT key, position` of the members of the to-many of the holder
    /// whose key is bound at parameter 1, in the order `relatedRows` loads
    /// them (position NULL when the link has no order column). Nil for a
    /// to-one or unresolved storage.
    package static func storedLinks(
        _ relationship: Schema.Relationship, inverse: Schema.Relationship?, destinationTable: String? = nil
    ) -> String? {
        let key = quoteIdentifier(primaryKeyColumn)
        let destination = quoteIdentifier(destinationTable ?? relationship.destination)
        switch relationship.storage {
        case .inverseForeignKey:
            guard relationship.isToMany, case .foreignKey(let column, let orderColumn)? = inverse?.storage else { return nil }
            let order = orderColumn.map(quoteIdentifier)
            return "SELECT \(key), \(order ?? "NULL") FROM \(destination) "
                + "WHERE \(quoteIdentifier(column)) = ? ORDER BY \(order.map { "\($0), " } ?? "")\(key)"
        case .joinTable(let name, let isSource):
            let (holderSide, otherSide, order) =
                isSource
                ? (JoinTableColumn.source, JoinTableColumn.target, JoinTableColumn.sourceOrder)
                : (JoinTableColumn.target, JoinTableColumn.source, JoinTableColumn.targetOrder)
            return "SELECT t.\(key), j.\(quoteIdentifier(order)) FROM \(destination) AS t "
                + "JOIN \(quoteIdentifier(name)) AS j ON j.\(quoteIdentifier(otherSide)) = t.\(key) "
                + "WHERE j.\(quoteIdentifier(holderSide)) = ? ORDER BY j.\(quoteIdentifier(order)), t.\(key)"
        case .foreignKey, .unresolved:
            return nil
        }
    }

    /// A scalar subquery that counts the objects a to-many holds for the
    /// holder whose key is the SQL expression `holderKey`. Nil for a to-one
    /// or unresolved storage.
    package static func countExpression(
        _ relationship: Schema.Relationship, inverse: Schema.Relationship?, holderKey: String, destinationTable: String? = nil
    ) -> String? {
        switch relationship.storage {
        case .inverseForeignKey:
            guard relationship.isToMany, let column = inverse?.foreignKeyColumn else { return nil }
            return "(SELECT count(*) FROM \(quoteIdentifier(destinationTable ?? relationship.destination)) WHERE \(quoteIdentifier(column)) = \(holderKey))"
        case .joinTable(let name, let isSource):
            let holderSide = isSource ? JoinTableColumn.source : JoinTableColumn.target
            return "(SELECT count(*) FROM \(quoteIdentifier(name)) WHERE \(quoteIdentifier(holderSide)) = \(holderKey))"
        case .foreignKey, .unresolved:
            return nil
        }
    }
}
