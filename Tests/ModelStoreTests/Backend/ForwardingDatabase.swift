import Foundation
import Synchronization
@testable import ModelStore

/// A `ForeignDatabase` that runs every statement on a SQLite file through a
/// connection of its own: the backend seam's test double. What the library
/// does through the seam must give the same results as on the file directly,
/// so the suites that run on every `StoreKind` run through it too; a real
/// foreign database (PostgreSQL) adds only its SQL and value translation.
///
/// A result is read whole before `run` returns, as `ForeignRows` asks of a
/// database whose results the library may abandon: a backing statement left
/// stepping would hold a read snapshot of the file.
final class ForwardingDatabase: ForeignDatabase {
    let backing: Connection
    let displayName: String
    /// Every SQL text run or executed, in order.
    private(set) var statements: [String] = []
    private var lastChanges = 0
    private var lastRowID: Int64 = 0

    init(path: String) throws {
        backing = try Store.connect(path, isURI: false, path: path, mode: .create)
        // Errors name the file, as they do when the store opens it directly.
        displayName = path
    }

    /// How a store opens one forwarding connection per connection it needs.
    static func opener(path: String) -> ForeignDatabaseOpener {
        ForeignDatabaseOpener(name: path) { try ForwardingDatabase(path: path) }
    }

    func run(_ sql: String, parameters: [SQLiteValue]) throws(SQLiteError) -> any ForeignRows {
        statements.append(sql)
        let statement = try backing.prepare(sql)
        for (index, value) in parameters.enumerated() { try statement.bind(value, at: Int32(index + 1)) }
        let columnNames = (0..<statement.columnCount).map(statement.columnName)
        var rows: [[SQLiteValue]] = []
        while try statement.step() { rows.append((0..<Int32(columnNames.count)).map(statement.value(at:))) }
        statement.reset()
        lastChanges = backing.changes
        lastRowID = backing.lastInsertRowID
        return BufferedForeignRows(columnNames: columnNames, rows: rows)
    }

    func execute(_ sql: String) throws(SQLiteError) {
        statements.append(sql)
        try backing.execute(sql)
    }

    /// What each save through a forwarding database told `deferWrites`,
    /// by the store's path, in order. It holds nothing back: every write
    /// runs when the library sends it.
    static let deferredInsertCounts = Mutex<[String: [[String: Int]]]>([:])

    func deferWrites(insertCounts: [String: Int]) throws(SQLiteError) {
        Self.deferredInsertCounts.withLock { $0[displayName, default: []].append(insertCounts) }
    }

    var isAutocommit: Bool { backing.isAutocommit }
    var changes: Int { lastChanges }
    var lastInsertRowID: Int64 { lastRowID }
}
