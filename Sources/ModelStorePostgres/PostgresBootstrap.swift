import Foundation
import ModelStore
import PostgresNIO

/// Sets up a PostgreSQL schema as a ModelStore store, or checks one: the
/// metadata table (`_modelstore_metadata`: format version, store
/// identifier, the schema record and its fingerprint and version, the same
/// record text a SQLite store holds) and the schema's tables.
///
/// Several app servers may start at once on one new database: the check and
/// the creation run in one transaction under a transaction-scoped advisory
/// lock keyed by the PostgreSQL schema's name, and PostgreSQL's DDL is
/// transactional, so exactly one server creates the tables and the others,
/// once the lock is theirs, find them and check them.
///
/// An existing store whose record differs from the app's schema is refused
/// with `ModelStoreError.schemaMismatch`, as a SQLite store is. There is no
/// migration on PostgreSQL yet: that is a later step of the backend.
package struct PostgresBootstrap {
    /// The format of a ModelStore store in PostgreSQL, recorded under the
    /// same key as SQLite's format but counted on its own: format 1 is the
    /// metadata table and the entity tables, without the change history and
    /// migration tables of SQLite's format 4 (later steps).
    package static let formatVersion = 1

    /// The connection the bootstrap runs on (its schema is the store's).
    package let executor: PostgresExecutor
    /// The app's schema.
    package let schema: Schema

    /// What bootstrapping found.
    package struct Outcome: Equatable {
        /// The store's identifier (a UUID made when it was created).
        package var identifier: String
        /// True when this call created the store.
        package var created: Bool

        /// An outcome (for comparisons in tests).
        package init(identifier: String, created: Bool) {
            self.identifier = identifier
            self.created = created
        }
    }

    /// A bootstrap of `schema` through `executor`; `run()` does the work.
    package init(executor: PostgresExecutor, schema: Schema) {
        self.executor = executor
        self.schema = schema
    }

    /// The store as messages name it: the server and the PostgreSQL schema.
    package var displayPath: String {
        "\(executor.location) (schema \(executor.schema ?? "public"))"
    }

    /// Creates the store if the PostgreSQL schema holds none, then checks it.
    /// - Throws: `ModelStoreError.invalidSchema` for an app schema that is
    ///   not valid (or has a name too long for PostgreSQL),
    ///   `.notAModelStore` when the PostgreSQL schema holds tables but no
    ///   store, `.newerFormat`, `.schemaMismatch`; `PostgresStoreError` when
    ///   the server refuses a statement or the connection is lost.
    package func run() throws -> Outcome {
        try schema.validate()
        let resolved = try schema.resolvingRelationships()
        let statements = try PostgresSchemaSQL.createStatements(resolved)
        let record = try resolved.canonicalRecord().text
        let created = try executor.transaction { () throws -> Bool in
            try executor.execute(
                "SELECT pg_advisory_xact_lock(hashtext('modelstore'), hashtext(current_schema()))")
            let tables = try tableNames()
            guard !tables.contains(MetadataKey.table) else { return false }
            guard tables.isEmpty else {
                throw ModelStoreError.notAModelStore(
                    path: displayPath,
                    reason: "it holds tables (\(tables.sorted().prefix(5).joined(separator: ", "))) but no \(MetadataKey.table)")
            }
            try executor.execute(
                "CREATE TABLE \(quoteIdentifier(MetadataKey.table)) (\"key\" text PRIMARY KEY, \"value\" text NOT NULL)")
            for statement in statements { try executor.execute(statement) }
            let rows = [
                (MetadataKey.formatVersion, String(Self.formatVersion)),
                (MetadataKey.storeIdentifier, UUID().uuidString),
                (MetadataKey.schema, record),
                (MetadataKey.schemaFingerprint, resolved.fingerprint),
                (MetadataKey.schemaVersion, resolved.version.description),
            ]
            for (key, value) in rows {
                var binds = PostgresBindings()
                binds.append(key)
                binds.append(value)
                try executor.execute(
                    "INSERT INTO \(quoteIdentifier(MetadataKey.table)) (\"key\", \"value\") VALUES ($1, $2)", binds)
            }
            return true
        }
        let identifier = try check(expected: resolved, expectedRecord: record)
        return Outcome(identifier: identifier, created: created)
    }

    /// The names of the tables of the current schema.
    private func tableNames() throws -> Set<String> {
        let schemaRows = try executor.execute("SELECT current_schema()").rows
        guard let row = schemaRows.first, let cell = row.first, cell.bytes != nil else {
            throw ModelStoreError.cannotOpen(path: displayPath, reason: "its schema does not exist")
        }
        let rows = try executor.execute(
            "SELECT tablename FROM pg_catalog.pg_tables WHERE schemaname = current_schema()").rows
        return Set(try rows.map { try $0.decode(String.self) })
    }

    /// Reads the store's metadata and compares its record with the app's.
    /// - Returns: the store's identifier.
    private func check(expected: Schema, expectedRecord: String) throws -> String {
        let rows = try executor.execute("SELECT \"key\", \"value\" FROM \(quoteIdentifier(MetadataKey.table))").rows
        var metadata: [String: String] = [:]
        for row in rows {
            let (key, value) = try row.decode((String, String).self)
            metadata[key] = value
        }
        guard let formatText = metadata[MetadataKey.formatVersion], let format = Int(formatText) else {
            throw ModelStoreError.notAModelStore(path: displayPath, reason: "its metadata has no format version")
        }
        guard format <= Self.formatVersion else {
            throw ModelStoreError.newerFormat(path: displayPath, found: format, supported: Self.formatVersion)
        }
        guard let identifier = metadata[MetadataKey.storeIdentifier] else {
            throw ModelStoreError.notAModelStore(path: displayPath, reason: "its metadata has no store identifier")
        }
        guard let recordText = metadata[MetadataKey.schema] else {
            throw ModelStoreError.notAModelStore(path: displayPath, reason: "its metadata has no schema record")
        }
        // Equal bytes are equal schemas (the record is a pure function of
        // the schema); anything else is decoded and compared.
        if Array(recordText.utf8) == Array(expectedRecord.utf8) { return identifier }
        let stored: Schema
        do {
            stored = try Schema(recordData: Data(recordText.utf8))
            try stored.validate()
        } catch {
            throw ModelStoreError.notAModelStore(path: displayPath, reason: "its schema record cannot be read: \(error)")
        }
        let differences = expected.differences(from: stored)
        guard differences.isEmpty else {
            throw ModelStoreError.schemaMismatch(path: displayPath, differences: differences)
        }
        // Only what describes values (enum cases, defaults, Codable shapes)
        // differs; SQLite refreshes the record then, a later step here.
        return identifier
    }
}
