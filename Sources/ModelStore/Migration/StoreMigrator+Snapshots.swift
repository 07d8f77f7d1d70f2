import Foundation

/// A snapshot of a store taken before a migration, as
/// `StoreMigrator.snapshots()` lists it.
public struct MigrationSnapshot: Sendable, Hashable, Codable {
    /// What the snapshot is, and whether it can be restored from.
    public enum State: String, Sendable, Hashable, Codable {
        /// Recorded in the store's history, the file in place: a complete
        /// copy of the store as it was before the migrations named.
        case recorded
        /// Recorded in the history, but the file is gone (pruned or removed).
        case missing
        /// Left by a migration that never finished (the process was killed):
        /// possibly cut short, never to be restored from. The next migration
        /// of the store removes it.
        case unfinished
        /// A complete copy of this store that the history does not record:
        /// left by a migration killed before ModelStore recorded snapshots
        /// durably, or the history's store was restored from an older
        /// snapshot. Never removed unless asked for.
        case unrecorded
        /// Named as this store's snapshots are, but not a readable store: a
        /// copy cut short by a migration killed before ModelStore wrote
        /// copies under a temporary name. Never to be restored from.
        case damaged
    }

    /// The file's path.
    public let path: String
    public let state: State
    /// The file's size in bytes; nil when it is missing.
    public let size: Int64?
    /// When it was taken: the time its migration began, or for a snapshot
    /// the history does not record, the file's modification time.
    public let created: Date?
    /// The migrations recorded after it, in order (none when unrecorded).
    public let migrations: [String]
}

extension StoreMigrator {
    /// The store's migration snapshots, oldest first: those its history
    /// records (wherever they are), then the files in the snapshot folder
    /// (`options.snapshotFolder`, or the store's folder) named after the
    /// store that the history does not record. Reads only; an unrecorded
    /// file is opened to tell a copy of this store from a damaged file or a
    /// snapshot of another store of the same name (which is left out).
    /// - Throws: `ModelStoreError` when the store cannot be read.
    public func snapshots() throws -> [MigrationSnapshot] {
        let connection = try Connection(location: storeURL.path(percentEncoded: false), mode: .readOnly)
        let metadata = try StoreMetadata.read(connection, path: storeURL.path(percentEncoded: false))
        return listSnapshots(history: try MigrationHistory.read(connection), identifier: metadata.identifier)
    }

    /// Removes snapshots by path (as `snapshots()` lists them: a partial
    /// copy by its own path), each with its partial copy and marker, in
    /// the order given, while holding the store's write lock (so that no
    /// migration is taking one of them). A recorded snapshot keeps its
    /// history rows; `snapshots()` shows it as missing.
    /// - Parameters:
    ///   - paths: the snapshots to remove, as `snapshots()` lists them.
    ///   - dryRun: remove nothing; return what would be removed.
    /// - Returns: the snapshots removed, as they were listed.
    /// - Throws: `ModelStoreError.notASnapshot` for a path that
    ///   `snapshots()` does not list (nothing is removed then);
    ///   `SQLiteError` (`SQLITE_BUSY`) when another process holds the lock
    ///   past `options.busyTimeout`.
    @discardableResult
    public func removeSnapshots(_ paths: [String], dryRun: Bool = false) throws -> [MigrationSnapshot] {
        try withWriteLock { history, identifier in
            let listed = listSnapshots(history: history, identifier: identifier)
            let byPath = Dictionary(listed.map { (SnapshotFolder.normalized($0.path), $0) }) { first, _ in first }
            let chosen = try paths.map { path in
                guard let snapshot = byPath[SnapshotFolder.normalized(path)], snapshot.state != .missing else {
                    throw ModelStoreError.notASnapshot(path: path, store: storeURL.path(percentEncoded: false))
                }
                return snapshot
            }
            if !dryRun { for snapshot in chosen { snapshotFolder.discard(SnapshotFolder.snapshotPath(of: snapshot.path)) } }
            return chosen
        }
    }

    /// Removes, while holding the store's write lock: the snapshots of
    /// migrations that never finished, damaged files, the recorded
    /// snapshots in the snapshot folder beyond the newest `keeping` (the
    /// rule a migration applies with `MigrationOptions.keptSnapshots`), and
    /// with `includingUnrecorded`, complete snapshots the history does not
    /// record.
    /// - Parameters:
    ///   - count: how many of the newest recorded snapshots to keep.
    ///   - includingUnrecorded: also remove complete snapshots the history
    ///     does not record.
    ///   - dryRun: remove nothing; return what would be removed.
    /// - Returns: the snapshots removed, as they were listed.
    /// - Throws: `SQLiteError` (`SQLITE_BUSY`) when another process holds the
    ///   lock past `options.busyTimeout`; `ModelStoreError` when the store
    ///   cannot be read.
    @discardableResult
    public func pruneSnapshots(keeping count: Int, includingUnrecorded: Bool = false, dryRun: Bool = false) throws
        -> [MigrationSnapshot]
    {
        try withWriteLock { history, identifier in
            let listed = listSnapshots(history: history, identifier: identifier)
            let old = Set(snapshotFolder.prunable(keeping: count, history: history).map(SnapshotFolder.normalized))
            let chosen = listed.filter { snapshot in
                switch snapshot.state {
                case .unfinished, .damaged: true
                case .unrecorded: includingUnrecorded
                case .recorded: old.contains(SnapshotFolder.normalized(snapshot.path))
                case .missing: false
                }
            }
            if !dryRun {
                for snapshot in chosen { snapshotFolder.discard(SnapshotFolder.snapshotPath(of: snapshot.path)) }
                // Markers of recorded snapshots (a migration killed just after
                // its commit) go too; they name nothing to remove.
                snapshotFolder.removeUnfinished(identifier: identifier, history: history)
            }
            return chosen
        }
    }

    var snapshotFolder: SnapshotFolder { SnapshotFolder(store: storeURL, folder: options.snapshotFolder) }

    /// Runs `body` with the history and the store's identifier inside a
    /// write transaction that changes nothing (`BEGIN IMMEDIATE`, then a
    /// rollback): the lock a migration holds while it takes a snapshot.
    private func withWriteLock<T>(_ body: ([AppliedMigration], String) throws -> T) throws -> T {
        let path = storeURL.path(percentEncoded: false)
        let connection = try Connection(location: path, mode: .readWrite)
        let timeout = options.busyTimeout.components
        try connection.setBusyTimeout(
            milliseconds: Int32(clamping: timeout.seconds * 1000 + timeout.attoseconds / 1_000_000_000_000_000))
        try connection.execute("BEGIN IMMEDIATE TRANSACTION")
        defer { try? connection.execute("ROLLBACK TRANSACTION") }
        let metadata = try StoreMetadata.read(connection, path: path)
        return try body(try MigrationHistory.read(connection), metadata.identifier)
    }

    private func listSnapshots(history: [AppliedMigration], identifier: String) -> [MigrationSnapshot] {
        let folder = snapshotFolder
        var result: [MigrationSnapshot] = []
        var order: [String] = []
        var entries: [String: (path: String, created: Date, migrations: [String])] = [:]
        for migration in history {
            guard let path = migration.snapshotPath else { continue }
            let key = SnapshotFolder.normalized(path)
            if entries[key] == nil {
                order.append(key)
                entries[key] = (path, migration.appliedAt, [])
            }
            entries[key]?.migrations.append(migration.name)
        }
        let (unfinished, _) = folder.unfinished(identifier: identifier, recorded: Set(order))
        let unfinishedPaths = Set(unfinished.map(SnapshotFolder.normalized))
        for key in order {
            guard let entry = entries[key] else { continue }
            let size = Self.fileSize(entry.path)
            result.append(
                MigrationSnapshot(
                    path: entry.path, state: size == nil ? .missing : .recorded, size: size, created: entry.created,
                    migrations: entry.migrations))
        }
        var unrecorded: [MigrationSnapshot] = []
        for name in folder.names() {
            let isPartial = name.hasSuffix(folder.suffix + SnapshotFolder.partialSuffix)
            let snapshotName = isPartial ? String(name.dropLast(SnapshotFolder.partialSuffix.count)) : name
            guard folder.isSnapshotName(snapshotName) else { continue }
            let path = folder.path(name)
            let snapshotPath = folder.path(snapshotName)
            let key = SnapshotFolder.normalized(snapshotPath)
            if entries[key] != nil && !isPartial { continue }
            let state: MigrationSnapshot.State
            if isPartial || unfinishedPaths.contains(key) {
                // A partial copy without a marker is unfinished too: it never
                // became a snapshot.
                state = .unfinished
            } else {
                switch Self.copyIdentifier(path) {
                case .some(identifier): state = .unrecorded
                case .some: continue
                case .none: state = .damaged
                }
            }
            unrecorded.append(
                MigrationSnapshot(
                    path: path, state: state, size: Self.fileSize(path), created: Self.modificationDate(path),
                    migrations: []))
        }
        return result + unrecorded.sorted { ($0.created ?? .distantPast, $0.path) < ($1.created ?? .distantPast, $1.path) }
    }

    private static func fileSize(_ path: String) -> Int64? {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path) else { return nil }
        return (attributes[.size] as? NSNumber)?.int64Value
    }

    private static func modificationDate(_ path: String) -> Date? {
        (try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date
    }

    /// The store identifier a copy records; nil when it cannot be read as a
    /// store (not SQLite, cut short, no metadata).
    private static func copyIdentifier(_ path: String) -> String? {
        guard Self.isWhole(path), let connection = try? Connection(location: path, mode: .readOnly) else { return nil }
        return withExtendedLifetime(connection) {
            (try? StoreMetadata.read(connection, path: path))?.identifier
        }
    }

    /// False when the file is shorter than the database its header
    /// describes (a copy cut short), or has no SQLite header.
    private static func isWhole(_ path: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        guard let header = try? handle.read(upToCount: 100), header.count == 100,
            header.starts(with: Array("SQLite format 3\0".utf8)),
            let size = try? handle.seekToEnd()
        else { return false }
        func integer(_ offset: Int, _ count: Int) -> UInt64 {
            header[offset..<(offset + count)].reduce(0) { $0 << 8 | UInt64($1) }
        }
        let pageSize = integer(16, 2) == 1 ? 65_536 : integer(16, 2)
        let pages = integer(28, 4)
        // The header's page count is valid when the change counter matches
        // the "version-valid-for" number (SQLite file format, 1.3.7).
        guard pages > 0, integer(24, 4) == integer(92, 4) else { return true }
        return size >= pages * pageSize
    }
}
