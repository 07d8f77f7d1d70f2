import CSQLiteBench

/// Workload 7 by hand with the raw C API: one SELECT of the parents into
/// `PlainParent`s, one SELECT of every child ordered by parent and position,
/// each appended to its parent's array (found by key).
enum RawFamilies {
    static let parentsSQL = #"SELECT "_pk", "name" FROM "Parent" ORDER BY "_pk""#
    static let childrenSQL = #"SELECT "_pk", "name", "value", "parent" FROM "Child" ORDER BY "parent", "_parent_order""#

    static func fetchAll(_ db: RawDatabase) throws -> [PlainParent] {
        let parentsStatement = try db.prepare(parentsSQL)
        defer { sqlite3_finalize(parentsStatement) }
        var parents: [PlainParent] = []
        var byKey: [Int64: PlainParent] = [:]
        while true {
            let code = sqlite3_step(parentsStatement)
            guard code == SQLITE_ROW else {
                try db.check(code, "fetch parents")
                break
            }
            let parent = PlainParent(id: sqlite3_column_int64(parentsStatement, 0), name: parentsStatement.text(at: 1))
            parents.append(parent)
            byKey[parent.id] = parent
        }

        let childrenStatement = try db.prepare(childrenSQL)
        defer { sqlite3_finalize(childrenStatement) }
        // Rows come grouped by parent: look the parent up when it changes.
        var current: PlainParent?
        while true {
            let code = sqlite3_step(childrenStatement)
            guard code == SQLITE_ROW else {
                try db.check(code, "fetch children")
                return parents
            }
            let child = PlainChild(
                id: sqlite3_column_int64(childrenStatement, 0),
                name: childrenStatement.text(at: 1),
                value: Int(sqlite3_column_int64(childrenStatement, 2)),
                parentID: sqlite3_column_int64(childrenStatement, 3))
            if current?.id != child.parentID { current = byKey[child.parentID] }
            current?.children.append(child)
        }
    }
}
