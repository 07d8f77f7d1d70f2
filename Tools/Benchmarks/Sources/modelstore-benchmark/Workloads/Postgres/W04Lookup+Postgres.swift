extension LookupWorkload {
    /// Workload 4 on PostgreSQL. Raw postgres-nio looks each repetition's
    /// 1,000 keys up with one SELECT (`"_pk" = ANY($1)`; one statement, so
    /// one snapshot, as the others' transaction per repetition).
    func postgres(_ server: PostgresServer) -> PostgresWorkload {
        PostgresWorkload(number: number, title: title) { scale in
            let lookups = Self.lookups(scale)
            return [
                Case(contender: .modelStorePostgres) { scratch in
                    try Self.modelStoreTrial(
                        try PostgresFixture.itemStore(scratch, server, rows: scale.rows).container, keys: lookups.keys,
                        repetitions: lookups.repetitions, check: lookups.check)
                },
                Case(contender: .rawPostgres) { scratch in
                    let schema = try PostgresFixture.itemStore(scratch, server, rows: scale.rows).schema
                    let connection = try server.connect(schema: schema, closedWith: scratch)
                    var found: [PlainItem] = []
                    found.reserveCapacity(lookups.repetitions * lookups.keys.count)
                    return Trial(run: {
                        for _ in 0..<lookups.repetitions {
                            found += try RawPostgresItems.fetch(keys: lookups.keys, connection)
                        }
                    }, check: {
                        try lookups.check(found.count, found.reduce(0) { $0 &+ Dataset.checksum($1) })
                    })
                },
            ]
        }
    }
}
