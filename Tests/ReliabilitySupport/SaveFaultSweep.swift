import Foundation
import ModelStore

/// Injects an I/O fault at every position of a save: for each file
/// operation (open, write, sync, truncate), failing once or from then on,
/// with SQLITE_IOERR or SQLITE_FULL, at position 1, 2, … until the save
/// no longer reaches that position. The faulted span is what an app does:
/// open the store, fetch, edit, save, and (after a successful save) close,
/// where SQLite checkpoints the WAL into the database file.
///
/// After each run: the store is intact; it holds exactly the state before
/// the save when the save threw, and exactly the state after it when the
/// save returned; a retry of the same save (on the same context, its
/// changes still pending) succeeds once the faults stop; and no connection
/// is left open.
package struct SaveFaultSweep {
    let folder: URL
    let script: SaveScript
    package private(set) var log = SweepLog()

    package init(folder: URL, script: SaveScript) {
        self.folder = folder
        self.script = script
    }

    /// Sweeps saves `saves` of the script, each from the state the saves before it leave.
    /// - Throws: `WorkerError` when the store cannot be set up without faults.
    package mutating func run(saves: ClosedRange<Int>) throws {
        let base = StoreFiles(url: folder.appending(path: "base.store"))
        let work = StoreFiles(url: folder.appending(path: "work.store"))
        var state = GraphState()
        do {
            let session = try SaveSession(base.url)
            for number in 1..<saves.lowerBound {
                let edits = script.edits(forSave: number, from: state)
                try session.apply(edits)
                try session.save()
                state = state.applying(edits)
                session.forget(keeping: state)
            }
        }
        for number in saves {
            let edits = script.edits(forSave: number, from: state)
            let after = state.applying(edits)
            let before = try StoreInspection.dump(base.path)
            try work.restore(from: base)
            do {
                let session = try SaveSession(work.url)
                try session.apply(edits)
                try session.save()
            }
            let read = try GraphState.read(work.url)
            guard read == after else {
                throw WorkerError("save \(number) without faults left another state: \(read.differences(from: after))")
            }
            let saved = try StoreInspection.dump(work.path)
            for operation in FileOperation.allCases {
                for persistent in [false, true] {
                    for diskFull in [false, true] {
                        var position = 1
                        let plan = { FaultPlan(operation: operation, position: position, persistent: persistent, diskFull: diskFull) }
                        while try sweep(plan(), save: number, edits: edits, base: base, work: work, before: before, after: saved) {
                            position += 1
                        }
                    }
                }
            }
            try base.restore(from: work)
            state = after
        }
    }

    /// One run; false when the fault was never injected (the save has no
    /// operation at that position).
    private mutating func sweep(
        _ plan: FaultPlan, save number: Int, edits: [GraphEdit], base: StoreFiles, work: StoreFiles, before: [String: [String]],
        after: [String: [String]]
    ) throws -> Bool {
        let label = "save \(number), \(plan)"
        try work.restore(from: base)
        FaultVFS.arm(plan)
        var session: SaveSession?
        var saveBegan = false
        var failure: (any Error)?
        do {
            session = try SaveSession(work.url)
            try session?.apply(edits)
            saveBegan = true
            try session?.save()
            // Closed with the faults still armed: the checkpoint at close may fail too.
            session = nil
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
            log.check(work, holds: before, "\(label): the save failed (\(failure)), so the store must be as before")
            do {
                if saveBegan, let session {
                    try session.save()
                } else {
                    session = nil
                    let fresh = try SaveSession(work.url)
                    try fresh.apply(edits)
                    try fresh.save()
                }
            } catch {
                log.problem("\(label): the retry without faults failed: \(error)")
            }
            session = nil
            log.check(work, holds: after, "\(label): after the retry")
        } else {
            log.check(work, holds: after, "\(label): the save succeeded, so the store must hold all of it")
        }
        log.checkClosed(work, label)
        return true
    }
}
