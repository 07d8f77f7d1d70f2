import PostgresNIO

/// Workload 7 by hand with postgres-nio, as `RawFamilies` does it with
/// SQLite: one SELECT of the parents, one of every child ordered by parent
/// and position, each child appended to its parent's array (found by key).
enum RawPostgresFamilies {
    static func fetchAll(_ connection: PostgresConnection) throws -> [PlainParent] {
        var parents: [PlainParent] = []
        var byKey: [Int64: PlainParent] = [:]
        let parentRows = try PostgresServer.query(connection, RawFamilies.parentsSQL).rows
        parents.reserveCapacity(parentRows.count)
        for row in parentRows {
            let (id, name) = try row.decode((Int64, String).self)
            let parent = PlainParent(id: id, name: name)
            parents.append(parent)
            byKey[id] = parent
        }
        // Rows come grouped by parent: look the parent up when it changes.
        var current: PlainParent?
        for row in try PostgresServer.query(connection, RawFamilies.childrenSQL).rows {
            let (id, name, value, parentID) = try row.decode((Int64, String, Int64, Int64).self)
            let child = PlainChild(id: id, name: name, value: Int(value), parentID: parentID)
            if current?.id != parentID { current = byKey[parentID] }
            current?.children.append(child)
        }
        return parents
    }
}
