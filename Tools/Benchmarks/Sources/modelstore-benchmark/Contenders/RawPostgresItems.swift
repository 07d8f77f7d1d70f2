import Foundation
import PostgresNIO

/// The raw postgres-nio contender's work on `Item` rows, batched: every row
/// of an insert or an update in one statement of arrays (`unnest`), every
/// row of a fetch from one SELECT, each read into a `PlainItem`.
enum RawPostgresItems {
    /// The rows of `bindings(_:)`'s six arrays, as a table.
    static let inputRows = "unnest($1::bigint[], $2::text[], $3::float8[], $4::bigint[], $5::float8[], $6::boolean[])"
    /// `Fixture.insertSQL` for PostgreSQL: every row in one statement.
    static let insertSQL = #"INSERT INTO "Item" ("number", "name", "score", "rank", "created", "flag") SELECT * FROM "#
        + inputRows
    /// `UpdateWorkload.updateSQL` for PostgreSQL: every row's new rank, by key, in one statement.
    static let updateRanksSQL = #"""
        UPDATE "Item" SET "rank" = new."rank"
        FROM unnest($1::bigint[], $2::bigint[]) AS new("_pk", "rank") WHERE "Item"."_pk" = new."_pk"
        """#
    /// The rows whose keys are in the array `$1`.
    static let selectByKeysSQL = Fixture.selectSQL + #" WHERE "_pk" = ANY($1::bigint[])"#

    /// The input rows as `insertSQL`'s six arrays (a Date as seconds since
    /// 1970 in a float8, as ModelStore stores it).
    static func bindings(_ rows: [InputRow]) -> PostgresBindings {
        var binds = PostgresBindings(capacity: 6)
        binds.append(rows.map { Int64($0.number) })
        binds.append(rows.map(\.name))
        binds.append(rows.map(\.score))
        binds.append(rows.map { Int64($0.rank) })
        binds.append(rows.map { $0.created.timeIntervalSince1970 })
        binds.append(rows.map(\.flag))
        return binds
    }

    /// Inserts `rows` in one statement (one transaction of its own).
    static func insert(_ rows: [InputRow], _ connection: PostgresConnection) throws {
        let result = try PostgresServer.query(connection, insertSQL, bindings(rows))
        try expect(result.metadata.rows ?? 0, rows.count, "rows inserted")
    }

    /// Writes each item's rank to its row, in one statement.
    static func updateRanks(_ items: [PlainItem], _ connection: PostgresConnection) throws {
        var binds = PostgresBindings(capacity: 2)
        binds.append(items.map(\.id))
        binds.append(items.map { Int64($0.rank) })
        let result = try PostgresServer.query(connection, updateRanksSQL, binds)
        try expect(result.metadata.rows ?? 0, items.count, "rows updated")
    }

    /// Every row, in key order.
    static func fetchAll(_ connection: PostgresConnection) throws -> [PlainItem] {
        try read(PostgresServer.query(connection, Fixture.selectSQL + #" ORDER BY "_pk""#))
    }

    /// The rows with these keys, in no particular order.
    static func fetch(keys: [Int64], _ connection: PostgresConnection) throws -> [PlainItem] {
        var binds = PostgresBindings(capacity: 1)
        binds.append(keys)
        return try read(PostgresServer.query(connection, selectByKeysSQL, binds))
    }

    /// The rows of a statement selecting `Fixture.selectSQL`'s columns.
    private static func read(_ result: PostgresQueryResult) throws -> [PlainItem] {
        var items: [PlainItem] = []
        items.reserveCapacity(result.rows.count)
        for row in result.rows {
            let (id, number, name, score, rank, created, flag) = try row.decode(
                (Int64, Int64, String, Double, Int64, Double, Bool).self)
            items.append(PlainItem(
                id: id, number: Int(number), name: name, score: score, rank: Int(rank),
                created: Date(timeIntervalSince1970: created), flag: flag))
        }
        return items
    }
}
