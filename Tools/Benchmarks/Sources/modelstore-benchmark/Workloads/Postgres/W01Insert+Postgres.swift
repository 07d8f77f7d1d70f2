extension InsertWorkload {
    /// Workload 1 on PostgreSQL. Raw postgres-nio turns the input rows into
    /// six arrays and inserts them with one `INSERT … SELECT * FROM
    /// unnest(…)` (one statement, so one transaction).
    func postgres(_ server: PostgresServer) -> PostgresWorkload {
        PostgresWorkload(number: number, title: title) { scale in
            let n = scale.rows
            let check = { (schema: String) in
                try PostgresFixture.expectContents(server, schema: schema, rows: n, checksum: Dataset.checksum(rows: n))
            }
            let rows = Dataset.input(rows: n)
            return [
                Case(contender: .modelStorePostgres) { scratch in
                    let store = try PostgresFixture.itemStore(scratch, server, rows: 0)
                    return try Self.modelStoreTrial(store.container, rows: rows) { try check(store.schema) }
                },
                Case(contender: .rawPostgres) { scratch in
                    let schema = try PostgresFixture.itemStore(scratch, server, rows: 0).schema
                    let connection = try server.connect(schema: schema, closedWith: scratch)
                    return Trial(run: {
                        try RawPostgresItems.insert(rows, connection)
                    }, check: {
                        try check(schema)
                    })
                },
            ]
        }
    }
}
