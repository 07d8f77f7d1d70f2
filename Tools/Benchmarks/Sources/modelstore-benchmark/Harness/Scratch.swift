import Foundation
import Synchronization

/// A fresh temporary folder for one contender's round; removed afterwards,
/// with whatever else the round made outside it (a PostgreSQL schema).
struct Scratch {
    let folder: URL
    private let cleanups = Cleanups()

    /// The store file every contender uses: `store.sqlite` in the folder.
    var storeURL: URL { folder.appending(path: "store.sqlite") }
    var storePath: String { storeURL.path(percentEncoded: false) }

    static func make() throws -> Scratch {
        let folder = FileManager.default.temporaryDirectory
            .appending(path: "modelstore-benchmark-\(UUID().uuidString)", directoryHint: .isDirectory)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return Scratch(folder: folder)
    }

    /// Runs `cleanup` when the scratch is removed, after the round, whether
    /// it succeeded or not; the last added runs first.
    func atRemoval(_ cleanup: @escaping @Sendable () -> Void) {
        cleanups.list.withLock { $0.append(cleanup) }
    }

    func remove() {
        let pending = cleanups.list.withLock { list in
            defer { list = [] }
            return list.reversed()
        }
        for cleanup in pending { cleanup() }
        try? FileManager.default.removeItem(at: folder)
    }

    /// A class, so that every copy of the scratch adds to the same list.
    private final class Cleanups: Sendable {
        let list = Mutex<[@Sendable () -> Void]>([])
    }
}
