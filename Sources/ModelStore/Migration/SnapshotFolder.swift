#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import Foundation

/// The migration snapshots of one store in one folder: how a snapshot is
/// taken so that it can be relied on even when the process is killed while
/// taking it, what a killed migration leaves, and which old snapshots go.
///
/// For a store `trips.store`, a snapshot taken at TIME involves three names:
/// - `trips-before-migration-TIME.store.pending`, the marker: written and
///   flushed to disk before the copy starts, and removed once the
///   transaction that records the snapshot in the history has committed.
///   While it exists, the migration that took the snapshot has not finished.
/// - `trips-before-migration-TIME.store.partial`: the copy being written by
///   `VACUUM INTO`. A copy cut short only ever has this name.
/// - `trips-before-migration-TIME.store`: the snapshot, renamed from the
///   partial copy once that is flushed to disk (fsync), the folder flushed
///   after. A file of this name is complete.
///
/// A migration takes its snapshot while it holds the store's write lock,
/// from before it writes the marker until the commit that records the
/// snapshot. So whoever holds the write lock and finds a marker knows that
/// the migration that wrote it is gone (killed, or it failed and could not
/// clean up): its snapshot is either recorded in the history (it was killed
/// after its commit: only the marker goes) or not (it never committed: the
/// store still holds what the snapshot would hold, and the snapshot, whole or
/// partial, goes with its marker).
///
/// The store's history names the snapshots that migrations took; pruning
/// removes the files of the oldest of them, and only files in this folder
/// named after this store (a history is read from a file, and must not be
/// able to name any other file for deletion).
struct SnapshotFolder {
    let folder: URL
    /// "trips-before-migration-"
    let prefix: String
    /// ".store" (the store's extension, with its dot).
    let suffix: String

    static let partialSuffix = ".partial"
    static let markerSuffix = ".pending"

    /// The snapshots of the store at `store`, in `folder` (the store's own
    /// folder when nil).
    init(store: URL, folder: URL?) {
        let store = store.absoluteURL.standardizedFileURL
        self.folder = (folder ?? store.deletingLastPathComponent()).absoluteURL.standardizedFileURL
        prefix = store.deletingPathExtension().lastPathComponent + "-before-migration-"
        suffix = "." + store.pathExtension
    }

    /// The marker a killed migration leaves: what it was taking a snapshot of.
    struct Marker: Codable {
        var store: String
        var storeIdentifier: String
        var created: Date
    }

    func path(_ name: String) -> String { folder.appending(path: name).path(percentEncoded: false) }

    /// True for the name of a complete snapshot of this store.
    func isSnapshotName(_ name: String) -> Bool {
        name.count > prefix.count + suffix.count && name.hasPrefix(prefix) && name.hasSuffix(suffix)
    }

    /// True for a path (as a history records it) of a complete snapshot of
    /// this store in this folder.
    func contains(_ path: String) -> Bool {
        let url = URL(filePath: path).absoluteURL.standardizedFileURL
        return url.deletingLastPathComponent().path(percentEncoded: false) == folder.path(percentEncoded: false)
            && isSnapshotName(url.lastPathComponent)
    }

    /// The file names in the folder; none when it cannot be read.
    func names() -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: folder.path(percentEncoded: false))) ?? []
    }

    // MARK: Taking a snapshot

    /// Copies the store's last committed state (which the caller's write
    /// lock keeps current) with `VACUUM INTO`, through the steps the type's
    /// doc lists, and returns the snapshot's path. The marker stays until
    /// `finish(_:)` or `discard(_:)`.
    /// - Throws: `ModelStoreError.migrationFailed` naming the snapshot;
    ///   nothing of it is left then.
    func take(of storePath: String, identifier: String, history: [AppliedMigration], displayPath: String) throws -> String {
        let name = newName(recorded: Self.recordedPaths(history))
        let final = path(name)
        let partial = final + Self.partialSuffix
        let marker = final + Self.markerSuffix
        do {
            let record = Marker(store: storePath, storeIdentifier: identifier, created: Date())
            try writeDurably(try JSONEncoder().encode(record), to: marker)
            let reader = try Connection(location: storePath, mode: .readOnly)
            // A statement holds its connection unowned: keep the reader alive.
            try withExtendedLifetime(reader) {
                let vacuum = try reader.prepare("VACUUM INTO ?")
                try vacuum.bind(partial, at: 1)
                try vacuum.run()
            }
            try Self.flush(partial)
            try Self.move(partial, to: final)
            try Self.flush(folder.path(percentEncoded: false))
        } catch {
            discard(final)
            throw ModelStoreError.migrationFailed(path: displayPath, step: "snapshot to \(final)", reason: "\(error)")
        }
        return final
    }

    /// The migration that took the snapshot at `path` committed its record:
    /// the marker goes. A marker that stays (the process was killed just
    /// now) is removed by the next migration, which finds the snapshot
    /// recorded.
    func finish(_ path: String) {
        try? FileManager.default.removeItem(atPath: path + Self.markerSuffix)
    }

    /// Removes a snapshot that will not be recorded (its migration failed
    /// and rolled back) with its partial copy, then its marker.
    func discard(_ path: String) {
        for file in [path + Self.partialSuffix, path, path + Self.markerSuffix] {
            try? FileManager.default.removeItem(atPath: file)
        }
    }

    /// A name that no file in the folder has (with its partial and marker
    /// names), and that the history does not record: a pruned snapshot's
    /// name is not given again.
    private func newName(recorded: Set<String>) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions.insert(.withFractionalSeconds)
        let stamp = formatter.string(from: Date()).replacingOccurrences(of: ":", with: "-")
        var name = prefix + stamp + suffix
        var number = 1
        let taken = Set(names())
        while [name, name + Self.partialSuffix, name + Self.markerSuffix].contains(where: taken.contains)
            || recorded.contains(Self.normalized(path(name)))
        {
            number += 1
            name = prefix + "\(stamp)-\(number)" + suffix
        }
        return name
    }

    private func writeDurably(_ data: Data, to path: String) throws {
        guard FileManager.default.createFile(atPath: path, contents: data) else {
            throw FileError(errno, path: path, call: "create")
        }
        try Self.flush(path)
        try Self.flush(folder.path(percentEncoded: false))
    }

    // MARK: What killed migrations left

    /// The snapshots (complete or partial) that migrations which never
    /// finished left, by marker: their marker names this store (or cannot
    /// be read: a marker is only ever written by ModelStore, under a name
    /// taken from this store's), and `recorded` (the paths the history
    /// names, normalized with `normalized(_:)`) does not hold the snapshot.
    /// Markers of recorded snapshots are in `staleMarkers`.
    /// Only meaningful under the store's write lock (see the type's doc).
    func unfinished(identifier: String, recorded: Set<String>) -> (snapshots: [String], staleMarkers: [String]) {
        var snapshots: [String] = []
        var staleMarkers: [String] = []
        for name in names() where name.hasSuffix(suffix + Self.markerSuffix) {
            let snapshotName = String(name.dropLast(Self.markerSuffix.count))
            guard isSnapshotName(snapshotName) else { continue }
            if let data = FileManager.default.contents(atPath: path(name)),
                let marker = try? JSONDecoder().decode(Marker.self, from: data),
                marker.storeIdentifier != identifier
            {
                continue
            }
            let snapshot = path(snapshotName)
            if recorded.contains(Self.normalized(snapshot)) {
                staleMarkers.append(path(name))
            } else {
                snapshots.append(snapshot)
            }
        }
        return (snapshots.sorted(), staleMarkers.sorted())
    }

    /// Removes what migrations that never finished left (see
    /// `unfinished(identifier:recorded:)`) and returns the snapshots removed.
    /// Files that cannot be removed stay, for the next time: a leftover is
    /// never worth failing a migration for.
    @discardableResult
    func removeUnfinished(identifier: String, history: [AppliedMigration]) -> [String] {
        let (snapshots, staleMarkers) = unfinished(identifier: identifier, recorded: Self.recordedPaths(history))
        for snapshot in snapshots { discard(snapshot) }
        for marker in staleMarkers { try? FileManager.default.removeItem(atPath: marker) }
        return snapshots
    }

    // MARK: Pruning

    /// The snapshots that keeping the newest `count` removes: of the
    /// snapshots the history records, in the order it recorded them, whose
    /// files exist in this folder under this store's name, all but the
    /// last `count`.
    func prunable(keeping count: Int, history: [AppliedMigration]) -> [String] {
        var seen = Set<String>()
        var present: [String] = []
        for case let path? in history.map(\.snapshotPath) where seen.insert(Self.normalized(path)).inserted {
            if contains(path) && FileManager.default.fileExists(atPath: path) { present.append(path) }
        }
        return Array(present.dropLast(max(0, count)))
    }

    /// Removes the files `prunable(keeping:history:)` names and returns them.
    @discardableResult
    func prune(keeping count: Int, history: [AppliedMigration]) -> [String] {
        let paths = prunable(keeping: count, history: history)
        for path in paths { try? FileManager.default.removeItem(atPath: path) }
        return paths
    }

    // MARK: Files

    /// The path, absolute and standardized, for comparing paths.
    static func normalized(_ path: String) -> String {
        URL(filePath: path).absoluteURL.standardizedFileURL.path(percentEncoded: false)
    }

    /// The snapshot a file belongs to: itself, or for a partial copy the
    /// snapshot it was becoming.
    static func snapshotPath(of file: String) -> String {
        file.hasSuffix(partialSuffix) ? String(file.dropLast(partialSuffix.count)) : file
    }

    static func recordedPaths(_ history: [AppliedMigration]) -> Set<String> {
        Set(history.compactMap(\.snapshotPath).map(normalized))
    }

    /// Flushes a file's (or a folder's) data to disk: after it returns, a
    /// power loss does not undo what was written (or renamed) there.
    private static func flush(_ path: String) throws {
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { throw FileError(errno, path: path, call: "open") }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw FileError(errno, path: path, call: "fsync") }
    }

    /// Renames a file in one step (rename(2)): a reader sees the old name
    /// or the new one, never a file in between.
    private static func move(_ source: String, to target: String) throws {
        guard rename(source, target) == 0 else { throw FileError(errno, path: source, call: "rename") }
    }
}

/// A failed file system call, with the system's message.
private struct FileError: Error, CustomStringConvertible {
    let description: String

    init(_ code: Int32, path: String, call: String) {
        description = "\(call) \(path): \(String(cString: strerror(code)))"
    }
}
