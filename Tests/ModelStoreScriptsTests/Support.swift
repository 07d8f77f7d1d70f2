import Foundation
import Testing
@testable import ModelStore

// What the migration helpers shared with ModelStoreTests (the symbolic links
// in Migration/) need, as ModelStoreTests' Support.swift has it.

/// The folder that holds every test's temporary folder; removed when the
/// test process exits.
private let testRoot: URL = {
    let root = FileManager.default.temporaryDirectory.appending(path: "modelstore-scripts-tests-\(getpid())")
    atexit {
        let root = FileManager.default.temporaryDirectory.appending(path: "modelstore-scripts-tests-\(getpid())")
        try? FileManager.default.removeItem(at: root)
    }
    return root
}()

/// A fresh temporary folder per test.
struct TemporaryDirectory {
    let url: URL

    init() throws {
        url = testRoot.appending(path: UUID().uuidString)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func file(_ name: String = "test.store") -> URL { url.appending(path: name) }
}

/// Collects progress reports across the migration's thread.
final class StepRecorder: @unchecked Sendable {
    private let lock = NSLock()
    private var reports: [MigrationProgress] = []

    func add(_ progress: MigrationProgress) {
        lock.withLock { reports.append(progress) }
    }

    var steps: [String] { lock.withLock { reports.filter { $0.rowsCopied == nil }.map(\.step) } }
}
