import Foundation

/// The migration engine for a store file, without the app's code: what
/// `store-tool migrate` runs. It applies the store format's own upgrades
/// (and, with ModelStoreScripts, a folder of migration scripts), shows where
/// a store stands, and plans without touching the file.
///
/// ```swift
/// let migrator = try StoreMigrator(storeAt: URL(filePath: "trips.store"))
/// let status = try migrator.status()          // format, schema, recorded migrations
/// let plan = try migrator.plan()              // every step, its SQL, rebuilt tables and rows
/// try migrator.apply { print($0) }            // snapshot, then each step in its transaction
/// ```
///
/// `import ModelStoreScripts` adds `init(storeAt:scriptsFolder:options:)`,
/// `scriptsFolder` and `baseline(through:)`.
public final class StoreMigrator {
    /// The store file.
    public let storeURL: URL
    /// The scripts to apply, if any (set by ModelStoreScripts).
    package let scripts: (any MigrationScripts)?
    /// Snapshots, transactions, busy timeout (the progress callback is `apply`'s).
    public var options: MigrationOptions

    private var path: String { storeURL.path(percentEncoded: false) }

    /// Prepares to migrate the store at `url`: its format upgrades, no scripts.
    /// - Throws: `ModelStoreError.cannotOpen` when the file does not exist,
    ///   `.notADatabase`, `.notAModelStore`, `.newerFormat` (a store written by
    ///   a newer ModelStore is never downgraded).
    public convenience init(storeAt url: URL, options: MigrationOptions = MigrationOptions()) throws {
        try self.init(storeAt: url, scripts: nil, options: options)
    }

    /// Prepares to migrate the store at `url` with `scripts`.
    /// - Throws: what `init(storeAt:options:)` throws.
    package init(storeAt url: URL, scripts: (any MigrationScripts)?, options: MigrationOptions) throws {
        self.storeURL = url
        self.scripts = scripts
        self.options = options
        guard FileManager.default.fileExists(atPath: url.path(percentEncoded: false)) else {
            throw ModelStoreError.cannotOpen(path: url.path(percentEncoded: false), reason: "the file does not exist")
        }
        _ = try StoreMetadata.read(try connect(.readOnly), path: path)
    }

    /// The store's format and schema, every recorded migration, the
    /// scripts not yet applied, and the applied scripts whose file changed
    /// since (which `apply(to:)` refuses; the status shows them). Reads only.
    /// - Throws: `ModelStoreError` for an unreadable store or scripts folder,
    ///   `.invalidMigrationScript` for a pending script that cannot be read.
    public func status() throws -> MigrationStatus {
        let connection = try connect(.readOnly)
        let metadata = try StoreMetadata.read(connection, path: path)
        let applied = try MigrationHistory.read(connection)
        let scripts = try scripts?.pending(applied: applied)
        return MigrationStatus(
            formatVersion: metadata.format, supportedFormatVersion: StoreFormat.current,
            schemaVersion: metadata.schema.version.description, schemaFingerprint: metadata.schema.fingerprint,
            applied: applied, pending: scripts?.pending ?? [], changed: scripts?.changed ?? [],
            hasScriptsFolder: self.scripts != nil)
    }

    /// What `apply(to:)` would do: every step with its SQL, the tables each
    /// rebuilds and their row counts, and which steps destroy data. It runs
    /// the migration on a copy of the store in a temporary folder, so the
    /// plan is exact, and the store itself is only read.
    /// - Parameter version: the last script version to include; all when nil.
    /// - Throws: what `apply(to:)` throws, for the step that would fail.
    public func plan(to version: String? = nil) throws -> MigrationPlanReport {
        let folder = FileManager.default.temporaryDirectory.appending(path: "modelstore-plan-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let copy = folder.appending(path: storeURL.lastPathComponent)
        do {
            let reader = try connect(.readOnly)
            try withExtendedLifetime(reader) {
                let vacuum = try reader.prepare("VACUUM INTO ?")
                try vacuum.bind(copy.path(percentEncoded: false), at: 1)
                try vacuum.run()
            }
        } catch {
            throw ModelStoreError.cannotOpen(path: path, reason: "cannot copy the store to plan: \(error)")
        }
        var copyOptions = options
        copyOptions.takesSnapshot = false
        copyOptions.progress = nil
        let migrator = try StoreMigrator(storeAt: copy, scripts: scripts, options: copyOptions)
        let (scripts, context) = try migrator.run(to: version, displayPath: path)
        return MigrationPlanReport(scripts: scripts, steps: context?.recorded ?? [])
    }

    /// Applies the store format's upgrades and the pending scripts up to
    /// `version`, in order: a snapshot first (unless turned off), then each
    /// script in its own transaction (or all in one, per `options`), each
    /// recorded in the history with its checksum, fingerprints, time,
    /// duration and the snapshot's path, and followed by the updated schema
    /// record.
    /// - Parameters:
    ///   - version: the last script version to apply; all when nil.
    ///   - progress: called with each step and the rows each rebuild copies.
    /// - Throws: `ModelStoreError.migrationFailed` naming the script and
    ///   step (that script's changes are rolled back; earlier scripts stay
    ///   applied unless `runsScriptsInOneTransaction`), `.scriptChecksumMismatch`,
    ///   `.invalidMigrationScript`, `.duplicateValues`, `.newerFormat`.
    @discardableResult
    public func apply(to version: String? = nil, progress: (@Sendable (MigrationProgress) -> Void)? = nil) throws
        -> MigrationResult
    {
        var options = self.options
        if let progress { options.progress = progress }
        let migrator = try StoreMigrator(storeAt: storeURL, scripts: scripts, options: options)
        let (scripts, context) = try migrator.run(to: version, displayPath: path)
        let metadata = try StoreMetadata.read(try connect(.readOnly), path: path)
        return MigrationResult(applied: scripts, snapshotPath: context?.snapshotPath, schemaFingerprint: metadata.schema.fingerprint)
    }

    /// Records the scripts up to `version` (all when nil) as applied without
    /// running them (ModelStoreScripts' `baseline(through:)`), marked as
    /// baselines in the history. A store of an older format first gets the
    /// format's upgrades (with a snapshot, as `apply` does: the history of
    /// format 4 tells baselines apart); then only history rows are written.
    /// Does nothing without scripts.
    /// - Throws: `ModelStoreError.invalidMigrationScript`, `.migrationFailed`
    ///   (the format upgrade's), `.cannotOpen`.
    package func recordBaseline(through version: String?) throws {
        guard let scripts else { return }
        if try StoreMetadata.read(try connect(.readOnly), path: path).format < StoreFormat.current {
            _ = try StoreMigrator(storeAt: storeURL, scripts: nil, options: options).run(to: nil, displayPath: path)
        }
        let connection = try connect(.readWrite)
        let metadata = try StoreMetadata.read(connection, path: path)
        try connection.transaction {
            try scripts.recordBaseline(metadata.schema, connection, through: version.flatMap { Int($0) })
        }
    }

    private func run(to version: String?, displayPath: String) throws -> ([MigrationScriptInfo], MigrationRunContext?) {
        let connection = try connect(.readWrite)
        let metadata = try StoreMetadata.read(connection, path: displayPath)
        var transactions: [MigrationTransaction] = []
        if metadata.format < StoreFormat.current {
            let fingerprint = metadata.schema.fingerprint
            let from = metadata.format
            transactions.append(
                MigrationTransaction(steps: StoreFormat.upgradeSteps(from: from, schema: metadata.schema)) { context in
                    try MigrationHistory.record(
                        .init(
                            name: "store format \(from) → \(StoreFormat.current)", kind: "format", fingerprintBefore: fingerprint,
                            fingerprintAfter: fingerprint, appliedAt: context.transactionStart,
                            duration: Date().timeIntervalSince(context.transactionStart), snapshotPath: context.snapshotPath),
                        context.connection)
                })
        }
        var applied: [MigrationScriptInfo] = []
        if let scripts {
            var schema = metadata.schema
            let built = try scripts.transactions(
                applied: try MigrationHistory.read(connection), through: version, from: &schema,
                oneTransaction: options.runsScriptsInOneTransaction, allowsDataLoss: options.allowsDataLoss)
            applied = built.scripts
            transactions += built.transactions
        }
        guard !transactions.isEmpty else { return ([], nil) }
        let context = try MigrationRunner(connection: connection, path: displayPath, options: options, fileURL: storeURL)
            .run(transactions)
        return (applied, context)
    }

    private func connect(_ mode: Connection.Mode) throws -> Connection {
        do {
            return try Connection(location: path, mode: mode)
        } catch {
            if error.primaryCode == SQLiteError.notADatabase { throw ModelStoreError.notADatabase(path: path) }
            throw ModelStoreError.cannotOpen(path: path, reason: error.message)
        }
    }
}

/// The metadata of a store, read without the app's code.
struct StoreMetadata {
    let format: Int
    let identifier: String
    let schema: Schema

    /// Reads the record as every other reader does (`StoreBootstrap.readRecord`),
    /// and refuses a file with schema objects ModelStore did not make, as
    /// opening a container does: a migration writes, and SQLite would run them.
    /// - Throws: `ModelStoreError.notADatabase`, `.notAModelStore`, `.newerFormat`,
    ///   `.foreignSchemaObjects`.
    static func read(_ connection: Connection, path: String) throws -> StoreMetadata {
        let record = try StoreBootstrap.readRecord(connection: connection, path: path)
        let foreignObjects = try StoreBootstrap.foreignObjects(connection: connection, record: record, path: path)
        guard foreignObjects.isEmpty else { throw ModelStoreError.foreignSchemaObjects(path: path, objects: foreignObjects) }
        return StoreMetadata(format: record.formatVersion, identifier: record.identifier, schema: record.schema)
    }
}
