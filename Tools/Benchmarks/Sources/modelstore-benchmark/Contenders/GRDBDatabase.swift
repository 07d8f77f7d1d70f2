import GRDB

/// The GRDB contenders' connection: a `DatabaseQueue` on the same file with
/// the same settings as the others (WAL, synchronous=NORMAL; GRDB turns
/// foreign keys on by default).
func openGRDB(path: String) throws -> DatabaseQueue {
    var configuration = Configuration()
    configuration.prepareDatabase { db in
        try db.execute(sql: "PRAGMA journal_mode = WAL")
        try db.execute(sql: "PRAGMA synchronous = NORMAL")
    }
    return try DatabaseQueue(path: path, configuration: configuration)
}
