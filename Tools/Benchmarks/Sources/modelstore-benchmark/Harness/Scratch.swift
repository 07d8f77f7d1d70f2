import Foundation

/// A fresh temporary folder for one contender's round; removed afterwards.
struct Scratch {
    let folder: URL

    /// The store file every contender uses: `store.sqlite` in the folder.
    var storeURL: URL { folder.appending(path: "store.sqlite") }
    var storePath: String { storeURL.path(percentEncoded: false) }

    static func make() throws -> Scratch {
        let folder = FileManager.default.temporaryDirectory
            .appending(path: "modelstore-benchmark-\(UUID().uuidString)", directoryHint: .isDirectory)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return Scratch(folder: folder)
    }

    func remove() {
        try? FileManager.default.removeItem(at: folder)
    }
}
