extension RelationshipsWorkload {
    /// Workload 7 on PostgreSQL, ModelStore prefetching (the faulting
    /// variant, a query per parent, is SQLite's only). Raw postgres-nio
    /// runs `RawFamilies`' two SELECTs and groups the children by hand.
    func postgres(_ server: PostgresServer) -> PostgresWorkload {
        PostgresWorkload(number: number, title: title) { scale in
            [
                Case(contender: .modelStorePostgres) { scratch in
                    let store = try PostgresFixture.familyStore(
                        scratch, server, parents: scale.parents, childrenPerParent: scale.childrenPerParent)
                    return try Self.modelStoreTrial(store.container, prefetching: true, scale: scale)
                },
                Case(contender: .rawPostgres) { scratch in
                    let schema = try PostgresFixture.familyStore(
                        scratch, server, parents: scale.parents, childrenPerParent: scale.childrenPerParent
                    ).schema
                    let connection = try server.connect(schema: schema, closedWith: scratch)
                    var fetched: [PlainParent] = []
                    var touched = FamilyDataset.Touched()
                    return Trial(run: {
                        fetched = try RawPostgresFamilies.fetchAll(connection)
                        touched = Self.touch(fetched)
                    }, check: {
                        try Self.expectFamilies(
                            fetched, touched, scale: scale, name: \.name, children: \.children, childName: \.name,
                            value: \.value)
                    })
                },
            ]
        }
    }
}
