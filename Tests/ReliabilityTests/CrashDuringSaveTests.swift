import Foundation
import ModelStore
import ReliabilitySupport
import Testing

/// A worker saves a graph in a loop (inserts, edits, relationship moves,
/// deletes that cascade), printing "began N" before and "saved N" after each
/// save; the test kills it with SIGKILL at a random moment, checks the
/// store, and starts a new worker on the same store, so that any damage
/// would accumulate. After every kill the store must open, pass
/// `integrity_check` and the store's own check, and hold exactly the state
/// after the last save the worker reported finished, or after the one in
/// flight, complete. The expected states are recomputed here from the seed.
@Suite("Crash consistency: kills during saves")
struct CrashDuringSaveTests {
    @Test("Killed at random moments while saving, the store holds the last save reported, or the one in flight, complete")
    func killsDuringSaves() throws {
        let kills = isStressRun ? 5_000 : 200
        let seed = UInt64.random(in: 1...UInt64(UInt32.max))
        let script = SaveScript(seed: seed)
        let store = try temporaryFolder().appending(path: "graph.store")
        let path = store.path(percentEncoded: false)
        // The state after `last` saves: what the store held at the last check.
        var last = 0
        var state = GraphState()
        // Saves take a few milliseconds; the pause before a kill is drawn up
        // to about twice the time a save takes here, so that kills land
        // anywhere in a save, between saves, and in checkpoints.
        var saveTime = Duration.milliseconds(5)
        var outcomes = (finished: 0, inFlight: 0)
        for kill in 1...kills {
            let context = "seed \(seed), kill \(kill), after save \(last)"
            let worker = try WorkerProcess(["saves", "--store", path, "--seed", "\(seed)", "--from", "\(last)", "--count", "100000"])
            // Mostly a few saves before the kill; every eighth round enough
            // for the WAL to pass 1,000 pages, where SQLite checkpoints it
            // into the database file in the middle of the run.
            let target = last + (kill % 8 == 0 ? Int.random(in: 20...45) : Int.random(in: 1...3))
            var began = last
            var saved = last
            var start = ContinuousClock.now
            while let line = worker.nextLine() {
                if line.hasPrefix("began "), let number = Int(line.dropFirst(6)) {
                    began = number
                    start = .now
                    if number == target {
                        pause(upTo: saveTime * 2)
                        worker.kill()
                        break
                    }
                } else if line.hasPrefix("saved "), let number = Int(line.dropFirst(6)) {
                    saved = number
                    saveTime = (saveTime * 7 + (ContinuousClock.now - start)) / 8
                }
            }
            let (killed, status) = worker.finish()
            // Lines printed after the one the kill followed were read by finish().
            for line in worker.lines {
                if line.hasPrefix("began "), let number = Int(line.dropFirst(6)) { began = max(began, number) }
                if line.hasPrefix("saved "), let number = Int(line.dropFirst(6)) { saved = max(saved, number) }
            }
            try #require(killed, "\(context): the worker ended by itself with \(status): \(worker.lines.suffix(3))")
            try #require(began == saved || began == saved + 1, "\(context): began \(began), saved \(saved)")

            let problems = StoreInspection.problems(path)
            try #require(problems.isEmpty, "\(context): \(problems)")
            let actual = try GraphState.read(store)
            if saved > last {
                for number in (last + 1)...saved { state = script.state(afterSave: number, from: state) }
            }
            if actual == state {
                outcomes.finished += 1
                last = saved
            } else if began > saved, actual == script.state(afterSave: began, from: state) {
                outcomes.inFlight += 1
                state = actual
                last = began
            } else {
                let differences = actual.differences(from: state).joined(separator: "; ")
                Issue.record("\(context): the store holds neither the state after save \(saved) nor the one after save \(began): \(differences)")
                return
            }
        }
        print("Crash consistency: \(kills) kills during \(last) saves (seed \(seed)); the store held the last save reported finished \(outcomes.finished) times, the save in flight \(outcomes.inFlight) times")
    }
}
