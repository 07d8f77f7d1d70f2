extension FetchWorkload {
    /// Workload 2 on PostgreSQL. Raw postgres-nio runs one SELECT and reads
    /// every row into a `PlainItem`.
    func postgres(_ server: PostgresServer) -> PostgresWorkload {
        PostgresWorkload(number: number, title: title) { scale in
            let n = scale.rows
            let check = Self.check(rows: n)
            return [
                Case(contender: .modelStorePostgres) { scratch in
                    try Self.modelStoreTrial(
                        try PostgresFixture.itemStore(scratch, server, rows: n).container, check: check)
                },
                Case(contender: .rawPostgres) { scratch in
                    let schema = try PostgresFixture.itemStore(scratch, server, rows: n).schema
                    let connection = try server.connect(schema: schema, closedWith: scratch)
                    var items: [PlainItem] = []
                    return Trial(run: {
                        items = try RawPostgresItems.fetchAll(connection)
                    }, check: {
                        try check(items.count, items.reduce(0) { $0 &+ Dataset.checksum($1) })
                    })
                },
            ]
        }
    }
}
