import Foundation
import ModelStore
import ModelStorePostgres
import PostgresNIO

/// The PostgreSQL twin of `Fixture`: stores in a fresh schema of their own
/// (`PostgresServer.makeSchema`), made by ModelStore so that every table is
/// exactly ModelStore's, filled with raw postgres-nio, and checks of what a
/// store holds.
enum PostgresFixture {
    /// `Fixture.fillSQL` for PostgreSQL, every row in one statement: the
    /// rows as ModelStore's saves write them (`_version` 2).
    static let fillSQL = #"INSERT INTO "Item" ("number", "name", "score", "rank", "created", "flag", "_version") SELECT *, 2 FROM "#
        + RawPostgresItems.inputRows

    /// A ModelStore store for `Item` in a new schema with rows 1...rows of
    /// `Dataset`; its container, and the schema's name.
    static func itemStore(_ scratch: Scratch, _ server: PostgresServer, rows: Int) throws
        -> (container: ModelContainer, schema: String)
    {
        let schema = try server.makeSchema(removedWith: scratch)
        let container = try ModelContainer(
            for: Item.self, configurations: PostgresConfiguration(url: server.url, databaseSchema: schema))
        if rows > 0 {
            let connection = try server.connect(schema: schema)
            defer { server.close(connection) }
            try PostgresServer.query(connection, fillSQL, RawPostgresItems.bindings(Dataset.input(rows: rows)))
        }
        return (container, schema)
    }

    /// A ModelStore store for `Parent` and `Child` in a new schema with
    /// parents 1...parents of `FamilyDataset` (row keys 1...parents), each
    /// with `childrenPerParent` children; its container, and the schema.
    static func familyStore(_ scratch: Scratch, _ server: PostgresServer, parents: Int, childrenPerParent: Int) throws
        -> (container: ModelContainer, schema: String)
    {
        let schema = try server.makeSchema(removedWith: scratch)
        let container = try ModelContainer(
            for: Parent.self, Child.self, configurations: PostgresConfiguration(url: server.url, databaseSchema: schema))
        guard parents > 0 else { return (container, schema) }
        let connection = try server.connect(schema: schema)
        defer { server.close(connection) }
        // Keys given, so that each child names its parent's; the sequence
        // then moves past them, as it must for ModelStore's next insert.
        var parentBinds = PostgresBindings()
        parentBinds.append((1...parents).map(Int64.init))
        parentBinds.append((1...parents).map(FamilyDataset.parentName))
        try PostgresServer.query(
            connection, #"INSERT INTO "Parent" ("_pk", "name") SELECT * FROM unnest($1::bigint[], $2::text[])"#, parentBinds)
        try PostgresServer.query(connection, #"SELECT setval(pg_get_serial_sequence('"Parent"', '_pk'), \#(parents))"#)
        let families = (1...parents).flatMap { i in (0..<childrenPerParent).map { j in (i, j) } }
        var childBinds = PostgresBindings()
        childBinds.append(families.map { FamilyDataset.childName($0.0, $0.1) })
        childBinds.append(families.map { Int64(FamilyDataset.childValue($0.0, $0.1)) })
        childBinds.append(families.map { Int64($0.0) })
        childBinds.append(families.map { Int64($0.1) })
        try PostgresServer.query(
            connection,
            #"""
            INSERT INTO "Child" ("name", "value", "parent", "_parent_order")
            SELECT * FROM unnest($1::text[], $2::bigint[], $3::bigint[], $4::bigint[])
            """#,
            childBinds)
        return (container, schema)
    }

    /// Throws unless the schema's "Item" holds exactly `rows` rows with this
    /// checksum, read on a new connection (what was committed).
    static func expectContents(_ server: PostgresServer, schema: String, rows: Int, checksum: Int) throws {
        let connection = try server.connect(schema: schema)
        defer { server.close(connection) }
        let items = try RawPostgresItems.fetchAll(connection)
        try expect(items.count, rows, "rows in the store")
        try expect(items.reduce(0) { $0 &+ Dataset.checksum($1) }, checksum, "checksum of the stored values")
    }
}
