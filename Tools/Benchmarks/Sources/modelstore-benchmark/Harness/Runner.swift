import Foundation

/// Runs workloads round by round: one warm-up round that is discarded, then
/// the timed rounds, then one memory round. The contenders' order rotates
/// each round, so none is always first (cold) or last. Each contender
/// prepares in a fresh scratch folder, untimed; then its timed part runs;
/// then its work is checked, untimed.
///
/// Peak memory is measured in a round of its own, because measuring it
/// disturbs what is timed: the heap's free memory is handed back to the
/// system first (`malloc_trim`), so that the peak is the part's own, and the
/// part then pays a page fault for each page it allocates. On this VM such
/// faults made the raw C contender's fetch of 100,000 rows take 28 to 49 ms
/// from run to run (22 ms with a warm heap), and they weigh on every
/// contender by how much it allocates, not by the work it does.
///
/// The timed rounds count the timed part's minor page faults: memory that
/// the heap had to take from the system, which a contender pays for by the
/// memory it needs beyond what the heap kept from earlier rounds (on this VM,
/// a few microseconds a page). A contender whose time is much above its
/// instruction count's share shows it here.
struct Runner {
    let scale: Scale
    let rounds: Int
    /// Contenders to run; all when empty.
    var only: Set<ContenderName> = []
    let log: (String) -> Void

    func run(_ workload: any Workload) -> WorkloadResults {
        let cases = workload.cases(scale: scale).filter { only.isEmpty || only.contains($0.contender) }
        var results = cases.map { ContenderResults(contender: $0.contender) }
        for round in 0...rounds {
            let isWarmUp = round == 0
            log("  workload \(workload.number), \(isWarmUp ? "warm-up" : "round \(round)/\(rounds)")")
            var seconds: [ContenderName: Double] = [:]
            for index in rotated(Array(cases.indices), by: round) {
                let outcome = measure(cases[index])
                switch outcome {
                case .success(let measurement):
                    guard !isWarmUp else { continue }
                    seconds[cases[index].contender] = measurement.seconds
                    results[index].seconds.append(measurement.seconds)
                    if let ratio = measurement.referenceRatio { results[index].referenceRatios.append(ratio) }
                    if let faults = measurement.pageFaults { results[index].pageFaults.append(faults) }
                case .failure(let error):
                    let message = "workload \(workload.number), \(cases[index].contender.rawValue), round \(round): \(error)"
                    log("  FAILED: \(message)")
                    results[index].failures.append(message)
                }
            }
            if let base = seconds[workload.baseline], base > 0 {
                for index in results.indices {
                    if let own = seconds[results[index].contender] { results[index].ratios.append(own / base) }
                }
            }
        }
        log("  workload \(workload.number), memory round")
        for index in cases.indices {
            switch measure(cases[index], measuringMemory: true) {
            case .success(let measurement):
                if let peak = measurement.peakBytes { results[index].peakBytes.append(peak) }
            case .failure(let error):
                let message = "workload \(workload.number), \(cases[index].contender.rawValue), memory round: \(error)"
                log("  FAILED: \(message)")
                results[index].failures.append(message)
            }
        }
        for index in results.indices {
            let result = results[index]
            if !result.seconds.isEmpty { results[index].medianSeconds = median(result.seconds) }
            if !result.ratios.isEmpty { results[index].medianRatio = median(result.ratios) }
            if !result.referenceRatios.isEmpty { results[index].medianReferenceRatio = median(result.referenceRatios) }
            if !result.peakBytes.isEmpty { results[index].medianPeakBytes = Int(median(result.peakBytes.map(Double.init))) }
            if !result.pageFaults.isEmpty { results[index].medianPageFaults = Int(median(result.pageFaults.map(Double.init))) }
        }
        let subject = results.first { $0.contender == workload.subject }
        let met = subject.flatMap { result -> Bool? in
            guard result.failures.isEmpty, let seconds = result.medianSeconds else { return nil }
            return workload.target.isMet(
                medianSeconds: seconds, medianRatio: result.medianRatio, medianPeakBytes: result.medianPeakBytes,
                medianReferenceRatio: result.medianReferenceRatio)
        }
        return WorkloadResults(
            number: workload.number, title: workload.title, baseline: workload.baseline,
            target: workload.target.label, targetMet: met, contenders: results)
    }

    private struct Measurement {
        let seconds: Double
        let peakBytes: Int?
        let pageFaults: Int?
        /// Workloads 13-15: see `InsideMeasurement`.
        var referenceRatio: Double? = nil
    }

    /// One run of a contender's part: its time, and its peak memory when
    /// `measuringMemory` (then the time is not comparable; see the type).
    private func measure(_ testCase: Case, measuringMemory: Bool = false) -> Result<Measurement, any Error> {
        let scratch: Scratch
        do { scratch = try Scratch.make() } catch { return .failure(error) }
        defer { scratch.remove() }
        return Result {
            let trial = try testCase.prepare(scratch)
            if measuringMemory { Memory.resetPeak() }
            let faultsBefore = Memory.minorFaults()
            let start = monotonicSeconds()
            try timedPart(trial.run)
            let seconds = monotonicSeconds() - start
            let faultsAfter = Memory.minorFaults()
            let peak = measuringMemory ? Memory.peakBytes() : nil
            try trial.check()
            let faults = faultsBefore.flatMap { before in faultsAfter.map { $0 - before } }
            if let inside = trial.measuredInside?() {
                return Measurement(
                    seconds: inside.seconds, peakBytes: peak, pageFaults: faults,
                    referenceRatio: inside.reference > 0 ? inside.seconds / inside.reference : nil)
            }
            return Measurement(seconds: seconds, peakBytes: peak, pageFaults: faults)
        }
    }

    /// The timed part, as one named function so that a profiler can collect
    /// it alone: `valgrind --tool=callgrind --toggle-collect='*timedPart*'`.
    @inline(never)
    private func timedPart(_ run: () throws -> Void) rethrows {
        try run()
    }

    private func rotated<T>(_ values: [T], by round: Int) -> [T] {
        guard !values.isEmpty else { return values }
        let shift = round % values.count
        return Array(values[shift...] + values[..<shift])
    }
}
