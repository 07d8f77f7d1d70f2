import Foundation
@testable import ModelStore

// What a migration leaves beside a store, read by the snapshot tests.
// Shared with ModelStoreScriptsTests through a symbolic link.

/// The name a snapshot of the example store (test.store) starts with.
let snapshotPrefix = "test-before-migration-"

/// The names in the store's folder other than the store's own files.
func leftovers(_ url: URL) throws -> [String] {
    let store = url.lastPathComponent
    return try FileManager.default.contentsOfDirectory(atPath: url.deletingLastPathComponent().path(percentEncoded: false))
        .filter { ![store, store + "-wal", store + "-shm"].contains($0) }.sorted()
}

/// The snapshot files in the store's folder, by name.
func snapshotNames(_ url: URL) throws -> [String] {
    try leftovers(url).filter { $0.hasPrefix(snapshotPrefix) && $0.hasSuffix(".store") }
}

/// The snapshot paths the history records, in order, without repeats.
func recordedSnapshots(_ url: URL) throws -> [String] {
    var seen = Set<String>()
    return try StoreFile(url: url).rows("SELECT snapshot FROM _modelstore_migrations WHERE snapshot IS NOT NULL ORDER BY id")
        .compactMap { row -> String? in
            guard case .text(let path) = row[0], seen.insert(path).inserted else { return nil }
            return path
        }
}

/// The store's identifier, as its metadata holds it.
func storeIdentifier(_ url: URL) throws -> String {
    guard case .text(let identifier)? = try StoreFile(url: url).metadata("storeIdentifier") else {
        throw ModelStoreError.notAModelStore(path: url.path(percentEncoded: false), reason: "no identifier")
    }
    return identifier
}

/// A marker as a migration writes it, for the store with `identifier`.
func writeSnapshotMarker(_ path: String, identifier: String) throws {
    let marker = SnapshotFolder.Marker(store: "test.store", storeIdentifier: identifier, created: Date())
    try JSONEncoder().encode(marker).write(to: URL(filePath: path + SnapshotFolder.markerSuffix))
}
