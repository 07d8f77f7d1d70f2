import Foundation
import ModelStore

/// Injects an I/O fault at every position of a migration (V1 → V2 of the
/// trips store, every step and table operation of it), as `SaveFaultSweep`
/// does for a save. After each run: the store is intact and holds exactly
/// the V1 state when opening threw, exactly the migrated state when it
/// returned; opening it again without faults completes the migration.
package struct MigrationFaultSweep {
    let folder: URL
    let trips: Int
    package private(set) var log = SweepLog()

    package init(folder: URL, trips: Int) {
        self.folder = folder
        self.trips = trips
    }

    static var options: MigrationOptions {
        var options = MigrationOptions()
        // Snapshots are another test's subject.
        options.takesSnapshot = false
        return options
    }

    /// - Throws: `WorkerError` when the stores cannot be set up without faults.
    package mutating func run() throws {
        let base = StoreFiles(url: folder.appending(path: "v1.store"))
        let work = StoreFiles(url: folder.appending(path: "work.store"))
        try TripContent.makeV1(at: base.url, count: trips)
        let old = try StoreInspection.dump(base.path)
        try work.restore(from: base)
        let migrated = try TripContent.readV2(work.url, options: Self.options)
        guard migrated == TripContent.v2(count: trips) else { throw WorkerError("the migration without faults left other content") }
        let new = try StoreInspection.dump(work.path)
        for operation in FileOperation.allCases {
            for persistent in [false, true] {
                for diskFull in [false, true] {
                    var position = 1
                    let plan = { FaultPlan(operation: operation, position: position, persistent: persistent, diskFull: diskFull) }
                    while try sweep(plan(), base: base, work: work, old: old, new: new) { position += 1 }
                }
            }
        }
    }

    private mutating func sweep(_ plan: FaultPlan, base: StoreFiles, work: StoreFiles, old: [String: [String]], new: [String: [String]])
        throws -> Bool
    {
        let label = "migration, \(plan)"
        try work.restore(from: base)
        var configuration = ModelConfiguration(url: work.url)
        configuration.migrationOptions = Self.options
        FaultVFS.arm(plan)
        var failure: (any Error)?
        do {
            // Released at once: its connections close with the faults still armed.
            _ = try ModelContainer(
                for: TripsV2.Trip.self, TripsV2.Stop.self, migrationPlan: TripsPlan.self, configurations: configuration)
        } catch {
            failure = error
        }
        let injected = FaultVFS.disarm()
        guard injected > 0 else {
            if let failure { log.problem("\(label): failed without an injected fault: \(failure)") }
            return false
        }
        log.countRun(plan.operation.rawValue)
        if let failure {
            log.check(work, holds: old, "\(label): opening failed (\(failure)), so the store must be as before")
        } else {
            log.check(work, holds: new, "\(label): opening succeeded, so the store must be migrated")
        }
        do {
            let content = try TripContent.readV2(work.url, options: Self.options)
            if content != TripContent.v2(count: trips) { log.problem("\(label): reopening left other content") }
        } catch {
            log.problem("\(label): reopening without faults failed: \(error)")
        }
        log.check(work, holds: new, "\(label): after reopening")
        log.checkClosed(work, label)
        return true
    }
}
