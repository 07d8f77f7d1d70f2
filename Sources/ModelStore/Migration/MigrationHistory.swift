import Foundation

/// The history table, where every migration is recorded, and the writing of
/// the schema record that ends each migration.
package enum MigrationHistory {
    static let table = "_modelstore_migrations"

    /// One row to record.
    package struct Entry {
        package var version: String?
        package var name: String
        package var kind: String
        package var checksum: String?
        package var fingerprintBefore: String
        package var fingerprintAfter: String
        package var appliedAt: Date
        package var duration: Double
        package var snapshotPath: String?
        /// A script recorded without running (store format 4's `baseline` column).
        package var isBaseline: Bool

        package init(
            version: String? = nil, name: String, kind: String, checksum: String? = nil, fingerprintBefore: String,
            fingerprintAfter: String, appliedAt: Date, duration: Double, snapshotPath: String? = nil, isBaseline: Bool = false
        ) {
            self.version = version
            self.name = name
            self.kind = kind
            self.checksum = checksum
            self.fingerprintBefore = fingerprintBefore
            self.fingerprintAfter = fingerprintAfter
            self.appliedAt = appliedAt
            self.duration = duration
            self.snapshotPath = snapshotPath
            self.isBaseline = isBaseline
        }
    }

    /// Adds a row.
    /// - Throws: `SQLiteError` (for a baseline, on a store before format 4).
    package static func record(_ entry: Entry, _ connection: Connection) throws {
        var columns = [
            "version", "name", "kind", "checksum", "fingerprintBefore", "fingerprintAfter", "appliedAt", "duration",
            "snapshot",
        ]
        // Only a baseline names the column, so that every other row can be
        // written while a store's format upgrade is under way.
        if entry.isBaseline { columns.append("baseline") }
        let statement = try connection.prepare(
            "INSERT INTO \(quoteIdentifier(table)) (\(columns.map(quoteIdentifier).joined(separator: ", "))) "
                + "VALUES (\(Array(repeating: "?", count: columns.count).joined(separator: ", ")))")
        let values: [SQLiteValue] = [
            entry.version.map(SQLiteValue.text) ?? .null, .text(entry.name), .text(entry.kind),
            entry.checksum.map(SQLiteValue.text) ?? .null, .text(entry.fingerprintBefore), .text(entry.fingerprintAfter),
            .real(entry.appliedAt.timeIntervalSince1970), .real(entry.duration), entry.snapshotPath.map(SQLiteValue.text) ?? .null,
        ] + (entry.isBaseline ? [.integer(1)] : [])
        for (index, value) in values.enumerated() { try statement.bind(value, at: Int32(index + 1)) }
        try statement.run()
    }

    /// Every recorded migration, oldest first; none when the table does not
    /// exist (format 1). Before format 4 no row is a baseline.
    /// - Throws: `SQLiteError`.
    package static func read(_ connection: Connection) throws -> [AppliedMigration] {
        let exists = try connection.prepare("SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = ?")
        try exists.bind(table, at: 1)
        _ = try exists.step()
        guard exists.int64(at: 0) == 1 else { return [] }
        // Read-only opens and status read older formats as they are.
        let hasBaseline = try connection.prepare("SELECT count(*) FROM pragma_table_info(?) WHERE name = 'baseline'")
        try hasBaseline.bind(table, at: 1)
        _ = try hasBaseline.step()
        let baseline = hasBaseline.int64(at: 0) == 1 ? "baseline" : "0"
        let statement = try connection.prepare(
            "SELECT version, name, kind, checksum, fingerprintBefore, fingerprintAfter, appliedAt, duration, snapshot, "
                + "\(baseline) FROM \(quoteIdentifier(table)) ORDER BY id")
        var result: [AppliedMigration] = []
        func text(_ column: Int32) -> String? { statement.storage(at: column) == .null ? nil : statement.string(at: column) }
        while try statement.step() {
            result.append(
                AppliedMigration(
                    version: text(0), name: statement.string(at: 1), kind: statement.string(at: 2), checksum: text(3),
                    fingerprintBefore: statement.string(at: 4), fingerprintAfter: statement.string(at: 5),
                    appliedAt: Date(timeIntervalSince1970: statement.double(at: 6)), duration: statement.double(at: 7),
                    snapshotPath: text(8), isBaseline: statement.int64(at: 9) != 0))
        }
        return result
    }
}

// The upgrades as migration steps; the format itself is the context
// layer's (Context/StoreFormat.swift), which a new store is created in.
extension StoreFormat {
    /// The steps that bring a store of format `version`, whose entity tables
    /// are those of `schema`, to the current one, ending with the new format
    /// version in the metadata.
    static func upgradeSteps(from version: Int, schema: Schema) -> [MigrationStep] {
        upgrades.filter { $0.version > version }.map { upgrade in
            MigrationStep(name: "store format \(upgrade.version): \(upgrade.name)") { context in
                var sql = [upgrade.sql]
                if let perTable = upgrade.perEntityTable {
                    sql += schema.entities.map { perTable.replacingOccurrences(of: "{table}", with: quoteIdentifier($0.name)) }
                }
                context.record(PlannedStep(name: "store format \(upgrade.version)", sql: sql, rebuiltTables: [], destroysData: false))
                for statement in sql { try context.connection.execute(statement) }
                let statement = try context.connection.prepare(
                    "UPDATE \(quoteIdentifier(MetadataKey.table)) SET \"value\" = ? WHERE \"key\" = ?")
                try statement.bind(Int64(upgrade.version), at: 1)
                try statement.bind(MetadataKey.formatVersion, at: 2)
                try statement.run()
            }
        }
    }
}
