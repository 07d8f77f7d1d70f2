/// Shrinks a failing sequence of steps by delta debugging (Zeller and
/// Hildebrandt's ddmin, on complements): it drops ever smaller chunks of
/// steps while the rest still fails the same way, until no single step can
/// be dropped. Steps name their objects by serial, so a step whose objects
/// were dropped is skipped rather than misread (see `MBOracle.apply`).
enum MBShrinker {
    /// The shortest sequence found that still fails with `signature`, and
    /// its failure. `fails` runs a sequence; `budget` bounds how many runs
    /// the search may take (the result is then smaller, not minimal).
    static func shrink(
        _ steps: [MBStep], failure: MBFailure, budget: Int = 3_000, fails: ([MBStep]) -> MBFailure?
    ) -> (steps: [MBStep], failure: MBFailure) {
        // The steps after the failure cannot matter.
        var current = Array(steps.prefix(failure.step + 1))
        var currentFailure = failure
        var granularity = 2
        var runs = 0
        while current.count > 1 && runs < budget {
            let chunk = (current.count + granularity - 1) / granularity
            var reduced = false
            for start in stride(from: 0, to: current.count, by: chunk) where runs < budget {
                var candidate = current
                candidate.removeSubrange(start..<min(start + chunk, current.count))
                runs += 1
                if let found = fails(candidate), found.signature == failure.signature {
                    current = Array(candidate.prefix(found.step + 1))
                    currentFailure = found
                    granularity = max(granularity - 1, 2)
                    reduced = true
                    break
                }
            }
            if !reduced {
                if granularity >= current.count { break }
                granularity = min(granularity * 2, current.count)
            }
        }
        return (current, currentFailure)
    }
}
