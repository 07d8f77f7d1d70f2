import ModelStore

/// PostgreSQL's spelling of what ModelStore's SQL needs: quoted names,
/// numbered placeholders, column types, insert with `RETURNING`, upsert with
/// `ON CONFLICT`.
///
/// Its shape is meant to become a protocol of the library beside SQLite's
/// dialect once the backend seam exists (see Overview.swift); until then
/// only this target uses it. Pure string building: names are quoted, values
/// are always bound (`$1`, `$2`…).
package struct PostgresDialect: Sendable {
    /// The dialect (it has no settings yet).
    package init() {}

    /// PostgreSQL's longest name, in bytes (NAMEDATALEN - 1). A longer name
    /// is silently truncated by the server, so that two long names could
    /// become one: `quote` refuses them instead.
    package static let maximumIdentifierBytes = 63

    /// A name quoted for SQL (`"Trip"`, `"say ""hi"""`).
    /// - Throws: `ModelStoreError.invalidSchema` when the name is longer than
    ///   PostgreSQL keeps or holds a NUL, which no PostgreSQL name can.
    package func quote(_ name: String) throws(ModelStoreError) -> String {
        guard name.utf8.count <= Self.maximumIdentifierBytes else {
            throw .invalidSchema(
                reason: "the name \(name) has \(name.utf8.count) bytes; PostgreSQL keeps only "
                    + "\(Self.maximumIdentifierBytes) and would cut it")
        }
        guard !name.utf8.contains(0) else {
            throw .invalidSchema(reason: "the name \(name.debugDescription) holds a NUL character, which PostgreSQL names cannot")
        }
        return quoteIdentifier(name)
    }

    /// The placeholder of the `index`th bound value (1-based): `$1`.
    package func placeholder(_ index: Int) -> String { "$\(index)" }

    /// The column type that holds an attribute of `kind` exactly.
    ///
    /// A Date is `double precision` seconds since 1970-01-01 UTC, as in a
    /// SQLite store, not `timestamptz`, which keeps only microseconds (see
    /// `PostgresValues`); `to_timestamp("column")` reads it as a timestamp.
    ///
    /// Narrow integers get the smallest PostgreSQL integer that holds them,
    /// with a CHECK for the rest of the range (`checkRange`). Codable values
    /// are `json`, not `jsonb`: jsonb reorders an object's keys (shorter
    /// keys first) and drops duplicate ones, so a value read back would not
    /// be the text ModelStore wrote (compact, keys sorted), which the
    /// dynamic layer compares as text; jsonb also refuses `\u0000` in a
    /// string, which JSON and Swift allow. json keeps the text and still
    /// checks that it is JSON.
    package func columnType(_ kind: ValueKind) -> String {
        switch kind {
        case .bool: "boolean"
        case .int8, .int16, .uint8: "smallint"
        case .int32, .uint16: "integer"
        case .int, .int64, .uint, .uint32, .uint64: "bigint"
        case .double: "double precision"
        case .float: "real"
        case .string, .url: "text"
        case .date: "double precision"
        case .uuid: "uuid"
        case .data: "bytea"
        case .decimal: "numeric"
        case .codable: "json"
        }
    }

    /// The values a column of `kind` may hold when its PostgreSQL type holds
    /// more (Int8 in a smallint, the unsigned types); nil when the type is
    /// the range. UInt and UInt64 stop at Int64.max, as in SQLite.
    package func checkRange(_ kind: ValueKind) -> ClosedRange<Int64>? {
        switch kind {
        case .int8: Int64(Int8.min)...Int64(Int8.max)
        case .uint8: 0...Int64(UInt8.max)
        case .uint16: 0...Int64(UInt16.max)
        case .uint32: 0...Int64(UInt32.max)
        case .uint, .uint64: 0...Int64.max
        default: nil
        }
    }

    /// `INSERT … VALUES ($1, …) RETURNING …`: one row, its generated columns
    /// (the key) returned in the same round trip.
    /// - Throws: `ModelStoreError.invalidSchema` for a name PostgreSQL cannot hold.
    package func insert(into table: String, columns: [String], returning: [String] = []) throws(ModelStoreError) -> String {
        let names = try columns.map { name throws(ModelStoreError) in try quote(name) }
        let values = columns.indices.map { placeholder($0 + 1) }
        let head = "INSERT INTO \(try quote(table)) (\(names.joined(separator: ", "))) VALUES (\(values.joined(separator: ", ")))"
        return head + (try returningClause(returning))
    }

    /// An insert that updates the row that holds the same `conflictColumns`
    /// values instead (`ON CONFLICT (…) DO UPDATE SET c = EXCLUDED.c`), or
    /// leaves it (`DO NOTHING`) when `update` is empty. The conflict columns
    /// must be those of a unique constraint of the table.
    /// - Throws: `ModelStoreError.invalidSchema` for a name PostgreSQL cannot hold.
    package func upsert(
        into table: String, columns: [String], conflictColumns: [String], update: [String], returning: [String] = []
    ) throws(ModelStoreError) -> String {
        let names = try columns.map { name throws(ModelStoreError) in try quote(name) }
        let values = columns.indices.map { placeholder($0 + 1) }
        let conflict = try conflictColumns.map { name throws(ModelStoreError) in try quote(name) }.joined(separator: ", ")
        let action: String
        if update.isEmpty {
            action = "DO NOTHING"
        } else {
            let sets = try update.map { name throws(ModelStoreError) in
                let quoted = try quote(name)
                return "\(quoted) = EXCLUDED.\(quoted)"
            }
            action = "DO UPDATE SET \(sets.joined(separator: ", "))"
        }
        return "INSERT INTO \(try quote(table)) (\(names.joined(separator: ", "))) VALUES (\(values.joined(separator: ", "))) "
            + "ON CONFLICT (\(conflict)) \(action)" + (try returningClause(returning))
    }

    private func returningClause(_ columns: [String]) throws(ModelStoreError) -> String {
        guard !columns.isEmpty else { return "" }
        return " RETURNING " + (try columns.map { name throws(ModelStoreError) in try quote(name) }).joined(separator: ", ")
    }
}
