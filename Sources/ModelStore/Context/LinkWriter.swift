/// Writes relationship links by row keys, inside the caller's transaction.
/// The typed save pipeline and the dynamic layer both write links through
/// it, so that a to-many's order and join-table rows are written one way.
enum LinkWriter {
    /// Writes a to-many's links for one holder: each member's position (in
    /// the members' order column, or the join table's), and for a join table
    /// the rows of the members removed (`removed`) and added.
    /// A to-many whose inverse is a to-one gets its members' foreign keys from
    /// their own to-one; only positions are written here.
    /// - Throws: `ModelStoreError.saveFailed` naming the entity and holder.
    static func writeLinks(
        _ relationship: Schema.Relationship, inverse: Schema.Relationship?, holder: Int64, members: [Int64],
        removed: [Int64], connection: Connection
    ) throws {
        let entity = relationship.destination
        switch relationship.storage {
        case .inverseForeignKey:
            guard case .foreignKey(_, let orderColumn?)? = inverse?.storage else { return }
            let sql = "UPDATE \(quoteIdentifier(entity)) SET \(quoteIdentifier(orderColumn)) = ? WHERE \(quoteIdentifier(primaryKeyColumn)) = ?"
            for (position, member) in members.enumerated() {
                try execute(sql, [Int64(position), member], entity: entity, row: member, connection: connection)
            }
        case .joinTable(let name, let isSource):
            let table = quoteIdentifier(name)
            let source = quoteIdentifier(JoinTableColumn.source)
            let target = quoteIdentifier(JoinTableColumn.target)
            let order = quoteIdentifier(isSource ? JoinTableColumn.sourceOrder : JoinTableColumn.targetOrder)
            // Each side writes its own order column; the row is the same.
            let delete = "DELETE FROM \(table) WHERE \(source) = ? AND \(target) = ?"
            let upsert =
                "INSERT INTO \(table) (\(source), \(target), \(order)) VALUES (?, ?, ?) "
                + "ON CONFLICT (\(source), \(target)) DO UPDATE SET \(order) = excluded.\(order)"
            for member in removed {
                try execute(delete, isSource ? [holder, member] : [member, holder], entity: name, row: holder, connection: connection)
            }
            for (position, member) in members.enumerated() {
                let pair = isSource ? [holder, member] : [member, holder]
                try execute(upsert, pair + [Int64(position)], entity: name, row: holder, connection: connection)
            }
        case .foreignKey, .unresolved:
            break
        }
    }

    /// Sets a to-one's foreign-key column of one row (nil clears it, with
    /// its order column when given).
    /// - Throws: `ModelStoreError.saveFailed` naming the entity and row.
    static func setForeignKey(
        _ column: String, of entity: String, row: Int64, to target: Int64?, orderColumn: String? = nil,
        position: Int64? = nil, connection: Connection
    ) throws {
        var assignments = "\(quoteIdentifier(column)) = ?"
        var values: [SQLiteValue] = [target.map(SQLiteValue.integer) ?? .null]
        if let orderColumn {
            assignments += ", \(quoteIdentifier(orderColumn)) = ?"
            values.append(position.map(SQLiteValue.integer) ?? .null)
        }
        let sql = "UPDATE \(quoteIdentifier(entity)) SET \(assignments) WHERE \(quoteIdentifier(primaryKeyColumn)) = ?"
        try execute(sql, values + [.integer(row)], entity: entity, row: row, connection: connection)
    }

    private static func execute(_ sql: String, _ values: [Int64], entity: String, row: Int64?, connection: Connection) throws {
        try execute(sql, values.map(SQLiteValue.integer), entity: entity, row: row, connection: connection)
    }

    private static func execute(
        _ sql: String, _ values: [SQLiteValue], entity: String, row: Int64?, connection: Connection
    ) throws {
        let statement = try connection.cachedStatement(sql)
        defer { statement.reset() }
        do {
            for (index, value) in values.enumerated() { try statement.bind(value, at: Int32(index + 1)) }
            try statement.run()
        } catch {
            throw ModelStoreError.saveFailed(entity: entity, row: row, underlying: error)
        }
    }
}
