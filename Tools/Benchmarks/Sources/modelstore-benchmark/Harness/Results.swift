/// What a run measured, as written to the JSON file.
struct RunResults: Codable {
    var machine: Machine
    /// ISO 8601, UTC.
    var date: String
    var smoke: Bool
    var scale: Scale
    /// Timed rounds (the warm-up round is not counted or recorded).
    var rounds: Int
    /// False when /proc/self/clear_refs could not reset the peak: peaks are
    /// then the process's peak since it started.
    var peakMemoryResetPerTimedPart: Bool
    var workloads: [WorkloadResults]
    /// The PostgreSQL runs of `--postgres`; absent without it.
    var postgres: PostgresResults?
    var failures: [String]
}

/// What `--postgres` measured: workloads 1-4 and 7 on the server, and the
/// network's share of each statement.
struct PostgresResults: Codable {
    /// The server's URL, without its password.
    var server: String
    /// The time of one `SELECT 1` from sending it to its answer, on one
    /// connection (`PostgresServer.roundTripSeconds`): what each statement
    /// costs beyond the server's own work; nil when it failed.
    var roundTripSeconds: Double?
    var workloads: [WorkloadResults]
}

struct WorkloadResults: Codable {
    var number: Int
    var title: String
    var baseline: ContenderName
    var target: String
    /// Nil when ModelStore did not run or failed.
    var targetMet: Bool?
    var contenders: [ContenderResults]
}

struct ContenderResults: Codable {
    var contender: ContenderName
    /// Seconds of the timed part, per timed round.
    var seconds: [Double] = []
    /// This contender's time over the baseline's in the same round.
    var ratios: [Double] = []
    /// Workloads 13-15: the time measured inside the run over its reference
    /// (see `InsideMeasurement`), per timed round.
    var referenceRatios: [Double] = []
    /// Peak resident bytes during the timed part, per timed round.
    var peakBytes: [Int] = []
    /// Minor page faults during the timed part, per timed round.
    var pageFaults: [Int] = []
    var medianSeconds: Double?
    var medianRatio: Double?
    var medianReferenceRatio: Double?
    var medianPeakBytes: Int?
    var medianPageFaults: Int?
    /// Errors and failed checks; a contender with any is wrong.
    var failures: [String] = []
}
