extension UpdateWorkload {
    /// Workload 3 on PostgreSQL. Raw postgres-nio fetches its `PlainItem`s
    /// untimed; timed, it changes each one's rank and writes them all with
    /// one `UPDATE … FROM unnest(keys, ranks)`.
    func postgres(_ server: PostgresServer) -> PostgresWorkload {
        PostgresWorkload(number: number, title: title) { scale in
            let n = scale.rows
            // Each row's rank goes up by one; rank counts 13 times in a row's checksum.
            let check = { (schema: String) in
                try PostgresFixture.expectContents(
                    server, schema: schema, rows: n, checksum: Dataset.checksum(rows: n) &+ 13 &* n)
            }
            return [
                Case(contender: .modelStorePostgres) { scratch in
                    let store = try PostgresFixture.itemStore(scratch, server, rows: n)
                    return try Self.modelStoreTrial(store.container) { try check(store.schema) }
                },
                Case(contender: .rawPostgres) { scratch in
                    let schema = try PostgresFixture.itemStore(scratch, server, rows: n).schema
                    let connection = try server.connect(schema: schema, closedWith: scratch)
                    let items = try RawPostgresItems.fetchAll(connection)
                    return Trial(run: {
                        for item in items { item.rank += 1 }
                        try RawPostgresItems.updateRanks(items, connection)
                    }, check: {
                        try check(schema)
                    })
                },
            ]
        }
    }
}
