/// The SQL text (DDL) for a schema's tables. Pure string building: names are
/// always quoted with `quoteIdentifier`, and no value is ever spliced in.
enum SchemaSQL {
    /// `CREATE TABLE` for one entity: an AUTOINCREMENT primary key, so that a
    /// deleted object's identifier is never given to a new object, then one
    /// column per attribute. STRICT makes SQLite itself refuse a value of the
    /// wrong type, even from a tool that is not ModelStore.
    static func createTable(_ entity: Schema.Entity) -> String {
        var columns = ["\(quoteIdentifier(primaryKeyColumn)) INTEGER PRIMARY KEY AUTOINCREMENT"]
        for attribute in entity.attributes {
            columns.append(columnDefinition(attribute))
        }
        return "CREATE TABLE \(quoteIdentifier(entity.name)) (\(columns.joined(separator: ", "))) STRICT"
    }

    static func columnDefinition(_ attribute: Schema.Attribute) -> String {
        var definition = "\(quoteIdentifier(attribute.name)) \(attribute.kind.columnType)"
        if !attribute.isOptional { definition += " NOT NULL" }
        if attribute.isUnique { definition += " UNIQUE" }
        return definition
    }

    /// `SELECT _pk, a, b, … FROM "Entity"`: the primary key at column 0, then
    /// every attribute at column ordinal + 1, which is what `PersistentRow` reads.
    static func selectAll(_ entity: Schema.Entity) -> String {
        let columns = [primaryKeyColumn] + entity.attributes.map(\.name)
        return "SELECT \(columns.map(quoteIdentifier).joined(separator: ", ")) FROM \(quoteIdentifier(entity.name))"
    }
}
