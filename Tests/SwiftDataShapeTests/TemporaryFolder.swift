import Foundation

/// A fresh folder per test. All of them live under one folder per test
/// process, removed when the process exits: removing each when its value is
/// released would be too early, since Swift may release a value after its
/// last use while a container still works in the folder.
struct TemporaryFolder {
    private static let root: URL = {
        atexit {
            let root = FileManager.default.temporaryDirectory.appending(path: "swiftdata-shapes-\(getpid())")
            try? FileManager.default.removeItem(at: root)
        }
        return FileManager.default.temporaryDirectory.appending(path: "swiftdata-shapes-\(getpid())")
    }()

    let url: URL

    init() throws {
        url = Self.root.appending(path: UUID().uuidString)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func file(_ name: String) -> URL { url.appending(path: name) }
}
