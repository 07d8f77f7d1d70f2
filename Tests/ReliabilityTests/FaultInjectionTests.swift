import Foundation
import Testing

/// The fault-injection sweeps run in the worker, which makes the failing
/// VFS (or allocator) SQLite's default in its own process only; the tests
/// check what it reports: one line per problem, and how many runs had a
/// fault injected.
@Suite("Injected I/O and allocation faults")
struct FaultInjectionTests {
    /// Runs a sweep; records every problem it reports; returns its number of runs.
    private func sweep(_ arguments: [String]) throws -> Int {
        let lines = try WorkerProcess.run(arguments)
        for line in lines where line.hasPrefix("problem: ") || line.hasPrefix("error: ") { Issue.record(Comment(rawValue: line)) }
        let summary = try #require(lines.last(where: { $0.hasPrefix("done ") }), "the sweep did not finish: \(lines.suffix(3))")
        let fields = summary.split(separator: " ")
        return try #require(fields.firstIndex(of: "runs").flatMap { Int(fields[$0 + 1]) })
    }

    @Test("An I/O fault at every position of a save: the outcome reported is right, the store intact, a retry succeeds")
    func faultsDuringSaves() throws {
        let saves = isStressRun ? "1-40" : "1-8"
        let runs = try sweep(["save-faults", "--folder", try temporaryFolder().path(percentEncoded: false), "--seed", "7", "--saves", saves])
        #expect(runs >= (isStressRun ? 20_000 : 3_000))
        print("Injected I/O faults: \(runs) runs over saves \(saves)")
    }

    @Test("An I/O fault at every position of a migration: the store is as before or migrated, and reopening completes it")
    func faultsDuringMigration() throws {
        let trips = isStressRun ? "400" : "60"
        let runs = try sweep(["migration-faults", "--folder", try temporaryFolder().path(percentEncoded: false), "--trips", trips])
        #expect(runs >= (isStressRun ? 2_000 : 500))
        print("Injected I/O faults: \(runs) runs over a migration of \(trips) trips")
    }

    @Test("A failed allocation at every position of a save: an error, never a crash; the store intact; a retry succeeds")
    func allocationFailures() throws {
        let arguments = isStressRun ? ["--save", "12", "--stride", "1"] : ["--save", "6", "--stride", "1"]
        let runs = try sweep(["allocation-faults", "--folder", try temporaryFolder().path(percentEncoded: false), "--seed", "7"] + arguments)
        #expect(runs >= 100)
        print("Failed allocations: \(runs) runs")
    }
}
