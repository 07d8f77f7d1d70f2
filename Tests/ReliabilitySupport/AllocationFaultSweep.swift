import Foundation
import ModelStore

/// Fails SQLite's N-th memory allocation during a save, for every N (or
/// every `stride`-th), once or from then on. The save must throw or
/// succeed, never crash; the store must then hold exactly the state before
/// or after the save, be intact, and a retry on the same context must
/// succeed once allocations work again.
package struct AllocationFaultSweep {
    let folder: URL
    let script: SaveScript
    let stride: Int
    package private(set) var log = SweepLog()

    package init(folder: URL, script: SaveScript, stride: Int) {
        self.folder = folder
        self.script = script
        self.stride = max(1, stride)
    }

    /// Sweeps save `number` of the script.
    /// - Throws: `WorkerError` when the store cannot be set up without faults.
    package mutating func run(save number: Int) throws {
        let base = StoreFiles(url: folder.appending(path: "base.store"))
        let work = StoreFiles(url: folder.appending(path: "work.store"))
        var state = GraphState()
        do {
            let session = try SaveSession(base.url)
            for earlier in 1..<number {
                let edits = script.edits(forSave: earlier, from: state)
                try session.apply(edits)
                try session.save()
                state = state.applying(edits)
                session.forget(keeping: state)
            }
        }
        let edits = script.edits(forSave: number, from: state)
        let before = try StoreInspection.dump(base.path)
        try work.restore(from: base)
        do {
            let session = try SaveSession(work.url)
            try session.apply(edits)
            try session.save()
        }
        guard try GraphState.read(work.url) == state.applying(edits) else {
            throw WorkerError("save \(number) without faults left another state")
        }
        let after = try StoreInspection.dump(work.path)
        for persistent in [false, true] {
            var position = 1
            while try sweep(position, persistent: persistent, save: number, edits: edits, base: base, work: work, before: before, after: after) {
                position += stride
            }
        }
    }

    private mutating func sweep(
        _ position: Int, persistent: Bool, save number: Int, edits: [GraphEdit], base: StoreFiles, work: StoreFiles,
        before: [String: [String]], after: [String: [String]]
    ) throws -> Bool {
        let label = "save \(number), allocation #\(position) failing \(persistent ? "from then on" : "once")"
        try work.restore(from: base)
        var session: SaveSession? = try SaveSession(work.url)
        try session?.apply(edits)
        FailingAllocator.arm(failing: position, persistent: persistent)
        var failure: (any Error)?
        do {
            try session?.save()
        } catch {
            failure = error
        }
        let failed = FailingAllocator.disarm()
        guard failed > 0 else {
            if let failure { log.problem("\(label): failed without a failed allocation: \(failure)") }
            return false
        }
        log.countRun("allocation")
        if let failure {
            log.check(work, holds: before, "\(label): the save failed (\(failure)), so the store must be as before")
            do {
                try session?.save()
            } catch {
                log.problem("\(label): the retry failed: \(error)")
            }
        }
        session = nil
        log.check(work, holds: after, failure == nil ? "\(label): the save succeeded, so the store must hold all of it" : "\(label): after the retry")
        log.checkClosed(work, label)
        return true
    }
}
