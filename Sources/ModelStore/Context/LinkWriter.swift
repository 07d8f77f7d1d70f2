/// Writes relationship links by row keys, inside the caller's transaction.
/// The typed save pipeline and the dynamic layer both write links through
/// it, so that a to-many's order and join-table rows are written one way.
package enum LinkWriter {
    /// What the caller knows of a to-many's stored links before it writes.
    package enum Stored {
        /// What the typed context knows, which keeps no positions: the
        /// first `prefix` members and the last `suffix` are where the stored
        /// order (as it last loaded or saved it) has them, and `removed`
        /// were members and are not any more (see `LinkDiff.compare`).
        case order(prefix: Int, suffix: Int, removed: [Int64])
        /// The members in their stored order with their stored positions,
        /// read in the caller's transaction: what the dynamic layer reads.
        case positions([StoredLink])
    }

    /// Writes a to-many's links for one holder, the members' row keys given
    /// as an array; see `writeLinks(_:inverse:holder:count:member:stored:connection:)`.
    package static func writeLinks(
        _ relationship: Schema.Relationship, inverse: Schema.Relationship?, destinationTable: String? = nil, holder: Int64,
        members: [Int64], stored: Stored, connection: Connection
    ) throws {
        try writeLinks(
            relationship, inverse: inverse, destinationTable: destinationTable, holder: holder, count: members.count,
            member: { members[$0] }, stored: stored, connection: connection)
    }

    /// Writes a to-many's links for one holder: for a join table, deletes
    /// the rows of the members that left; then writes the position (0, 1,
    /// 2, …) of each member whose stored position is not its index (in the
    /// members' order column, or the join table's), adding the join rows of
    /// new members. `member(i)` is the row key of the member at index `i`
    /// (of `count`), asked only for the members written or checked; a
    /// member without one (no row) is not linked.
    ///
    /// With stored positions, exactly those that differ are written. With
    /// the stored order alone, members at the same index at the start of
    /// both lists (and at the end, when the length did not change) keep
    /// their stored positions, so that appending to a long list writes one
    /// position. That is only right if the kept members sort before (after)
    /// the written ones, which one lookup of the nearest kept member's
    /// stored position checks; when it fails (a gap left by a deleted
    /// member, a NULL, a tie, another writer), every position is written, so
    /// that positions become 0, 1, 2, … again.
    ///
    /// A to-many whose inverse is a to-one gets its members' foreign keys
    /// from their own to-one; only positions are written here.
    /// - Throws: `ModelStoreError.saveFailed` naming the entity and holder.
    /// - Complexity: O(stored + members) in memory (O(1) per member kept
    ///   with the stored order alone), plus one statement per member
    ///   removed or written.
    ///
    /// `destinationTable` is the table of the destination's rows when it is
    /// not named after it (a subentity's rows are in its root's table).
    package static func writeLinks(
        _ relationship: Schema.Relationship, inverse: Schema.Relationship?, destinationTable: String? = nil, holder: Int64,
        count: Int, member: (Int) -> Int64?, stored: Stored, connection: Connection
    ) throws {
        let entity = destinationTable ?? relationship.destination
        switch relationship.storage {
        case .inverseForeignKey:
            guard case .foreignKey(let column, let orderColumn?)? = inverse?.storage else { return }
            let sql = "UPDATE \(quoteIdentifier(entity)) SET \(quoteIdentifier(orderColumn)) = ? WHERE \(quoteIdentifier(primaryKeyColumn)) = ?"
            let lookup = "SELECT \(quoteIdentifier(orderColumn)) FROM \(quoteIdentifier(entity)) "
                + "WHERE \(quoteIdentifier(primaryKeyColumn)) = ? AND \(quoteIdentifier(column)) = ?"
            let (_, positions) = try changes(count, member, stored) {
                try storedPosition(lookup, [$0, holder], entity: entity, holder: holder, connection: connection)
            }
            for position in positions {
                guard let key = member(position) else { continue }
                try execute(sql, [Int64(position), key], entity: entity, row: key, connection: connection)
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
            let lookup = "SELECT \(order) FROM \(table) WHERE \(source) = ? AND \(target) = ?"
            func pair(_ member: Int64) -> [Int64] { isSource ? [holder, member] : [member, holder] }
            let (removed, positions) = try changes(count, member, stored) {
                try storedPosition(lookup, pair($0), entity: name, holder: holder, connection: connection)
            }
            for key in removed {
                try execute(delete, pair(key), entity: name, row: holder, connection: connection)
            }
            for position in positions {
                guard let key = member(position) else { continue }
                try execute(upsert, pair(key) + [Int64(position)], entity: name, row: holder, connection: connection)
            }
        case .foreignKey, .unresolved:
            break
        }
    }

    /// The members removed and the indices of the members whose position
    /// is written. `storedPosition` looks one member's position up (only
    /// with `.order`, at most twice).
    private static func changes(
        _ count: Int, _ member: (Int) -> Int64?, _ stored: Stored, storedPosition: (Int64) throws -> StoredPosition
    ) throws -> (removed: [Int64], positions: [Int]) {
        switch stored {
        case .positions(let links):
            // The dynamic layer's members all have rows.
            return LinkDiff.exact(stored: links, members: (0..<count).compactMap(member))
        case .order(let prefix, let suffix, let removed):
            let changed = try positionsToWrite(prefix..<(count - suffix), count: count) { index in
                try member(index).flatMap(storedPosition)
            }
            return (removed, Array(changed))
        }
    }

    /// A member's stored position: nil when it is NULL or the member is not
    /// linked to the holder (no row).
    private typealias StoredPosition = Int64?

    /// The positions of `members` to write: `changed`, or more when the
    /// stored positions of the kept ends do not sort around it.
    ///
    /// Loading orders a to-many by (position, key), NULL first, and the kept
    /// ends are in that order already (the typed context compared with a
    /// list it loaded or saved in it). The run gets positions `changed.lowerBound…`; so the prefix may
    /// stay if its last member's position is below the run's first, and the
    /// suffix if its first member's position is at least the position after
    /// the run. Checking the nearest kept member suffices: the others sort
    /// on its far side. A NULL is not trusted either way, so that a list
    /// with NULLs (links written from the other side only) is numbered.
    private static func positionsToWrite(
        _ changed: Range<Int>, count: Int, storedPosition: (Int) throws -> StoredPosition
    ) throws -> Range<Int> {
        var changed = changed
        guard !changed.isEmpty else { return changed }
        if changed.lowerBound > 0 {
            let before = try storedPosition(changed.lowerBound - 1)
            if !(before.map { $0 < Int64(changed.lowerBound) } ?? false) { changed = 0..<changed.upperBound }
        }
        if changed.upperBound < count {
            let after = try storedPosition(changed.upperBound)
            if !(after.map { $0 >= Int64(changed.upperBound) } ?? false) { changed = changed.lowerBound..<count }
        }
        return changed
    }

    private static func storedPosition(
        _ sql: String, _ values: [Int64], entity: String, holder: Int64, connection: Connection
    ) throws -> StoredPosition {
        let statement = try connection.cachedStatement(sql)
        defer { statement.reset() }
        do {
            for (index, value) in values.enumerated() { try statement.bind(value, at: Int32(index + 1)) }
            guard try statement.step(), statement.storage(at: 0) != .null else { return nil }
            return statement.int64(at: 0)
        } catch {
            throw ModelStoreError.saveFailed(entity: entity, row: holder, underlying: error)
        }
    }

    /// Sets a to-one's foreign-key column of one row (nil clears it, with
    /// its order column when given). With `bumpsVersion`, the row's version
    /// goes up (a dynamic edit of another row); a save's fix-up of a row it
    /// has just written does not bump it twice.
    /// - Throws: `ModelStoreError.saveFailed` naming the entity and row.
    package static func setForeignKey(
        _ column: String, of entity: String, row: Int64, to target: Int64?, orderColumn: String? = nil,
        position: Int64? = nil, bumpsVersion: Bool = false, connection: Connection
    ) throws {
        var assignments = "\(quoteIdentifier(column)) = ?"
        if bumpsVersion {
            assignments += ", \(quoteIdentifier(rowVersionColumn)) = \(quoteIdentifier(rowVersionColumn)) + 1"
        }
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
