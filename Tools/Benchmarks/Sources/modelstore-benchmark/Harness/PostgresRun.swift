/// `--postgres`: the round trip of one statement, then workloads 1-4 and 7
/// on the server, with the same runner (rounds, rotation, checks) as on
/// SQLite.
func runOnPostgres(_ server: PostgresServer, _ workloads: [PostgresWorkload], runner: Runner) -> PostgresResults {
    let name = PostgresServer.redacted(server.url)
    runner.log("PostgreSQL at \(name): \(workloads.count) workloads")
    if workloads.isEmpty { runner.log("note: none of the selected workloads runs on PostgreSQL (1, 2, 3, 4 and 7 do)") }
    var roundTrip: Double?
    do {
        roundTrip = try server.roundTripSeconds()
    } catch {
        // Every workload then fails to connect too, and says so.
        runner.log("  FAILED: the round trip to \(name): \(error)")
    }
    return PostgresResults(server: name, roundTripSeconds: roundTrip, workloads: workloads.map { runner.run($0) })
}

extension Report {
    /// The PostgreSQL table of `--postgres`, with what its ratios are to
    /// and the round trip of one statement.
    static func postgresSection(_ postgres: PostgresResults) -> String {
        let roundTrip = postgres.roundTripSeconds.map(formatDuration) ?? "not measured (see the log)"
        return """
            PostgreSQL at \(postgres.server), each contender's round in a schema of its own
            ratio: median of per-round ratios to raw postgres-nio (batched: arrays through unnest, one SELECT)
            round trip: \(roundTrip) per statement (SELECT 1 on one connection, median of 7 loops of 1,000)

            \(table(postgres.workloads))
            """
    }
}
