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
    /// The last statement handed out, with its table and purpose: a save asks
    /// for the same one for every object of an entity in a row, and comparing
    /// them in place is cheaper than hashing, or than copying a key out.
    private var lastTable: ObjectIdentifier?
    private var lastPurpose: Purpose = .insert
    private var lastStatement: Statement?

    /// The statement for `purpose` on `table`, prepared on first use from
    /// `sql()`. Callers reset it after use.
    ///
    /// The check against the last statement is always inlined: a save asks
    /// for a statement per object, and left to the inliner (whose choice
    /// moves with the size of the save's loop) the call and the retain and
    /// release around it cost more than the check.
    /// - Throws: `SQLiteError` when the SQL does not compile.
    @inline(__always)
    mutating func statement(
        _ purpose: Purpose, for table: EntityTable, on connection: Connection, sql: () -> String
    ) throws -> Statement {
        if let lastStatement, lastTable == ObjectIdentifier(table), lastPurpose == purpose { return lastStatement }
        return try cachedStatement(purpose, for: table, on: connection, sql: sql)
    }

    /// `statement(_:for:on:sql:)` when the statement is not the last one.
    /// - Throws: `SQLiteError` when the SQL does not compile.
    @inline(never)
    private mutating func cachedStatement(
        _ purpose: Purpose, for table: EntityTable, on connection: Connection, sql: () -> String
    ) throws -> Statement {
        let key = Key(table: ObjectIdentifier(table), purpose: purpose)
        let statement: Statement
        if let cached = statements[key] {
            statement = cached
        } else {
            statement = try connection.prepare(sql())
            statements[key] = statement
        }
        lastTable = key.table
        lastPurpose = purpose
        lastStatement = statement
        return statement
    }
}
