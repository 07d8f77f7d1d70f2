import Foundation

// Shared with ModelStoreScriptsTests through a symbolic link.

/// The folder that holds every test's temporary folder; removed when the
/// test process exits. (Removing each folder when its value is released
/// would be too early: Swift may release a value after its last use, while
/// a container still works in the folder.)
private let testRoot: URL = {
    let root = FileManager.default.temporaryDirectory.appending(path: "modelstore-tests-\(getpid())")
    atexit {
        let root = FileManager.default.temporaryDirectory.appending(path: "modelstore-tests-\(getpid())")
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
