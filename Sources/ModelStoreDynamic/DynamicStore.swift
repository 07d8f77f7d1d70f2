import Foundation
import ModelStore

/// A store opened by path, without the app's model types: its schema is the
/// one the store records, and objects are entity + values
/// (`DynamicObject`). It is what `store-tool` is built on.
///
/// Reads, edits and deletes go through the library's own machinery (the
/// entity tables' SQL, the value coders, the delete planner, the link writer
/// and the query compiler), so a dynamic edit obeys exactly the rules a typed
/// `save()` obeys.
///
/// ```swift
/// let store = try DynamicStore(path: "trips.store")            // read-only
/// try store.forEach(DynamicQuery(entity: "Trip", filter: "name contains \"o\"")) { print($0) }
/// let writable = try DynamicStore(path: "trips.store", readOnly: false)
/// _ = try writable.update(ObjectID("Trip:1")!, ["notes=Booked"])
/// ```
///
/// Not thread-safe: use one `DynamicStore` from one isolation domain.
package final class DynamicStore {
    /// The file's path.
    package let path: String
    /// The schema the store records, resolved (inverses and storage).
    package let schema: Schema
    /// True when opened read-only: every edit throws `readOnlyStore`.
    package let isReadOnly: Bool
    /// The store format version recorded in the file.
    package let formatVersion: Int
    /// The store's identifier (a UUID), recorded when it was created.
    package let storeIdentifier: String
    /// Every value of the metadata table, as stored.
    package let metadata: [String: SQLiteValue]
    /// Schema objects in the file that ModelStore did not make (triggers,
    /// views, CHECK constraints, …). Only a read-only store can have any: a
    /// writable open of such a file throws `foreignSchemaObjects`.
    package var foreignSchemaObjects: [ForeignSchemaObject] { store.foreignObjects }
    /// Why the store is read immutable (such as "the folder is not
    /// writable"), or nil: a read-only store that SQLite cannot read
    /// normally because this user cannot write beside it. An immutable read
    /// assumes nobody writes the store meanwhile.
    package var immutableReason: String? { connection.immutableReason }
    let store: Store
    let connection: Connection
    /// The changes of the write transaction in progress, recorded in the
    /// store's history when it commits (see `writeTransaction`).
    var history = HistoryRecorder()
    /// The rows inserted by the write transaction in progress: linking them
    /// completes their insert, which the history already lists, and does not
    /// count as another write of the row.
    var insertedRows = InsertedRows()

    /// Opens the store at `path` with the schema it records.
    /// - Parameters:
    ///   - path: the store file.
    ///   - readOnly: open the file read-only (the default): nothing can be
    ///     written, not even the journal mode.
    ///   - busyTimeout: how long a write waits for another process's lock.
    /// - Throws: `ModelStoreError.cannotOpen` (missing file, a folder, no
    ///   permission; for `readOnly` false, a file or folder this user cannot
    ///   write), `.notADatabase`, `.notAModelStore`, `.newerFormat`,
    ///   `.invalidSchema` for a record that cannot be a schema;
    ///   `.foreignSchemaObjects` when the file holds schema objects ModelStore
    ///   did not make and `readOnly` is false (read-only, such a file opens,
    ///   and `foreignSchemaObjects` lists them).
    package init(path: String, readOnly: Bool = true, busyTimeout: Duration = .seconds(5)) throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw ModelStoreError.cannotOpen(path: path, reason: "no such file")
        }
        guard !isDirectory.boolValue else {
            throw ModelStoreError.cannotOpen(path: path, reason: "it is a folder, not a file")
        }
        let record = try Self.readRecord(path: path)
        let configuration = ModelConfiguration(url: URL(filePath: path), allowsSave: !readOnly)
        store = try Store(
            configuration: configuration, schema: record.schema, migrator: OpenMigrator(), toleratingForeignObjects: readOnly)
        connection = try store.openConnection()
        let milliseconds = busyTimeout.components.seconds * 1000 + busyTimeout.components.attoseconds / 1_000_000_000_000_000
        try connection.setBusyTimeout(milliseconds: Int32(clamping: milliseconds))
        self.path = path
        self.schema = store.schema
        self.isReadOnly = readOnly
        self.formatVersion = record.formatVersion
        self.storeIdentifier = record.identifier
        self.metadata = record.metadata
    }

    /// Creates a new store at `path` holding `schema` (a schema read from
    /// another store's record or an export), with no objects.
    /// - Throws: `ModelStoreError.cannotOpen` when the file exists or cannot
    ///   be created; `.invalidSchema`.
    package static func create(path: String, schema: Schema) throws -> DynamicStore {
        guard !FileManager.default.fileExists(atPath: path) else {
            throw ModelStoreError.cannotOpen(path: path, reason: "the file already exists")
        }
        _ = try Store(configuration: ModelConfiguration(url: URL(filePath: path)), schema: schema, migrator: OpenMigrator())
        return try DynamicStore(path: path, readOnly: false)
    }

    private static func readRecord(path: String) throws -> StoreBootstrap.Record {
        let connection: Connection
        do {
            connection = try Connection(location: path, mode: .readOnly)
            let tables = try connection.prepare("SELECT count(*) FROM sqlite_schema WHERE type = 'table'")
            _ = try tables.step()
            if tables.int64(at: 0) == 0 { throw ModelStoreError.notAModelStore(path: path, reason: "the database is empty") }
        } catch let error as SQLiteError {
            if error.primaryCode == SQLiteError.notADatabase { throw ModelStoreError.notADatabase(path: path) }
            throw ModelStoreError.cannotOpen(path: path, reason: error.message)
        }
        return try StoreBootstrap.readRecord(connection: connection, path: path)
    }

    // MARK: Schema lookups

    /// The entity named `name`.
    /// - Throws: `DynamicStoreError.unknownEntity` with the closest names.
    package func entity(named name: String) throws(DynamicStoreError) -> Schema.Entity {
        guard let entity = schema.entity(named: name) else {
            throw .unknownEntity(name, suggestions: Suggestions.closest(to: name, in: schema.entities.map(\.name)))
        }
        return entity
    }

    func table(named name: String) throws(DynamicStoreError) -> EntityTable {
        guard let table = store.table(named: name) else {
            throw .unknownEntity(name, suggestions: Suggestions.closest(to: name, in: schema.entities.map(\.name)))
        }
        return table
    }

    /// The names of `entity`'s properties closest to `name`, for "did you mean".
    package func suggestions(forProperty name: String, of entity: Schema.Entity) -> [String] {
        Suggestions.closest(to: name, in: entity.attributes.map(\.name) + entity.relationships.map(\.name))
    }

    /// The other end of a relationship, if it has one.
    func inverse(of relationship: Schema.Relationship) -> Schema.Relationship? {
        relationship.inverseName.flatMap { schema.entity(named: relationship.destination)?.relationship(named: $0) }
    }

    // MARK: Facts about the file

    /// The number of objects of `entity`.
    /// - Throws: `DynamicStoreError.unknownEntity`; `SQLiteError`.
    package func count(_ entity: String) throws -> Int {
        let statement = try connection.prepare(try table(named: entity).countSQL)
        _ = try statement.step()
        return Int(statement.int64(at: 0))
    }

    /// The file's size in bytes (without its write-ahead log).
    package var fileSize: Int64 {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.int64Value ?? 0
    }

    /// SQLite's journal mode of the file (`wal`, `delete`, …).
    /// - Throws: `SQLiteError`.
    package func journalMode() throws -> String {
        // An immutable connection uses no journal and says `delete`; the
        // file's header says whether it is a WAL file (bytes 18 and 19, the
        // read and write versions, are 2 for WAL, 1 for the rollback journal).
        if immutableReason != nil, let handle = FileHandle(forReadingAtPath: path) {
            defer { try? handle.close() }
            if let header = try? handle.read(upToCount: 20), header.count == 20, header[18] == 2 { return "wal" }
        }
        let statement = try connection.prepare("PRAGMA journal_mode")
        guard try statement.step() else { return "unknown" }
        return statement.string(at: 0)
    }

    /// Copies the store into a new file at `destination` with SQLite's backup
    /// API: a consistent snapshot even while others write.
    /// - Throws: `ModelStoreError.cannotOpen` when `destination` exists;
    ///   `SQLiteError` when it cannot be written.
    package func backup(to destination: String, progress: (Int, Int) -> Void = { _, _ in }) throws {
        guard !FileManager.default.fileExists(atPath: destination) else {
            throw ModelStoreError.cannotOpen(path: destination, reason: "the file already exists; choose a new file")
        }
        try connection.backup(to: destination, progress: progress)
    }
}

/// An error of the dynamic layer: input that does not fit the store's schema.
package enum DynamicStoreError: Error, Equatable, Sendable, CustomStringConvertible {
    /// No entity has this name; `suggestions` are the closest names.
    case unknownEntity(String, suggestions: [String])
    /// No object has this identifier.
    case objectNotFound(ObjectID)
    /// An identifier is not of the form `Entity:ID`.
    case invalidIdentifier(String)
    /// A value does not parse as its property's type.
    case unparsableValue(entity: String, property: String, reason: String)
    /// A `key=value` edit is malformed or not allowed for the property.
    case invalidEdit(String, reason: String)
    /// A filter or sort key is malformed; `column` is the 1-based position.
    case invalidFilter(column: Int, reason: String)
    /// A sort key is malformed.
    case invalidSort(String, reason: String)
    /// An edit or import breaks the schema's rules (required values, unique
    /// values, relationship targets, counts); every problem is listed.
    case validationFailed([StoreProblem])
    /// `sql` was given a statement that writes, or more than one statement.
    case notReadOnlySQL(String)
    /// `sql` was given a statement that does not compile or that SQLite
    /// refuses to run (its message, such as `no such table: Trips`).
    case invalidSQL(String)
    /// An import file cannot be read as one (not an export, unreadable,
    /// changed while it was imported): one line each.
    case invalidImport([String])
    /// An import file's records do not fit the store's schema: every
    /// problem, each naming its kind, entity, record, property and line.
    case importProblems(ImportProblems)

    package var description: String {
        switch self {
        case .unknownEntity(let name, let suggestions):
            return "the store has no entity named '\(name)'"
                + (suggestions.isEmpty ? "" : " (the closest: \(suggestions.joined(separator: ", ")))")
        case .objectNotFound(let id):
            return "\(id) does not exist"
        case .invalidIdentifier(let text):
            return "'\(text)' is not an object identifier; write Entity:ID, such as Trip:1"
        case .unparsableValue(let entity, let property, let reason):
            return "invalid value for \(entity).\(property): \(reason)"
        case .invalidEdit(let text, let reason):
            return "invalid edit '\(text)': \(reason)"
        case .invalidFilter(let column, let reason):
            return "invalid filter at column \(column): \(reason)"
        case .invalidSort(let key, let reason):
            return "invalid sort key '\(key)': \(reason)"
        case .validationFailed(let problems):
            return problems.count == 1
                ? problems[0].message : "\(problems.count) problems: " + problems.map(\.message).joined(separator: "; ")
        case .notReadOnlySQL(let reason):
            return "refused: \(reason); sql runs read-only statements only"
        case .invalidSQL(let message):
            return "invalid SQL: \(message)"
        case .invalidImport(let problems):
            return problems.count == 1
                ? problems[0] : "\(problems.count) problems in the import file: " + problems.joined(separator: "; ")
        case .importProblems(let problems):
            let lines = problems.listed.map { problem in (problem.line.map { "line \($0): " } ?? "") + problem.message }
                + (problems.unlisted > 0 ? ["… and \(problems.unlisted) more problems"] : [])
            return problems.count == 1
                ? lines[0] : "\(problems.count) problems in the import file: " + lines.joined(separator: "; ")
        }
    }
}

extension DynamicStoreError: LocalizedError {
    /// The same text as `description`.
    package var errorDescription: String? { description }
}

/// "Did you mean" candidates by edit distance (store-tool words the
/// question).
package enum Suggestions {
    /// The names within a small edit distance of `name` (case ignored), closest first.
    package static func closest(to name: String, in names: [String]) -> [String] {
        let lowered = name.lowercased()
        let scored = names.map { ($0, distance(lowered, $0.lowercased())) }
        let limit = max(2, name.count / 3)
        return scored.filter { $0.1 <= limit }.sorted { ($0.1, $0.0) < ($1.1, $1.0) }.prefix(3).map(\.0)
    }

    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a)
        let b = Array(b)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous = Array(0...b.count)
        for i in 1...a.count {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }
}
