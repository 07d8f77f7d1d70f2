/// Deferred writes: how a foreign database saves many objects in a few
/// statements.
///
/// A save writes one statement per object: on SQLite a cheap step of a
/// prepared statement, on a server a network round trip each. A foreign
/// database that implements `deferWrites(insertCounts:)` may instead hold
/// back the rows of the library's plain INSERTs (`EntityTable.insertSQL`
/// without an upsert), version-checked UPDATEs (`updateSQL(ordinals:
/// checksVersion: true)`), and `LinkWriter`'s writes (UPDATEs of a row's
/// position or foreign key by its key, a join table's upserts), answering
/// each step at once:
/// - an INSERT into a table that fills its own key takes the next of the
///   keys reserved for it (`insertCounts`), which `lastInsertRowID` gives,
///   so that the save knows every new row's key before anything is sent;
///   once a table's reserved keys are used up, its inserts run one by one;
/// - an UPDATE reports one changed row; `sendDeferredWrites()` later says
///   which of them changed none, and the save reports those as conflicts
///   exactly as it reports an UPDATE that changed no row.
///
/// Invariants the database keeps, so that holding back changes nothing but
/// the number of round trips:
/// - the rows of one statement text are sent in the order they came, and
///   before any other statement runs (a read, a DELETE, a fixup UPDATE,
///   the history, COMMIT): every statement sees the writes before it;
/// - statement texts are sent in the order each first came; only writes
///   to different rows are reordered (foreign keys are checked at commit):
///   a row that would overtake a write to its table held in a later
///   statement, or that its statement already holds (a position written
///   twice), runs alone after what is held is sent;
/// - nothing is held across the transaction's end: COMMIT sends first (and
///   fails if an UPDATE held back changed no row and nobody asked), and
///   ROLLBACK drops what was held.
extension ForeignDatabase {
    package func deferWrites(insertCounts: [String: Int]) throws(SQLiteError) {}

    package func sendDeferredWrites() throws(DeferredWriteFailure) -> [DeferredWriteMiss] { [] }
}

/// A held-back version-checked UPDATE that changed no row when it was sent.
package struct DeferredWriteMiss: Hashable, Sendable {
    /// The table's name, unquoted.
    package var table: String
    /// The row's key.
    package var key: Int64

    package init(table: String, key: Int64) {
        self.table = table
        self.key = key
    }
}

/// A held-back write that failed when it was sent.
package struct DeferredWriteFailure: Error {
    /// The table the write was for, unquoted.
    package var table: String
    /// The key of the row an UPDATE failed on; nil for an INSERT (its row
    /// has no key until the save succeeds) or when no single row failed.
    package var key: Int64?
    /// What the database said.
    package var error: SQLiteError

    package init(table: String, key: Int64?, error: SQLiteError) {
        self.table = table
        self.key = key
        self.error = error
    }
}

extension Connection {
    /// See `ForeignDatabase.deferWrites(insertCounts:)`; nothing on SQLite.
    /// - Throws: `SQLiteError` when the foreign database cannot reserve the keys.
    package func deferWrites(insertCounts: [String: Int]) throws(SQLiteError) {
        try foreign?.deferWrites(insertCounts: insertCounts)
    }

    /// See `ForeignDatabase.sendDeferredWrites()`; none on SQLite.
    /// - Throws: `DeferredWriteFailure` when a held-back write fails.
    package func sendDeferredWrites() throws(DeferredWriteFailure) -> [DeferredWriteMiss] {
        guard let foreign else { return [] }
        return try foreign.sendDeferredWrites()
    }
}
