import Foundation

/// The keys of ModelStore's metadata table.
package enum MetadataKey {
    package static let table = "_modelstore_metadata"
    package static let formatVersion = "formatVersion"
    package static let storeIdentifier = "storeIdentifier"
    package static let schema = "schema"
    package static let schemaFingerprint = "schemaFingerprint"
    package static let schemaVersion = "schemaVersion"
}

/// Sets up a new store, or checks an existing one, on a fresh connection.
package struct StoreBootstrap {
    let connection: Connection
    let schema: Schema
    let configuration: ModelConfiguration
    /// The container's migration, which opening runs when the store needs
    /// one and the configuration has none of its own
    /// (`ModelConfiguration.openMigration`, with a scripts folder).
    let migrator: any OpenMigrating
    var migrationPlan: (any SchemaMigrationPlan.Type)? = nil
    /// Open a store that holds schema objects ModelStore did not make instead
    /// of refusing it: only for a read-only store (nothing it runs can fire
    /// a trigger), which store-tool's dynamic layer opens to show and check
    /// such a file.
    var toleratesForeignObjects = false
    /// Keep the file in rollback-journal mode instead of WAL: for the stores
    /// of a container of several configurations, whose saves span files
    /// (see StoreAttachments.swift).
    var usesRollbackJournal = false

    var path: String { configuration.displayPath }

    /// What opening found: the store's identifier, and the schema objects
    /// ModelStore did not make (empty unless `toleratesForeignObjects`).
    struct Outcome {
        let identifier: String
        /// The store's format once opened: the current one for a writable
        /// store, what the file has for a read-only one.
        var formatVersion = StoreFormat.current
        var foreignObjects: [ForeignSchemaObject] = []
    }

    /// Sets up or checks the store.
    /// - Throws: `ModelStoreError` naming the file and the problem.
    func run() throws -> Outcome {
        // One read of sqlite_schema says whether the file is empty, whether
        // it has ModelStore's metadata, and what the audit compares.
        let rows = try readSchemaRows()
        if rows.tableCount == 0 {
            guard configuration.allowsSave else {
                throw ModelStoreError.notAModelStore(path: path, reason: "the database is empty")
            }
            if !configuration.isStoredInMemoryOnly { try setJournalMode() }
            return try create()
        }
        let identifier = try check(schemaRows: rows)
        if configuration.allowsSave && !configuration.isStoredInMemoryOnly { try setJournalMode() }
        return identifier
    }

    private func setJournalMode() throws {
        guard usesRollbackJournal else { return try wrap { try connection.enableWriteAheadLog() } }
        // Leaving WAL needs the only connection to the file: SQLite keeps
        // WAL (and says so) while another process has the file open.
        var mode = ""
        try wrap {
            let statement = try connection.prepare("PRAGMA journal_mode = DELETE")
            if try statement.step() { mode = statement.string(at: 0) }
        }
        guard mode.lowercased() == "delete" else {
            throw ModelStoreError.cannotOpen(
                path: path,
                reason: "it stays in \(mode) journal mode (another process has it open), and a store of a container "
                    + "of several configurations needs the rollback journal, so that a save across its files is atomic")
        }
    }

    /// The file's `sqlite_schema`, its first read: a file that is not a
    /// database fails here.
    /// - Throws: `ModelStoreError.notADatabase`, `.cannotOpen`.
    private func readSchemaRows() throws -> SchemaRows {
        do {
            return try SchemaAudit.schemaRows(connection)
        } catch {
            if error.primaryCode == SQLiteError.notADatabase { throw ModelStoreError.notADatabase(path: path) }
            throw ModelStoreError.cannotOpen(path: path, reason: error.message)
        }
    }

    private func create() throws -> Outcome {
        let identifier = UUID().uuidString
        try wrap {
            try connection.transaction {
                // Another process may have created the store between our check
                // and our write lock; then we check its store instead.
                let statement = try connection.prepare("SELECT count(*) FROM sqlite_schema WHERE type = 'table'")
                _ = try statement.step()
                guard statement.int64(at: 0) == 0 else { return }
                try connection.execute(
                    "CREATE TABLE \(quoteIdentifier(MetadataKey.table)) (\"key\" TEXT PRIMARY KEY NOT NULL, \"value\" ANY) STRICT")
                for sql in SchemaSQL.createStatements(schema) {
                    try connection.execute(sql)
                }
                for upgrade in StoreFormat.upgrades {
                    try connection.execute(upgrade.sql)
                }
                // A new store already has the schema the scripts lead to:
                // they are recorded as applied (a baseline), never run on it.
                try configuration.openMigration?.recordBaseline(schema, in: connection)
                let record = try schema.canonicalRecord().text
                let values: [(String, SQLiteValue)] = [
                    (MetadataKey.formatVersion, .integer(Int64(Store.formatVersion))),
                    (MetadataKey.storeIdentifier, .text(identifier)),
                    (MetadataKey.schema, .text(record)),
                    (MetadataKey.schemaFingerprint, .text(schema.fingerprint)),
                    (MetadataKey.schemaVersion, .text(schema.version.description)),
                ]
                let insert = try connection.prepare(
                    "INSERT INTO \(quoteIdentifier(MetadataKey.table)) (\"key\", \"value\") VALUES (?, ?)")
                for (key, value) in values {
                    insert.reset()
                    try insert.bind(key, at: 1)
                    try insert.bind(value, at: 2)
                    try insert.run()
                }
            }
        }
        return try check()
    }

    /// Reads and checks the metadata of an existing store, and that its
    /// file holds only the schema objects ModelStore made (before anything
    /// is written to it, so that no foreign trigger ever runs).
    /// Migrates it first when the app's schema, a migration plan, a scripts
    /// folder or an older store format asks for it.
    /// `schemaRows`: the file's `sqlite_schema` as `run()` read it, when
    /// nothing has changed the file since; nil to read it again.
    private func check(schemaRows: SchemaRows? = nil) throws -> Outcome {
        let record = try StoreBootstrap.readRecord(
            connection: connection, path: path, expected: schema,
            metadataTableExists: schemaRows?.hasTable(named: MetadataKey.table))
        let foreignObjects = try StoreBootstrap.foreignObjects(
            connection: connection, record: record, path: path, rows: schemaRows)
        if !foreignObjects.isEmpty {
            guard toleratesForeignObjects && !configuration.allowsSave else {
                throw ModelStoreError.foreignSchemaObjects(path: path, objects: foreignObjects)
            }
            return Outcome(identifier: record.identifier, formatVersion: record.formatVersion, foreignObjects: foreignObjects)
        }
        let differences = record.matchesExpected ? [] : schema.differences(from: record.schema)
        let wantsMigration =
            record.formatVersion < Store.formatVersion || configuration.openMigration != nil
            || migrationPlan != nil || !differences.isEmpty
        if configuration.allowsSave && wantsMigration {
            let opening = StoreOpening(
                connection: connection, configuration: configuration, target: schema, stored: record.schema,
                storedFormat: record.formatVersion, identifier: record.identifier, plan: migrationPlan)
            guard try (configuration.openMigration ?? migrator).migrate(opening) else {
                if differences.isEmpty {
                    refreshValueDescriptions(record.schema)
                    return Outcome(identifier: record.identifier, formatVersion: record.formatVersion)
                }
                throw ModelStoreError.schemaMismatch(path: path, differences: differences)
            }
            return try check()
        }
        guard differences.isEmpty else {
            throw ModelStoreError.schemaMismatch(path: path, differences: differences)
        }
        if configuration.allowsSave && !record.matchesExpected { refreshValueDescriptions(record.schema) }
        return Outcome(identifier: record.identifier, formatVersion: record.formatVersion)
    }

    /// The schema objects of the file that its record does not account for.
    /// - Throws: `ModelStoreError.cannotOpen` when the schema cannot be read.
    /// `rows`, when given, is the file's `sqlite_schema` as just read.
    static func foreignObjects(
        connection: Connection, record: Record, path: String, rows: SchemaRows? = nil
    ) throws -> [ForeignSchemaObject] {
        do {
            guard case .text(let recordText)? = record.metadata[MetadataKey.schema] else {
                let resolved = record.matchesExpected ? record.schema : try record.schema.resolvingRelationships()
                return try SchemaAudit(schema: resolved).foreignObjects(in: connection)
            }
            return try SchemaAudit.foreignObjects(
                recordText: recordText,
                schema: { record.matchesExpected ? record.schema : try record.schema.resolvingRelationships() },
                in: connection, rows: rows)
        } catch let error as SQLiteError {
            throw ModelStoreError.cannotOpen(path: path, reason: "its schema cannot be read: \(error.message)")
        }
    }

    /// Brings what the record says about attribute values (enum cases,
    /// constant defaults, Codable structures) up to the app's schema when only that differs: a
    /// store written before ModelStore recorded them, or an app that changed
    /// a default. The tables, the fingerprint and the recorded version stay.
    ///
    /// Best effort: when another process holds the write lock past the
    /// timeout, the record keeps its old descriptions until the next open;
    /// nothing the app reads or writes depends on them.
    private func refreshValueDescriptions(_ stored: Schema) {
        var refreshed = stored
        var changed = false
        for (entityIndex, entity) in stored.entities.enumerated() {
            guard let appEntity = schema.entity(named: entity.name) else { continue }
            for (attributeIndex, attribute) in entity.attributes.enumerated() {
                guard let app = appEntity.attribute(named: attribute.name),
                    app.enumCases != attribute.enumCases || app.defaultValue != attribute.defaultValue
                        || app.codableShape != attribute.codableShape
                else { continue }
                refreshed.entities[entityIndex].attributes[attributeIndex].enumCases = app.enumCases
                refreshed.entities[entityIndex].attributes[attributeIndex].defaultValue = app.defaultValue
                refreshed.entities[entityIndex].attributes[attributeIndex].codableShape = app.codableShape
                changed = true
            }
        }
        guard changed else { return }
        try? connection.transaction { try StoreFormat.writeSchemaRecord(refreshed, connection) }
    }

    /// What an existing store records about itself: its format, identifier
    /// and schema, checked, and every metadata value.
    package struct Record {
        package let formatVersion: Int
        package let identifier: String
        package let schema: Schema
        package let metadata: [String: SQLiteValue]
        /// The record's text is the expected schema's canonical record, so
        /// `schema` is that schema's record: resolved, valid, and without
        /// differences from it.
        package var matchesExpected = false
    }

    /// True when the two texts are the same bytes (not merely canonically
    /// equivalent, as `==` on strings asks): a record's text is compared
    /// with the app's byte for byte. One `memcmp` for native strings.
    private static func sameBytes(_ left: String, _ right: String) -> Bool {
        var left = left
        var right = right
        return left.withUTF8 { leftBytes in
            right.withUTF8 { rightBytes in
                leftBytes.count == rightBytes.count
                    && (leftBytes.isEmpty || memcmp(leftBytes.baseAddress!, rightBytes.baseAddress!, leftBytes.count) == 0)
            }
        }
    }

    /// Reads the metadata of an existing store; used to open a store with
    /// the schema it records (store-tool) as well as to check one.
    /// - Throws: `ModelStoreError.notAModelStore` or `.newerFormat`.
    ///
    /// With `expected` (the app's validated schema), a record whose text is
    /// byte for byte `expected`'s canonical text (`Schema.canonicalRecord()`)
    /// is not decoded: equal texts are equal schemas, and the record's schema
    /// is `expected` as its record reads. Any other text, even one that only
    /// orders or spaces its JSON differently, is decoded and validated as
    /// without `expected`.
    ///
    /// `metadataTableExists`, when the caller has just asked, spares asking
    /// again.
    package static func readRecord(
        connection: Connection, path: String, expected: Schema? = nil, metadataTableExists: Bool? = nil
    ) throws -> Record {
        let metadata = try readMetadata(connection: connection, path: path, tableExists: metadataTableExists)
        guard case .integer(let format)? = metadata[MetadataKey.formatVersion] else {
            throw ModelStoreError.notAModelStore(path: path, reason: "its metadata has no format version")
        }
        guard format <= Store.formatVersion else {
            throw ModelStoreError.newerFormat(path: path, found: Int(format), supported: Store.formatVersion)
        }
        guard case .text(let identifier)? = metadata[MetadataKey.storeIdentifier] else {
            throw ModelStoreError.notAModelStore(path: path, reason: "its metadata has no store identifier")
        }
        guard case .text(let record)? = metadata[MetadataKey.schema] else {
            throw ModelStoreError.notAModelStore(path: path, reason: "its metadata has no schema record")
        }
        if let expected, let canonical = try? expected.canonicalRecord(), sameBytes(record, canonical.text) {
            return Record(
                formatVersion: Int(format), identifier: identifier, schema: canonical.schema, metadata: metadata,
                matchesExpected: true)
        }
        let stored: Schema
        do {
            stored = try Schema(recordData: Data(record.utf8))
        } catch {
            throw ModelStoreError.notAModelStore(path: path, reason: "its schema record cannot be read: \(error)")
        }
        // One rule for every reader (the app's container, store-tool, the
        // migrator): a record that is not a valid schema (a relationship to
        // an unknown entity, an inverse that does not point back, two
        // entities of one name) describes no store ModelStore could have
        // written, so nothing read through it could be trusted.
        do {
            try stored.validate()
        } catch {
            let reason: String
            if case .invalidSchema(let text) = error { reason = text } else { reason = error.description }
            throw ModelStoreError.notAModelStore(path: path, reason: "its schema record is not a valid schema: \(reason)")
        }
        return Record(formatVersion: Int(format), identifier: identifier, schema: stored, metadata: metadata)
    }

    private static func readMetadata(connection: Connection, path: String, tableExists: Bool?) throws -> [String: SQLiteValue] {
        do {
            let exists: Bool
            if let tableExists {
                exists = tableExists
            } else {
                let statement = try connection.prepare("SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = ?")
                try statement.bind(MetadataKey.table, at: 1)
                _ = try statement.step()
                exists = statement.int64(at: 0) == 1
            }
            guard exists else {
                throw ModelStoreError.notAModelStore(path: path, reason: "it has no \(MetadataKey.table) table")
            }
            let statement = try connection.prepare(
                "SELECT \"key\", \"value\" FROM \(quoteIdentifier(MetadataKey.table))")
            var result: [String: SQLiteValue] = [:]
            while try statement.step() {
                result[statement.string(at: 0)] = statement.value(at: 1)
            }
            return result
        } catch let error as SQLiteError {
            if error.primaryCode == SQLiteError.notADatabase { throw ModelStoreError.notADatabase(path: path) }
            throw ModelStoreError.notAModelStore(path: path, reason: "its metadata cannot be read: \(error.message)")
        }
    }

    private func wrap(_ body: () throws -> Void) throws {
        do {
            try body()
        } catch let error as ModelStoreError {
            throw error
        } catch let error as SQLiteError {
            if error.primaryCode == SQLiteError.notADatabase { throw ModelStoreError.notADatabase(path: path) }
            throw ModelStoreError.cannotOpen(path: path, reason: error.message)
        }
    }
}
