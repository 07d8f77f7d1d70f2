import ModelStore

/// The inferred (lightweight) migrations a PostgreSQL store runs when it
/// is opened with a schema that only adds to the stored one: new entities,
/// new optional attributes, new relationships, new indexes. The DDL runs in
/// the bootstrap's transaction, under its advisory lock, together with the
/// new schema record: PostgreSQL's DDL is transactional, so a failure
/// leaves the store as it was, and of several servers that start at once
/// with the new schema, one migrates and the others find it done.
///
/// Anything else (a removal, a rename, a type or optionality change, a new
/// unique constraint, a class hierarchy's change, a new non-optional
/// attribute of a table that has rows) is refused with
/// `ModelStoreError.schemaMismatch` listing every difference, as a SQLite
/// store with no migration for it is: migrations beyond the additive forms
/// do not run on PostgreSQL yet.
struct PostgresAdditiveMigration {
    let stored: Schema
    let expected: Schema
    let displayPath: String
    let dialect = PostgresDialect()

    /// The statements that bring the store from `stored` to `expected`.
    /// - Parameter rowCount: the number of rows of a stored table.
    /// - Throws: `ModelStoreError.schemaMismatch` when a difference is not
    ///   additive or not yet supported here.
    func statements(rowCount: (String) throws -> Int) throws -> [String] {
        let differences = expected.differences(from: stored)
        let (layout, discriminated) = try expected.resolvingRelationships().storageLayout()
        let tables = Dictionary(uniqueKeysWithValues: layout.entities.map { ($0.name, $0) })
        // A class hierarchy shares one table: additions there are not yet
        // planned on PostgreSQL.
        let inHierarchy = Set(expected.entities.filter { $0.superentityName != nil }.flatMap { [$0.name, $0.superentityName ?? ""] })
        var refused: [SchemaDifference] = []
        var creates: [String] = []
        var alters: [String] = []
        var indexes: [String] = []
        var foreignKeys: [String] = []
        func table(_ name: String) -> Schema.Entity? { inHierarchy.contains(name) ? nil : tables[name] }
        for difference in differences {
            switch difference {
            case .entityAdded(let name):
                guard let entity = table(name) else {
                    refused.append(difference)
                    continue
                }
                creates.append(try PostgresSchemaSQL.createTable(entity, discriminated: discriminated.contains(name), dialect: dialect))
                indexes += try PostgresSchemaSQL.indexes(of: entity, dialect: dialect)
                foreignKeys += try PostgresSchemaSQL.foreignKeys(of: entity, dialect: dialect)
                creates += try joinTables(of: entity, relationships: entity.relationships.map(\.name))
            case .attributeAdded(let entityName, let name):
                let isEmpty = try rowCount(entityName) == 0
                guard let entity = table(entityName), let attribute = entity.attributes.first(where: { $0.name == name }),
                    !attribute.isUnique, attribute.isOptional || isEmpty
                else {
                    refused.append(difference)
                    continue
                }
                alters.append(
                    "ALTER TABLE \(try dialect.quote(entityName)) ADD COLUMN "
                        + (try PostgresSchemaSQL.columnDefinition(attribute, dialect: dialect)))
            case .relationshipAdded(let entityName, let name):
                guard let entity = table(entityName), let relationship = entity.relationships.first(where: { $0.name == name }),
                    table(relationship.destination) != nil
                else {
                    refused.append(difference)
                    continue
                }
                switch relationship.storage {
                case .foreignKey(let column, let orderColumn):
                    guard !differences.contains(.entityAdded(entityName)) else { continue }
                    let quoted = try dialect.quote(entityName)
                    alters.append("ALTER TABLE \(quoted) ADD COLUMN \(try dialect.quote(column)) bigint")
                    if let orderColumn { alters.append("ALTER TABLE \(quoted) ADD COLUMN \(try dialect.quote(orderColumn)) bigint") }
                    indexes += try PostgresSchemaSQL.indexes(of: entity, dialect: dialect).filter { $0.contains("\"\(entityName).\(column)\"") }
                    foreignKeys += try PostgresSchemaSQL.foreignKeys(of: entity, dialect: dialect).filter {
                        $0.contains("\"\(entityName).\(column).fkey\"")
                    }
                case .joinTable:
                    guard !differences.contains(.entityAdded(entityName)) else { continue }
                    creates += try joinTables(of: entity, relationships: [name])
                default:
                    continue
                }
            case .indexAdded(let entityName, let attributes):
                guard table(entityName) != nil else {
                    refused.append(difference)
                    continue
                }
                let name = Schema.Entity.indexName(entityName, attributes)
                let columns = try attributes.map { name throws(ModelStoreError) in try dialect.quote(name) }.joined(separator: ", ")
                indexes.append("CREATE INDEX \(try dialect.quote(name)) ON \(try dialect.quote(entityName)) (\(columns))")
            default:
                refused.append(difference)
            }
        }
        guard refused.isEmpty else { throw ModelStoreError.schemaMismatch(path: displayPath, differences: refused) }
        return creates + alters + indexes + foreignKeys
    }

    /// The join tables that `entity` is the source of, among `relationships`.
    private func joinTables(of entity: Schema.Entity, relationships: [String]) throws -> [String] {
        var statements: [String] = []
        for relationship in entity.relationships where relationships.contains(relationship.name) {
            guard case .joinTable(let name, isSource: true) = relationship.storage else { continue }
            statements += try PostgresSchemaSQL.createJoinTable(name, source: entity.name, target: relationship.destination, dialect: dialect)
        }
        return statements
    }
}
