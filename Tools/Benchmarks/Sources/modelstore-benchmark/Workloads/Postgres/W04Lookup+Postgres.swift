import ModelStore

extension LookupWorkload {
    /// Workload 4 on PostgreSQL. Raw postgres-nio looks each repetition's
    /// 1,000 keys up with one SELECT (`"_pk" = ANY($1)`; one statement, so
    /// one snapshot, as the others' transaction per repetition).
    func postgres(_ server: PostgresServer) -> PostgresWorkload {
        PostgresWorkload(number: number, title: title) { scale in
            let lookups = Self.lookups(scale)
            return [
                Case(contender: .modelStorePostgres) { scratch in
                    try Self.modelStoreBatchedTrial(
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

    /// ModelStore's part on PostgreSQL: each repetition looks its 1,000
    /// identifiers up with one fetch in a fresh context
    /// (`identifiers.contains($0.persistentModelID)`, SwiftData's way to
    /// load many objects by identifier), as raw postgres-nio sends one
    /// SELECT; `model(for:)` one at a time would send a SELECT, a round
    /// trip, per identifier.
    static func modelStoreBatchedTrial(
        _ container: ModelContainer, keys: [Int64], repetitions: Int, check: @escaping (Int, Int) throws -> Void
    ) throws -> Trial {
        let identifiers = try Self.identifiers(of: keys, in: container)
        let descriptor = FetchDescriptor<Item>(predicate: #Predicate { identifiers.contains($0.persistentModelID) })
        var found: [Item] = []
        found.reserveCapacity(repetitions * keys.count)
        return Trial(run: {
            for _ in 0..<repetitions {
                found += try ModelContext(container).fetch(descriptor)
            }
        }, check: { try check(found.count, found.reduce(0) { $0 &+ Dataset.checksum($1) }) })
    }
}
