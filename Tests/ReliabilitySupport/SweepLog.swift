import Foundation

/// Counts a sweep's runs and prints its problems, one line each
/// ("problem: …"), for the test to report.
package struct SweepLog {
    /// Runs in which at least one fault was injected.
    private(set) var runs = 0
    private(set) var problems = 0
    /// Runs by what failed ("write", "allocation"), for the summary.
    private var runsByKind: [String: Int] = [:]

    mutating func countRun(_ kind: String) {
        runs += 1
        runsByKind[kind, default: 0] += 1
    }

    mutating func problem(_ text: String) {
        problems += 1
        say("problem: \(text)")
    }

    /// Checks that the store is intact and holds exactly `expected` (a dump).
    mutating func check(_ files: StoreFiles, holds expected: [String: [String]], _ label: String) {
        do {
            // One connection for both: each connection that opens and closes
            // the store creates and deletes its WAL and shared-memory files.
            let connection = try RawConnection(files.path)
            for line in try StoreInspection.integrityProblems(connection) { problem("\(label): \(line)") }
            let dump = try StoreInspection.dump(connection)
            if dump != expected {
                problem("\(label): the store holds another state: " + StoreInspection.differences(dump, expected).joined(separator: "; "))
            }
        } catch {
            problem("\(label): the store cannot be read: \(error)")
        }
        for line in StoreInspection.storeProblems(files.path) { problem("\(label): \(line)") }
    }

    /// Checks that no connection to the store is left open.
    mutating func checkClosed(_ files: StoreFiles, _ label: String) {
        let open = files.openDescriptors()
        if open > 0 { problem("\(label): \(open) file descriptors on the store are still open after its last context went away") }
    }

    /// "done runs 230 problems 0 (open 8, write 200, …)": the line the tests read.
    package var summary: String {
        "done runs \(runs) problems \(problems) (" + runsByKind.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ") + ")"
    }
}
