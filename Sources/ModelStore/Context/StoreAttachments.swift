import Foundation

// A container of several configurations keeps each configuration's entities
// in its own file (or in-memory database), but gives each context ONE
// connection: the first writable file is its main database, and every other
// store is ATTACHed to it. Entity names are unique across the container, and
// SQLite finds an unqualified table in whichever attached database holds it
// ("If two or more tables in different databases have the same name ... the
// one in the database that was least recently attached"; with unique names
// there is one), so every statement ModelStore prepares for one store works
// unchanged, and the one-configuration path is untouched.
//
// Atomicity: a save is one transaction on that connection. SQLite commits a
// transaction that wrote several attached files atomically through a
// super-journal, "assuming that the main database is not :memory: and the
// journal_mode is not WAL. If the main database is :memory: or if the
// journal_mode is WAL, then transactions continue to be atomic within each
// individual database file. But if the host computer crashes in the middle of
// a COMMIT where two or more database files are updated, some of those files
// might get the changes where others might not." (sqlite.org/lang_attach.html)
// So the files of such a container are kept in rollback-journal mode (not
// WAL), the main database is a file whenever one configuration is, and every
// database of the connection runs with synchronous = FULL. The price: a
// reader of such a container waits while a save commits, as without WAL.

/// A store of a container of several configurations, attached to every
/// connection of the container under `alias`.
struct StoreAttachment: Sendable {
    let alias: String
    let configuration: ModelConfiguration
    /// The file's path, or the shared in-memory database's URI.
    let location: String
    /// Keeps an in-memory database alive for the container's lifetime.
    let anchor: MemoryAnchor?
    /// True when the store is read immutable: a read-only file this user
    /// cannot read otherwise (see `Connection.immutableReason`).
    let isImmutable: Bool

    /// What ATTACH opens: the path; for a read-only store a URI that opens it
    /// read-only, so that SQLite refuses writes to it too (and immutable
    /// when opening it found that it must be).
    var attachLocation: String {
        guard !configuration.allowsSave, !configuration.isStoredInMemoryOnly else { return location }
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "?#%;")
        let path = location.addingPercentEncoding(withAllowedCharacters: allowed) ?? location
        return "file:\(path)?mode=ro" + (isImmutable ? "&immutable=1" : "")
    }
}

/// One configuration's store, opened, checked (or created) and migrated on
/// its own connection, before the container's connections attach it.
struct OpenedFile {
    let identifier: String
    let location: String
    let memoryAnchor: MemoryAnchor?
    /// True when the file is read immutable (see `Connection.immutableReason`).
    let isImmutable: Bool
    /// Whether the file's tables have the row version column (a read-only
    /// store of an older format is not upgraded).
    let versionSelect: VersionSelect

    /// - Throws: `ModelStoreError` naming the file and what is wrong with it.
    init(configuration: ModelConfiguration, schema: Schema, migrator: any OpenMigrating) throws {
        let connection: Connection
        if configuration.isStoredInMemoryOnly {
            location = "file:modelstore-\(UUID().uuidString)?mode=memory&cache=shared"
            connection = try Store.connect(location, isURI: true, path: configuration.displayPath, mode: .create)
            memoryAnchor = MemoryAnchor(connection: connection)
        } else {
            location = configuration.url.path(percentEncoded: false)
            connection = try Store.openFile(configuration)
            memoryAnchor = nil
        }
        isImmutable = connection.immutableReason != nil
        var bootstrap = StoreBootstrap(connection: connection, schema: schema, configuration: configuration, migrator: migrator)
        bootstrap.usesRollbackJournal = true
        let outcome = try bootstrap.run()
        identifier = outcome.identifier
        versionSelect = outcome.formatVersion >= 3 ? .column : .absent
    }
}

extension Store {
    /// Attaches the container's other stores to a new connection, and makes
    /// every database of it sync fully (see the note at the top of the file).
    /// - Throws: `ModelStoreError.cannotOpen` naming the store that cannot be attached.
    func attach(to connection: Connection) throws {
        do {
            try connection.execute("PRAGMA main.synchronous = FULL")
        } catch {
            throw ModelStoreError.cannotOpen(path: path, reason: error.message)
        }
        for attachment in attachments {
            do {
                let statement = try connection.prepare("ATTACH DATABASE ? AS \(quoteIdentifier(attachment.alias))")
                try statement.bind(attachment.attachLocation, at: 1)
                try statement.run()
                try connection.execute("PRAGMA \(quoteIdentifier(attachment.alias)).synchronous = FULL")
            } catch {
                throw ModelStoreError.cannotOpen(path: attachment.configuration.displayPath, reason: error.message)
            }
        }
    }
}
