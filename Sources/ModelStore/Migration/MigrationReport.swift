import Foundation

/// A table that a step rebuilds, and the rows it copies.
public struct RebuiltTable: Sendable, Hashable, Codable {
    /// The table (entity) name, as it will be.
    public let table: String
    /// The rows the rebuild copies (counted when planned).
    public let rows: Int
}

/// One step of a migration plan, as `StoreMigrator.plan(to:)` shows it.
public struct PlannedStep: Sendable, Hashable, Codable {
    /// What the step does, prefixed with the script or stage it belongs to.
    public let name: String
    /// The SQL it runs. Values are bound, so they appear as `?`.
    public let sql: [String]
    /// Tables it rebuilds, with row counts.
    public let rebuiltTables: [RebuiltTable]
    /// True when the step removes stored values (a dropped table or column).
    public let destroysData: Bool

    package init(name: String, sql: [String], rebuiltTables: [RebuiltTable], destroysData: Bool) {
        self.name = name
        self.sql = sql
        self.rebuiltTables = rebuiltTables
        self.destroysData = destroysData
    }
}

/// A migration script found in the scripts folder.
public struct MigrationScriptInfo: Sendable, Hashable, Codable {
    /// The ordered version prefix of its file name: "0003".
    public let version: String
    /// The file name: "0003_split_full_name.yaml".
    public let fileName: String
    /// The SHA-256 of the file's bytes, in hex.
    public let checksum: String

    package init(version: String, fileName: String, checksum: String) {
        self.version = version
        self.fileName = fileName
        self.checksum = checksum
    }
}

/// One recorded migration: a script, a stage, an inferred migration or a
/// format upgrade, from the store's history table.
public struct AppliedMigration: Sendable, Hashable, Codable {
    /// The script's version, or nil for other kinds.
    public let version: String?
    /// The script's file name, the stage's or the migration's description.
    public let name: String
    /// "script", "stage", "inferred" or "format".
    public let kind: String
    /// The script's SHA-256 when applied, for scripts.
    public let checksum: String?
    /// The schema fingerprint before.
    public let fingerprintBefore: String
    /// The schema fingerprint after.
    public let fingerprintAfter: String
    /// When it was applied.
    public let appliedAt: Date
    /// How long it took, in seconds.
    public let duration: Double
    /// The snapshot taken before it, if any.
    public let snapshotPath: String?
    /// True for a script recorded as applied without running it (a
    /// baseline: the store already had its changes; see
    /// `StoreMigrator.baseline(through:)`); false for one that ran, and for
    /// every row of a store before format 4, which did not tell them apart.
    public let isBaseline: Bool
}

/// Where a store stands against a scripts folder.
public struct MigrationStatus: Sendable, Hashable, Codable {
    /// The store's format version.
    public let formatVersion: Int
    /// The format version this ModelStore writes.
    public let supportedFormatVersion: Int
    /// The recorded schema's version.
    public let schemaVersion: String
    /// The recorded schema's fingerprint.
    public let schemaFingerprint: String
    /// Every recorded migration, oldest first.
    public let applied: [AppliedMigration]
    /// Scripts of the folder not yet applied, in order (empty without a
    /// scripts folder: see `hasScriptsFolder`).
    public let pending: [MigrationScriptInfo]
    /// Applied scripts whose file changed since (its SHA-256 is not the
    /// recorded one), in order: applying refuses while any is listed.
    public let changed: [ChangedMigrationScript]
    /// True when the status was made against a scripts folder; false when
    /// none was given, and then which scripts are pending is unknown (the
    /// history alone cannot say), not none.
    public let hasScriptsFolder: Bool
}

/// An applied migration script whose file no longer has the checksum the
/// history recorded for it.
public struct ChangedMigrationScript: Sendable, Hashable, Codable {
    /// The script's version: "0002".
    public let version: String
    /// The file name: "0002_packing_notes.sql".
    public let fileName: String
    /// The SHA-256 the history recorded when the script was applied.
    public let recordedChecksum: String
    /// The SHA-256 of the file as it is now.
    public let checksum: String

    package init(version: String, fileName: String, recordedChecksum: String, checksum: String) {
        self.version = version
        self.fileName = fileName
        self.recordedChecksum = recordedChecksum
        self.checksum = checksum
    }
}

/// What applying would do, without doing it.
public struct MigrationPlanReport: Sendable, Hashable, Codable {
    /// The scripts that would run, in order.
    public let scripts: [MigrationScriptInfo]
    /// Every step, in order.
    public let steps: [PlannedStep]
    /// True when any step destroys data.
    public var destroysData: Bool { steps.contains(where: \.destroysData) }
}

/// What `StoreMigrator.apply(to:progress:)` did.
public struct MigrationResult: Sendable, Hashable, Codable {
    /// The scripts applied, in order.
    public let applied: [MigrationScriptInfo]
    /// The snapshot taken before the first step, if any.
    public let snapshotPath: String?
    /// The schema fingerprint after.
    public let schemaFingerprint: String
}
