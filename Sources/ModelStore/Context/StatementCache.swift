/// The context's prepared statements per entity and purpose.
///
/// The connection caches statements by SQL text, but hashing a long SQL
/// string for every saved or looked-up object costs more than the statement
/// takes to run; this cache is keyed by the entity's table and a small enum.
struct StatementCache {
    enum Purpose: Hashable {
        case insert
        case delete
        case selectByKey
        /// An UPDATE that sets the properties in the set.
        case update(PropertyBitSet)
    }

    private struct Key: Hashable {
        let table: ObjectIdentifier
        let purpose: Purpose
    }

    private var statements: [Key: Statement] = [:]

    /// The statement for `purpose` on `table`, prepared on first use from
    /// `sql()`. Callers reset it after use.
    /// - Throws: `SQLiteError` when the SQL does not compile.
    mutating func statement(
        _ purpose: Purpose, for table: EntityTable, on connection: Connection, sql: () -> String
    ) throws -> Statement {
        let key = Key(table: ObjectIdentifier(table), purpose: purpose)
        if let statement = statements[key] { return statement }
        let statement = try connection.prepare(sql())
        statements[key] = statement
        return statement
    }
}
