import Foundation
import Testing
@testable import ModelStore

/// Reads a store's rows and metadata directly, as another tool would.
struct StoreFile {
    let url: URL

    var path: String { url.path(percentEncoded: false) }

    func rows(_ sql: String) throws -> [[SQLiteValue]] {
        let connection = try Connection(location: path, mode: .readOnly)
        return try withExtendedLifetime(connection) {
            let statement = try connection.prepare(sql)
            var result: [[SQLiteValue]] = []
            while try statement.step() {
                result.append((0..<statement.columnCount).map { statement.value(at: $0) })
            }
            return result
        }
    }

    func execute(_ sql: String) throws {
        let connection = try Connection(location: path, mode: .readWrite)
        try connection.execute(sql)
    }

    func metadata(_ key: String) throws -> SQLiteValue? {
        try rows("SELECT value FROM _modelstore_metadata WHERE key = '\(key)'").first?.first
    }

    func storedSchema() throws -> Schema {
        guard case .text(let record)? = try metadata("schema") else { throw ModelStoreError.notAModelStore(path: path, reason: "no record") }
        return try Schema(recordData: Data(record.utf8))
    }

    /// Everything a migration could change: every table's rows (ModelStore's
    /// own included) and the schema of the file.
    func everything() throws -> [String: [[SQLiteValue]]] {
        var result: [String: [[SQLiteValue]]] = [:]
        let tables = try rows("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name")
        for case .text(let table) in tables.map({ $0[0] }) {
            result[table] = try rows("SELECT * FROM \(quoteIdentifier(table)) ORDER BY 1")
        }
        result["sqlite_schema"] = try rows("SELECT type, name, tbl_name, sql FROM sqlite_schema ORDER BY name")
        return result
    }

    /// A byte-for-byte copy, for failure-injection tests that start again from the same store.
    func copy(to other: URL) throws {
        let connection = try Connection(location: path, mode: .readOnly)
        try withExtendedLifetime(connection) {
            let vacuum = try connection.prepare("VACUUM INTO ?")
            try vacuum.bind(other.path(percentEncoded: false), at: 1)
            try vacuum.run()
        }
    }
}

/// A configuration for `url` without snapshots (most tests do not look at them).
func migrationConfiguration(_ url: URL, allowsDataLoss: Bool = false, snapshot: Bool = false) -> ModelConfiguration {
    var configuration = ModelConfiguration(url: url)
    configuration.migrationOptions.takesSnapshot = snapshot
    configuration.migrationOptions.allowsDataLoss = allowsDataLoss
    return configuration
}

/// Opens (creating or migrating) the store at `url` with `types`.
@discardableResult
func open(_ url: URL, _ types: [any PersistentModel.Type], allowsDataLoss: Bool = false) throws -> ModelContainer {
    try ModelContainer(for: Schema(types), configurations: [migrationConfiguration(url, allowsDataLoss: allowsDataLoss)])
}

/// Opens the store with a schema described without classes.
@discardableResult
func open(_ url: URL, entities: [Schema.Entity], version: Schema.Version = Schema.Version(1, 0, 0), allowsDataLoss: Bool = false)
    throws -> ModelContainer
{
    try ModelContainer(
        for: Schema(entities: entities, version: version),
        configurations: [migrationConfiguration(url, allowsDataLoss: allowsDataLoss)])
}

func attribute(_ name: String, _ kind: ValueKind, optional: Bool = false, unique: Bool = false, originalName: String? = nil)
    -> Schema.Attribute
{
    Schema.Attribute(
        name: name, kind: kind, swiftType: kind.swiftTypeName, isOptional: optional, options: unique ? [.unique] : [],
        originalName: originalName)
}

/// Collects progress reports across the migration's thread.
final class StepRecorder: @unchecked Sendable {
    private let lock = NSLock()
    private var reports: [MigrationProgress] = []

    func add(_ progress: MigrationProgress) {
        lock.withLock { reports.append(progress) }
    }

    var steps: [String] { lock.withLock { reports.filter { $0.rowsCopied == nil }.map(\.step) } }
    var rows: [Int] { lock.withLock { reports.compactMap(\.rowsCopied) } }
}
