/// The tables, indexes, views and triggers of a store's main database, as
/// `sqlite_schema` lists them: what a script's SQL block must leave alone.
///
/// After each script the migrator writes the schema record that `store-tool`
/// and later migrations read. Model operations change it with the tables;
/// an SQL block runs as it is, so a table or index it made, dropped or
/// altered would leave the record wrong (and a later rebuild would drop
/// what the record does not list). The block is compared before and after,
/// and a change is an error, which rolls the script back.
package struct SchemaObjects: Equatable {
    struct Object: Equatable {
        let type: String
        let name: String
        let sql: String
    }

    let objects: [Object]

    /// Reads the objects of `connection`'s main database.
    /// - Throws: `SQLiteError`.
    package init(_ connection: Connection) throws(SQLiteError) {
        let statement = try connection.prepare("SELECT type, name, sql FROM sqlite_schema ORDER BY type, name")
        var objects: [Object] = []
        while try statement.step() {
            objects.append(Object(type: statement.string(at: 0), name: statement.string(at: 1), sql: statement.string(at: 2)))
        }
        self.objects = objects
    }

    /// What changed from `self` to `later`, in words ("created index
    /// \"Trip.byName\"", "altered table \"Trip\""); nil when nothing did.
    package func changes(to later: SchemaObjects) -> String? {
        func key(_ object: Object) -> String { object.type + " \"" + object.name + "\"" }
        let before = Dictionary(objects.map { (key($0), $0) }, uniquingKeysWith: { first, _ in first })
        let after = Dictionary(later.objects.map { (key($0), $0) }, uniquingKeysWith: { first, _ in first })
        var changes: [String] = []
        for object in later.objects {
            guard let earlier = before[key(object)] else {
                changes.append("created \(key(object))")
                continue
            }
            if earlier.sql != object.sql { changes.append("altered \(key(object))") }
        }
        for object in objects where after[key(object)] == nil { changes.append("dropped \(key(object))") }
        return changes.isEmpty ? nil : changes.joined(separator: ", ")
    }
}
