import GRDB

/// Workload 7 with GRDB's Statement API: the raw C contender's two queries
/// through cached statements and row cursors, into the same plain objects.
enum GRDBFamilies {
    static func fetchAll(_ db: Database) throws -> [PlainParent] {
        var parents: [PlainParent] = []
        var byKey: [Int64: PlainParent] = [:]
        let parentRows = try Row.fetchCursor(db.cachedStatement(sql: RawFamilies.parentsSQL))
        while let row = try parentRows.next() {
            let parent = PlainParent(id: row[0], name: row[1])
            parents.append(parent)
            byKey[parent.id] = parent
        }
        var current: PlainParent?
        let childRows = try Row.fetchCursor(db.cachedStatement(sql: RawFamilies.childrenSQL))
        while let row = try childRows.next() {
            let child = PlainChild(id: row[0], name: row[1], value: row[2], parentID: row[3])
            if current?.id != child.parentID { current = byKey[child.parentID] }
            current?.children.append(child)
        }
        return parents
    }
}
