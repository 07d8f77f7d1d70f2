extension TablePlanner {
    /// Brings each table's indexes in line with the new schema: a rebuilt or
    /// new table gets all of them; a kept table loses those no longer
    /// declared and gains the new ones (all of them are recreated when its
    /// name or a column was renamed, so that names and definitions match).
    mutating func planIndexes() throws {
        for entity in storage.new.entities {
            let desired = SchemaSQL.indexes(of: entity)
            var existing: [String] = []
            if let oldEntity = mapping.oldEntity(for: entity), !rebuilt.contains(entity.name) {
                let statement = try connection.prepare(
                    "SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL")
                try statement.bind(oldEntity.name, at: 1)
                while try statement.step() { existing.append(statement.string(at: 0)) }
            }
            let recreate = renamedTables.contains(entity.name)
            let desiredNames = Set(desired.map(\.name))
            for name in existing where recreate || !desiredNames.contains(name) {
                operations.append(.dropIndex(name))
            }
            for index in desired where recreate || !existing.contains(index.name) {
                operations.append(.createIndex(name: index.name, sql: index.sql))
            }
        }
    }
}
