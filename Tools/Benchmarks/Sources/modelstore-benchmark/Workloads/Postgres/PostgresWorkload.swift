/// One of workloads 1-4 and 7 on PostgreSQL (`--postgres URL`), in the
/// same run as on SQLite: ModelStore with the SQLite contender's model
/// code and a `PostgresConfiguration` against hand-written postgres-nio
/// doing the same work batched, each in a fresh schema of its own per
/// round. The target is issue 24's, 1.5× the raw contender, for every one.
struct PostgresWorkload: Workload {
    let number: Int
    let title: String
    let target = Target.ratio(1.5)
    var baseline: ContenderName { .rawPostgres }
    var subject: ContenderName { .modelStorePostgres }
    /// The ModelStore case and the raw postgres-nio case, at a scale.
    let makeCases: (Scale) -> [Case]

    func cases(scale: Scale) -> [Case] { makeCases(scale) }

    /// The workloads that run on PostgreSQL too, in issue order.
    static func all(_ server: PostgresServer) -> [PostgresWorkload] {
        [
            InsertWorkload().postgres(server),
            FetchWorkload().postgres(server),
            UpdateWorkload().postgres(server),
            LookupWorkload().postgres(server),
            RelationshipsWorkload().postgres(server),
        ]
    }
}
