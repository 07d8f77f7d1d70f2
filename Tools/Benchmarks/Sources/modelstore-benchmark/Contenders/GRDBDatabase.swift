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

/// A `DatabasePool` on the same file (workloads 13 and 14): GRDB's way to
/// read while another thread writes, with reader connections of its own
/// and one writer connection that `write` calls take in turn. It sets WAL
/// itself; synchronous=NORMAL as for the others.
func openGRDBPool(path: String) throws -> DatabasePool {
    var configuration = Configuration()
    configuration.prepareDatabase { db in
        try db.execute(sql: "PRAGMA synchronous = NORMAL")
    }
    return try DatabasePool(path: path, configuration: configuration)
}
