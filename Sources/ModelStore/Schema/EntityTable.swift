/// An entity together with the SQL that reads and writes its table, built
/// once per container and shared by every context and object of the entity.
final class EntityTable: Sendable {
    let entity: Schema.Entity
    /// `SELECT _pk, a, b, … FROM "Entity"` (no WHERE).
    let selectSQL: String
    /// Selects one row by primary key.
    let selectByKeySQL: String
    /// Inserts every attribute and returns the row's key. For an entity with
    /// unique attributes it is an upsert: a conflicting row is updated instead,
    /// and its key returned, as SwiftData does for `.unique`.
    let insertSQL: String
    let deleteSQL: String
    let countSQL: String

    var name: String { entity.name }

    init(entity: Schema.Entity) {
        self.entity = entity
        let table = quoteIdentifier(entity.name)
        let key = quoteIdentifier(primaryKeyColumn)
        selectSQL = SchemaSQL.selectAll(entity)
        selectByKeySQL = "\(selectSQL) WHERE \(key) = ?"
        let columns = entity.attributes.map { quoteIdentifier($0.name) }
        var insert: String
        if columns.isEmpty {
            insert = "INSERT INTO \(table) DEFAULT VALUES"
        } else {
            let placeholders = Array(repeating: "?", count: columns.count).joined(separator: ", ")
            insert = "INSERT INTO \(table) (\(columns.joined(separator: ", "))) VALUES (\(placeholders))"
        }
        if entity.attributes.contains(where: \.isUnique) {
            // The conflict target may be omitted on the last ON CONFLICT clause
            // (SQLite 3.35+): any unique column that conflicts turns the insert
            // into an update of that row.
            let assignments = columns.map { "\($0) = excluded.\($0)" }.joined(separator: ", ")
            insert += " ON CONFLICT DO UPDATE SET \(assignments)"
        }
        insertSQL = insert + " RETURNING \(key)"
        deleteSQL = "DELETE FROM \(table) WHERE \(key) = ?"
        countSQL = "SELECT count(*) FROM \(table)"
    }

    /// `UPDATE "Entity" SET a = ?, c = ? WHERE _pk = ?` for the given ordinals,
    /// in ascending order. One statement shape per set of changed properties.
    func updateSQL(ordinals: [Int]) -> String {
        let assignments = ordinals.map { "\(quoteIdentifier(entity.attributes[$0].name)) = ?" }
        return "UPDATE \(quoteIdentifier(entity.name)) SET \(assignments.joined(separator: ", ")) WHERE \(quoteIdentifier(primaryKeyColumn)) = ?"
    }
}
