import Foundation
import ModelStore

// Filters and sort keys of the dynamic layer, compiled by the library's
// query compiler (`QuerySQLBuilder`), the same one that compiles #Predicate.

extension DynamicStore {
    /// Parses a filter and types it against `entity`.
    /// - Throws: `DynamicStoreError.invalidFilter` with the column of the
    ///   problem; `ModelStoreError.unknownProperty`.
    func filterExpression(_ filter: String, entity: Schema.Entity) throws -> QueryExpression {
        try FilterResolver(schema: schema).resolve(try FilterParser.parse(filter), entity: entity)
    }

    /// Checks a filter against `entity` without running it.
    /// - Throws: as `forEach` does for a bad filter.
    package func validateFilter(_ filter: String, entity: String) throws {
        let table = try table(named: entity)
        let expression = try filterExpression(filter, entity: table.entity)
        _ = try QuerySQLBuilder.count(schema: schema, entity: table.entity, where: expression)
    }

    /// Prepares the SQL compiled from a query with `filter`. The parser's
    /// limits keep every filter within what SQLite parses; should SQLite still
    /// refuse one as too complex (a build with a smaller parser stack), that
    /// is reported as a bad filter, not as a failure of the store.
    /// - Throws: `DynamicStoreError.invalidFilter` for a filter SQLite finds
    ///   too complex; `SQLiteError` for anything else.
    func prepareFiltered(_ sql: String, filter: String?) throws -> Statement {
        do {
            return try connection.prepare(sql)
        } catch {
            // SQLite's messages for a statement beyond its limits: its
            // parser's stack (YYSTACKDEPTH), expression depth
            // (SQLITE_MAX_EXPR_DEPTH) and bound parameters (SQLITE_MAX_VARIABLE_NUMBER).
            let tooComplex = ["parser stack overflow", "Expression tree is too large", "too many SQL variables"]
            guard filter != nil, error.primaryCode == SQLiteError.error, tooComplex.contains(where: error.message.hasPrefix) else {
                throw error
            }
            throw DynamicStoreError.invalidFilter(
                column: 1, reason: "the filter is too complex for SQLite (\(error.message)); nest it less deeply or split it")
        }
    }

    /// Sort keys (`name`, `trip.name:desc`, `id`) as orderings.
    /// - Throws: `DynamicStoreError.invalidSort`.
    func orderings(_ keys: [String]) throws -> [QueryOrdering] {
        try keys.map { text in
            var name = Substring(text)
            var descending = false
            if let colon = text.lastIndex(of: ":") {
                switch text[text.index(after: colon)...].lowercased() {
                case "desc": descending = true
                case "asc": break
                default: throw DynamicStoreError.invalidSort(text, reason: "write KEY, KEY:asc or KEY:desc")
                }
                name = text[..<colon]
            }
            let path = name.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            guard !path.contains(where: \.isEmpty) else {
                throw DynamicStoreError.invalidSort(text, reason: "expected a property name")
            }
            if path == ["id"] { return QueryOrdering(key: .identifier, descending: descending) }
            return QueryOrdering(key: .property(PropertyReference(path: path)), descending: descending)
        }
    }

    /// The SELECT of a query: `table.selectSQL`'s columns, then one count
    /// per to-many relationship starting at `countColumn`.
    func selectStatement(_ query: DynamicQuery, table: EntityTable) throws -> (sql: String, bindings: [SQLiteValue], countColumn: Int32) {
        let condition = try query.filter.map { try filterExpression($0, entity: table.entity) }
        let orderings = try orderings(query.sort)
        let countExpressions: (String) -> [String] = { alias in
            table.entity.relationships.filter(\.isToMany).map { relationship in
                RelationshipSQL.countExpression(
                    relationship, inverse: self.inverse(of: relationship),
                    holderKey: "\(alias).\(quoteIdentifier(primaryKeyColumn))",
                    destinationTable: self.schema.tableName(of: relationship.destination)) ?? "0"
            }
        }
        let compiled = try QuerySQLBuilder.select(
            schema: schema, entity: table.entity,
            columns: { alias in
                ([SchemaSQL.selectColumns(table.slots, qualifier: alias)] + countExpressions(alias)).joined(separator: ", ")
            },
            where: condition, orderBy: orderings, limit: query.limit, offset: query.offset,
            ownRowsOnly: !query.includesSubentities)
        return (compiled.sql, compiled.bindings, Int32(table.slots.count + 1))
    }

    /// ` WHERE …` (as the compiler's count query has it) for `countSQL`.
    func countQuery(_ filter: String?, table: EntityTable) throws -> CompiledQuery {
        let condition = try filter.map { try filterExpression($0, entity: table.entity) }
        return try QuerySQLBuilder.count(schema: schema, entity: table.entity, where: condition)
    }
}
