import Foundation
import Testing

/// The fault-injection sweeps run in the worker, which makes the failing
/// VFS (or allocator) SQLite's default in its own process only; the tests
/// check what it reports: one line per problem, and how many runs had a
/// fault injected. Each sweep is split into parts that run in parallel.
@Suite("Injected I/O and allocation faults")
struct FaultInjectionTests {
    /// Runs a sweep; records every problem it reports; returns its number of runs.
    private func sweep(_ arguments: [String]) throws -> Int {
        let lines = try WorkerProcess.run(arguments)
        for line in lines where line.hasPrefix("problem: ") || line.hasPrefix("error: ") { Issue.record(Comment(rawValue: line)) }
        let summary = try #require(lines.last(where: { $0.hasPrefix("done ") }), "the sweep did not finish: \(lines.suffix(3))")
        print("Fault injection, \(arguments.filter { !$0.hasPrefix("/") }.joined(separator: " ")): \(summary)")
        let fields = summary.split(separator: " ")
        return try #require(fields.firstIndex(of: "runs").flatMap { Int(fields[$0 + 1]) })
    }

    /// Saves 1–24 (CI) or 1–80 (stress), in parts.
    static let saveRanges = isStressRun ? ["1-20", "21-40", "41-60", "61-80"] : ["1-12", "13-24"]

    @Test(
        "An I/O fault at every position of a save: the outcome reported is right, the store intact, a retry succeeds",
        arguments: saveRanges)
    func faultsDuringSaves(saves: String) throws {
        let runs = try sweep(["save-faults", "--folder", try temporaryFolder().path(percentEncoded: false), "--seed", "7", "--saves", saves])
        // Each save has a few hundred positions (open, write, sync, truncate × once or from then on × IOERR or FULL).
        #expect(runs >= 150 * (ClosedRange(parsing: saves)?.count ?? 0))
    }

    @Test("An I/O fault at every position of a migration: the store is as before or migrated, and reopening completes it")
    func faultsDuringMigration() throws {
        let trips = isStressRun ? "600" : "150"
        let runs = try sweep(["migration-faults", "--folder", try temporaryFolder().path(percentEncoded: false), "--trips", trips])
        #expect(runs >= 150)
    }

    @Test(
        "A failed allocation at every position of a save: an error, never a crash; the store intact; a retry succeeds",
        arguments: isStressRun ? [6, 12, 24] : [6])
    func allocationFailures(save: Int) throws {
        let runs = try sweep([
            "allocation-faults", "--folder", try temporaryFolder().path(percentEncoded: false), "--seed", "7", "--save", "\(save)",
        ])
        #expect(runs >= 500)
    }
}

extension ClosedRange<Int> {
    /// "A-B".
    init?(parsing text: String) {
        let bounds = text.split(separator: "-").compactMap { Int($0) }
        guard bounds.count == 2, bounds[0] <= bounds[1] else { return nil }
        self = bounds[0]...bounds[1]
    }
}
