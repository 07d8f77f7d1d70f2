/// One benchmark workload: a numbered task from issue 3, the contenders that
/// perform it, and the target ModelStore must meet.
///
/// To add a workload, add one file to `Workloads/` with a type conforming to
/// `Workload` and list it in `Catalog.all`.
protocol Workload {
    /// The workload's number in issue 3.
    var number: Int { get }
    /// A short description for the table.
    var title: String { get }
    /// What ModelStore must achieve.
    var target: Target { get }
    /// The contender the ratios are computed against (usually raw C).
    var baseline: ContenderName { get }
    /// The contender that must meet the target (ModelStore, or ModelStore
    /// on PostgreSQL).
    var subject: ContenderName { get }
    /// The cases, one per contender; contenders that cannot do the work
    /// meaningfully are left out and show as "—".
    func cases(scale: Scale) -> [Case]
}

extension Workload {
    var baseline: ContenderName { .rawC }
    var subject: ContenderName { .modelStore }
}

/// The contenders, in the order the table lists them.
enum ContenderName: String, CaseIterable, Codable {
    case modelStore = "ModelStore"
    /// ModelStore loading relationships on first access instead of
    /// prefetching them (workload 7; no target).
    case modelStoreFaulting = "ModelStore, faulting"
    case rawC = "raw SQLite C"
    /// Raw C filling objects that each allocate a second, state-sized
    /// object (workload 2; a diagnostic, no target).
    case rawCWithState = "raw C + state object"
    case grdbStatement = "GRDB Statement"
    case grdbRecord = "GRDB Record"
    case observable = "@Observable class"
    case plainClass = "plain class"
    /// The SQLite contender's model code with a `PostgresConfiguration`
    /// (`--postgres`).
    case modelStorePostgres = "ModelStore on PostgreSQL"
    /// Hand-written postgres-nio, batched (`--postgres`): the baseline of
    /// the PostgreSQL workloads.
    case rawPostgres = "raw postgres-nio"
}

/// What a workload's ModelStore contender must achieve.
enum Target {
    /// At most this multiple of the baseline's time (median of per-round ratios).
    case ratio(Double)
    /// Under this many milliseconds (median time).
    case underMilliseconds(Double)
    /// A peak resident memory of the timed part under this many MiB (median
    /// of the rounds' peaks; unmet where /proc cannot tell).
    case peakUnderMebibytes(Double)
    /// What the run measured inside itself (`Trial.measuredInside`) at most
    /// this multiple of its own reference (median of per-round ratios);
    /// `reference` names the reference for the table.
    case withinReference(Double, reference: String)

    var label: String {
        switch self {
        case .ratio(let ratio): "≤\(formatRatio(ratio))×"
        case .underMilliseconds(let ms): "<\(formatNumber(ms)) ms"
        case .peakUnderMebibytes(let mebibytes): "<\(formatNumber(mebibytes)) MiB peak"
        case .withinReference(let ratio, let reference): "≤\(formatRatio(ratio))× \(reference)"
        }
    }

    func isMet(medianSeconds: Double, medianRatio: Double?, medianPeakBytes: Int?, medianReferenceRatio: Double?) -> Bool {
        switch self {
        case .ratio(let limit): (medianRatio ?? .infinity) <= limit
        case .underMilliseconds(let ms): medianSeconds * 1000 < ms
        case .peakUnderMebibytes(let mebibytes): medianPeakBytes.map { Double($0) < mebibytes * 1_048_576 } ?? false
        case .withinReference(let limit, _): (medianReferenceRatio ?? .infinity) <= limit
        }
    }
}

/// One contender's way of doing a workload.
struct Case {
    let contender: ContenderName
    /// Untimed setup in a fresh scratch folder: creates files, loads objects,
    /// and returns the timed part with its check.
    let prepare: (Scratch) throws -> Trial
}

/// The prepared work of one contender in one round.
struct Trial {
    /// The timed part.
    let run: () throws -> Void
    /// Untimed, after `run`: throws `CheckFailure` when the work was wrong.
    let check: () throws -> Void
    /// For a workload that times parts of its run itself (workloads 13-15):
    /// read after `run`, reported instead of the run's wall time.
    var measuredInside: (() -> InsideMeasurement)? = nil
}

/// What a trial timed inside its run, and the reference its target holds
/// it against, timed in the same run: the reader's fetch alone (13), one
/// task doing all the saves (14), the save that the merge follows (15).
struct InsideMeasurement {
    /// Reported as the contender's time.
    let seconds: Double
    /// The same run's reference time; the round's reference ratio is
    /// `seconds / reference`.
    let reference: Double
}

/// How big the workloads are: the sizes, or tiny ones for `--smoke`.
struct Scale: Codable {
    /// Rows (objects) for workloads 1, 2, 3 and 5.
    var rows: Int
    /// Distinct objects looked up per repetition in workload 4.
    var lookups: Int
    /// Repetitions of the lookups in workload 4.
    var lookupRepetitions: Int
    /// Property writes in workload 10.
    var propertySets: Int
    /// Parents in workload 7.
    var parents: Int
    /// Children of each parent in workload 7 (at most 1,000).
    var childrenPerParent: Int
    /// Rows in the store of workload 6 and of workload 8's larger size
    /// (workload 8's smaller size is a tenth of it).
    var largeRows: Int
    /// `enumerate`'s batch size in workload 8.
    var enumerationBatch: Int
    /// Rows of the table that workload 11 migrates.
    var migrationRows: Int = 1_000_000
    /// Members of the to-many that workload 12 appends to.
    var toManyMembers: Int = 10_000
    /// Workload 13: rows the reader fetches, and the writer changes in each
    /// of its saves.
    var readerRows: Int = 1_000
    /// Workload 13: the writer's saves.
    var writerSaves: Int = 20
    /// Workload 14: saves of one change by each of the 4 tasks (one task
    /// makes 4 times as many).
    var savesPerTask: Int = 1_000
    /// Workload 15: objects changed by the save that the other context,
    /// holding `rows` objects, merges.
    var mergedChanges: Int = 1_000

    static let full = Scale(
        rows: 100_000, lookups: 1_000, lookupRepetitions: 100, propertySets: 1_000_000, parents: 10_000, childrenPerParent: 10,
        largeRows: 1_000_000, enumerationBatch: 5_000)
    static let smoke = Scale(
        rows: 200, lookups: 100, lookupRepetitions: 3, propertySets: 1_000, parents: 20, childrenPerParent: 3,
        largeRows: 2_000, enumerationBatch: 64, migrationRows: 200, toManyMembers: 200,
        readerRows: 50, writerSaves: 3, savesPerTask: 20, mergedChanges: 20)

    /// Scales every size in proportion to a new row count.
    func withRows(_ rows: Int) -> Scale {
        var copy = self
        copy.rows = rows
        copy.lookups = min(lookups, rows)
        copy.parents = max(1, parents * rows / self.rows)
        copy.migrationRows = max(1, migrationRows * rows / self.rows)
        copy.toManyMembers = max(1, toManyMembers * rows / self.rows)
        copy.largeRows = max(1, largeRows * rows / self.rows)
        copy.readerRows = min(readerRows, rows)
        copy.savesPerTask = max(1, min(savesPerTask, rows / 4))
        copy.mergedChanges = max(1, mergedChanges * rows / self.rows)
        return copy
    }
}
