import Foundation
import ModelStore
import ReliabilitySupport
import Testing

/// A worker opens a V1 store with V2's models and plan, whose migration
/// rebuilds both tables and rewrites every row in a custom stage; the test
/// kills it with SIGKILL at a random moment. After every kill the store must
/// be intact and hold exactly the V1 state or exactly the migrated state
/// (row for row, schema included), and opening it again must complete the
/// migration.
@Suite("Crash consistency: kills during a migration")
struct CrashDuringMigrationTests {
    @Test("Killed at random moments while migrating, the store is fully old or fully new, and reopening completes it")
    func killsDuringMigration() throws {
        let kills = isStressRun ? 500 : 20
        let trips = 1_500
        let folder = try temporaryFolder()
        let base = StoreFiles(url: folder.appending(path: "v1.store"))
        let work = StoreFiles(url: folder.appending(path: "work.store"))
        try TripContent.makeV1(at: base.url, count: trips)
        let old = try StoreInspection.dump(base.path)

        // One migration to its end: the state every migration must reach,
        // and how long one takes (from "opening" to "migrated": the
        // migration, its commit and the checkpoint when its connection
        // closes), to draw the moments of the kills from.
        try work.restore(from: base)
        let reference = try WorkerProcess(["migrate", "--store", work.path])
        try #require(reference.nextLine() == "opening")
        let start = ContinuousClock.now
        try #require(reference.nextLine() == "migrated")
        let migrationTime = ContinuousClock.now - start
        try #require(reference.finish().status == 0)
        try #require(try TripContent.readV2(work.url, options: Self.options) == TripContent.v2(count: trips))
        let new = try StoreInspection.dump(work.path)
        try #require(new != old)

        var outcomes = (old: 0, new: 0)
        // The pause before a kill is drawn up to `bound`, which follows the
        // outcomes (the machine's load changes how long a migration takes):
        // it grows a little after each kill that left V1 and shrinks more
        // after each that found the store migrated, so that about a quarter
        // of the kills land after the commit (in the checkpoint and the
        // closing) and the rest in the migration.
        var bound = migrationTime * 1.1
        for kill in 1...kills {
            try work.restore(from: base)
            let worker = try WorkerProcess(["migrate", "--store", work.path])
            if worker.nextLine() == "opening" { pause(upTo: bound) }
            worker.kill()
            let (killed, status) = worker.finish()
            let context = "kill \(kill) (\(worker.lines))"
            try #require(killed || status == 0, "\(context): the worker failed with \(status)")

            let problems = StoreInspection.problems(work.path)
            try #require(problems.isEmpty, "\(context): \(problems)")
            let dump = try StoreInspection.dump(work.path)
            if dump == old && !worker.lines.contains("migrated") {
                outcomes.old += 1
                bound = bound * 1.02
            } else if dump == new {
                outcomes.new += 1
                bound = bound * 0.94
            } else {
                Issue.record("\(context): the store is neither V1 nor migrated: \(StoreInspection.differences(dump, dump == old ? new : old))")
                return
            }
            #expect(try TripContent.readV2(work.url, options: Self.options) == TripContent.v2(count: trips), "\(context): reopening")
            #expect(try StoreInspection.dump(work.path) == new, "\(context): after reopening")
        }
        print("Crash consistency: \(kills) kills during a migration of \(trips * 3) rows; V1 left \(outcomes.old) times, migrated \(outcomes.new) times; every reopen completed it")
    }

    static var options: MigrationOptions {
        var options = MigrationOptions()
        options.takesSnapshot = false
        return options
    }
}
