/// The context's prepared statements per entity and purpose.
///
/// The connection caches statements by SQL text, but hashing a long SQL
/// string for every saved or looked-up object costs more than the statement
/// takes to run; this cache is keyed by the entity's table and a small enum.
struct StatementCache {
    enum Purpose: Hashable {
        case insert
        case selectByKey
        /// An UPDATE that sets the properties in the set.
        case update(PropertyBitSet)
    }

    private struct Key: Hashable {
        let table: ObjectIdentifier
        let purpose: Purpose
    }

    private var statements: [Key: Statement] = [:]
    /// The last statement handed out: a save asks for the same one for every
    /// object of an entity in a row, and comparing keys is cheaper than hashing.
    private var last: (key: Key, statement: Statement)?

    /// The statement for `purpose` on `table`, prepared on first use from
    /// `sql()`. Callers reset it after use.
    /// - Throws: `SQLiteError` when the SQL does not compile.
    mutating func statement(
        _ purpose: Purpose, for table: EntityTable, on connection: Connection, sql: () -> String
    ) throws -> Statement {
        let key = Key(table: ObjectIdentifier(table), purpose: purpose)
        if let last, last.key == key { return last.statement }
        let statement: Statement
        if let cached = statements[key] {
            statement = cached
        } else {
            statement = try connection.prepare(sql())
            statements[key] = statement
        }
        last = (key, statement)
        return statement
    }
}
