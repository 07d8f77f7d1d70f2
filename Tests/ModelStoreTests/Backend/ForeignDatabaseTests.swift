import Foundation
import Testing
@testable import ModelStore

/// The backend seam at the statement level: values bound through a
/// `Statement` reach the foreign database exactly, and its rows read back
/// exactly, with SQLite's statement semantics (run, rewind, reset, errors,
/// transactions). `ForwardingDatabase` is the foreign database.
@Suite("Backend seam")
struct ForeignDatabaseTests {
    private func seamConnection() throws -> (Connection, ForwardingDatabase) {
        let database = try ForwardingDatabase(path: TemporaryDirectory().file().path(percentEncoded: false))
        return (try Connection(foreign: database), database)
    }

    @Test("every storage class crosses the seam both ways unchanged")
    func typedBindingAndReading() throws {
        let (connection, _) = try seamConnection()
        try connection.execute("CREATE TABLE t (i INTEGER, r REAL, s TEXT, b BLOB, n)")
        let insert = try connection.prepare("INSERT INTO t VALUES (?, ?, ?, ?, ?)")
        try insert.bind(Int64.min, at: 1)
        try insert.bind(-1.5, at: 2)
        try insert.bind("", at: 3)
        try insert.bind(Data([1, 2, 3]), at: 4)
        try insert.bindNull(at: 5)
        try insert.run()
        try insert.bind(Int64.max, at: 1)
        try insert.bind(Double.infinity, at: 2)
        try insert.bind("héllo\u{0}world", at: 3)
        try insert.bind(Data(), at: 4)
        try insert.bind(SQLiteValue.text("dynamic"), at: 5)
        try insert.run()

        let select = try connection.prepare("SELECT i, r, s, b, n FROM t ORDER BY rowid")
        #expect(try select.step())
        #expect(select.columnCount == 5 && select.columnName(2) == "s")
        #expect(select.int64(at: 0) == .min)
        #expect(select.double(at: 1) == -1.5)
        #expect(select.storage(at: 2) == .text, "an empty string is text, not NULL")
        #expect(select.data(at: 3) == Data([1, 2, 3]))
        #expect(select.storage(at: 4) == .null)
        #expect(try select.step())
        #expect(select.int64(at: 0) == .max)
        #expect(select.double(at: 1) == .infinity)
        #expect(select.string(at: 2) == "héllo\u{0}world")
        #expect(select.storage(at: 3) == .blob, "empty Data is a zero-length blob, not NULL")
        #expect(select.cell(at: 4).string == "dynamic")
        #expect(try !select.step())
        #expect(try !select.step(), "a finished statement stays finished until reset")
    }

    @Test("numbered parameters, changes and the inserted key come from the foreign database")
    func numberedParametersChangesAndKeys() throws {
        let (connection, database) = try seamConnection()
        try connection.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, a, b)")
        let insert = try connection.prepare("INSERT INTO t (a, b) VALUES (?2, ?1)")
        try insert.bind("first", at: 1)
        try insert.bind(Int64(2), at: 2)
        try insert.run()
        #expect(connection.lastInsertRowID == 1)
        let select = try connection.prepare("SELECT a, b FROM t WHERE id = ?1 AND ?1 = 1")
        try select.bind(Int64(1), at: 1)
        #expect(try select.step())
        #expect(select.value(at: 0) == .integer(2) && select.value(at: 1) == .text("first"))
        select.reset()
        try connection.execute("INSERT INTO t (a) VALUES (1), (1)")
        let update = try connection.prepare("UPDATE t SET b = 'x' WHERE a = 1")
        try update.run()
        #expect(connection.changes == 2)
        #expect(database.statements.contains("UPDATE t SET b = 'x' WHERE a = 1"))
    }

    @Test("rewind runs the same bound values again; reset clears them")
    func rewindAndReset() throws {
        let (connection, _) = try seamConnection()
        try connection.execute("CREATE TABLE t (x)")
        let insert = try connection.prepare("INSERT INTO t VALUES (?)")
        try insert.bind(Int64(7), at: 1)
        #expect(try !insert.step())
        insert.rewind()
        #expect(try !insert.step())
        insert.rewind()
        try insert.bind(Int64(8), at: 1)
        insert.reset()
        #expect(try !insert.step())
        insert.reset()
        let select = try connection.prepare("SELECT x FROM t ORDER BY rowid")
        var values: [SQLiteValue] = []
        while try select.step() { values.append(select.value(at: 0)) }
        #expect(values == [.integer(7), .integer(7), .null])
    }

    @Test("a bind outside the SQL's parameters is refused as SQLite refuses it, on either connection")
    func bindOutOfRange() throws {
        let (foreign, _) = try seamConnection()
        let sqlite = try Connection(location: ":memory:", mode: .create)
        for connection in [foreign, sqlite] {
            try connection.execute("CREATE TABLE t (x)")
            let insert = try connection.prepare("INSERT INTO t VALUES (?)")
            for index: Int32 in [0, 2] {
                #expect {
                    try insert.bind("one", at: index)
                } throws: { error in
                    (error as? SQLiteError)?.extendedCode == 25 && (error as? SQLiteError)?.sql == "INSERT INTO t VALUES (?)"
                }
            }
            #expect(throws: SQLiteError.self) { try insert.bindNull(at: 3) }
            try insert.bind(Data([9]), at: 1)
            try insert.run()
            let select = try connection.prepare("SELECT x FROM t")
            #expect(try select.step())
            #expect(select.value(at: 0) == .blob(Data([9])), "a refused bind leaves the bound values as they were")
        }
    }

    @Test(
        "a foreign row with other than one value per column is an error naming the database, not a row of stale values",
        arguments: [(1, "1 value"), (3, "3 values")])
    func malformedForeignRow(secondRowWidth: Int, described: String) throws {
        let connection = try Connection(foreign: MalformedRowDatabase(secondRowWidth: secondRowWidth))
        let select = try connection.prepare("SELECT a, b FROM t")
        #expect(try select.step(), "a whole row reads")
        #expect(select.int64(at: 0) == 1 && select.int64(at: 1) == 2)
        #expect {
            try select.step()
        } throws: { error in
            (error as? SQLiteError)?.message == "malformed rows returned a row of \(described) for 2 columns"
        }
        select.reset()
        #expect(try select.step(), "the statement runs again after the error")
    }

    @Test("a statement runs while another one's rows are still being read")
    func nestedStatements() throws {
        let (connection, _) = try seamConnection()
        try connection.execute("CREATE TABLE t (x); INSERT INTO t VALUES (1), (2), (3)")
        let outer = try connection.prepare("SELECT x FROM t ORDER BY x")
        var pairs: [Int64] = []
        while try outer.step() {
            let inner = try connection.cachedStatement("SELECT ? * 10")
            try inner.bind(outer.int64(at: 0), at: 1)
            #expect(try inner.step())
            pairs.append(outer.int64(at: 0) + inner.int64(at: 0))
            inner.reset()
            #expect(!connection.isIdle, "a statement between its first step and its reset keeps the connection busy")
        }
        outer.reset()
        #expect(pairs == [11, 22, 33])
        #expect(connection.isIdle)
    }

    @Test("errors keep SQLite's code, message and SQL, and the statement runs again after one")
    func errors() throws {
        let (connection, _) = try seamConnection()
        try connection.execute("CREATE TABLE t (x INTEGER UNIQUE)")
        let insert = try connection.prepare("INSERT INTO t VALUES (?)")
        try insert.bind(Int64(1), at: 1)
        try insert.run()
        #expect {
            try insert.bind(Int64(1), at: 1)
            try insert.run()
        } throws: { error in
            guard let error = error as? SQLiteError else { return false }
            return error.extendedCode == 2067 && error.message.contains("UNIQUE") && error.sql == "INSERT INTO t VALUES (?)"
        }
        insert.reset()
        try insert.bind(Int64(2), at: 1)
        try insert.run()
        #expect(throws: SQLiteError.self) { try connection.prepare("SELEKT nonsense").run() }
    }

    @Test("transactions commit and roll back on the foreign database")
    func transactions() throws {
        let (connection, database) = try seamConnection()
        try connection.execute("CREATE TABLE t (x)")
        try connection.transaction { try connection.execute("INSERT INTO t VALUES (1)") }
        struct Failure: Error {}
        #expect(throws: Failure.self) {
            try connection.transaction {
                try connection.execute("INSERT INTO t VALUES (2)")
                #expect(!connection.isAutocommit)
                throw Failure()
            }
        }
        #expect(connection.isAutocommit)
        let count = try database.backing.prepare("SELECT count(*) FROM t")
        #expect(try count.step() && count.int64(at: 0) == 1)
        #expect(database.statements.contains("BEGIN IMMEDIATE TRANSACTION"))
    }

    @Test("a save tells the foreign database how many rows it inserts into each table that fills its own key")
    func insertCountsPerTable() throws {
        let store = try TestStore(.throughSeam)
        let context = ModelContext(try store.container())
        // Interleaved, as an app inserts; a unique attribute's upsert
        // returns its own key, so trips are not counted.
        for index in 0..<3 {
            context.insert(Note(text: "note \(index)"))
            if index < 2 { context.insert(AllTypes()) }
            context.insert(makeTrip("T\(index)"))
        }
        try context.save()
        let counts = ForwardingDatabase.deferredInsertCounts.withLock { $0[store.url.path(percentEncoded: false)] }
        #expect(counts == [["Note": 3, "AllTypes": 2]])
    }

    @Test(
        "parameters are counted as SQLite numbers them, outside literals, quoted names and comments",
        arguments: [
            ("SELECT 1", 0), ("SELECT ?", 1), ("SELECT ?, ?, ?", 3), ("SELECT ?3", 3), ("SELECT ?2, ?1, ?2", 2),
            ("SELECT '?', \"?\", `?`, [?] FROM t WHERE a = ?", 1), ("SELECT 'it''s ?' , ?", 1),
            ("SELECT ? -- a comment ?\n, ?", 2), ("SELECT ? /* ? */ , ?", 2), ("SELECT 1-?", 1), ("SELECT 4/?", 1),
            ("SELECT ?, ?5", 5), ("SELECT ?9, ?", 10),
        ] as [(String, Int32)])
    func parameterCount(sql: String, expected: Int32) {
        #expect(ForeignStatement.parameterCount(in: sql) == expected, "\(sql)")
    }
}

@Suite("SQL placeholders")
struct SQLPlaceholdersTests {
    @Test(
        "placeholders are renumbered in a foreign database's style, and nothing else changes",
        arguments: [
            ("SELECT ?, ?", "SELECT $1, $2"), ("SELECT ?2, ?1, ?", "SELECT $2, $1, $3"),
            ("SELECT '?', \"a?\" FROM t WHERE x = ? -- ?\n AND y = ?", "SELECT '?', \"a?\" FROM t WHERE x = $1 -- ?\n AND y = $2"),
            ("SELECT /* ? */ ?", "SELECT /* ? */ $1"), ("SELECT 'it''s', ?", "SELECT 'it''s', $1"), ("SELECT 1", "SELECT 1"),
        ] as [(String, String)])
    func renumbering(sql: String, expected: String) {
        #expect(SQLPlaceholders.scan(sql, renaming: { "$\($0)" }).sql == expected)
    }
}

/// A foreign database whose every result has two columns and two rows, the
/// second of which binds `secondRowWidth` values: what a broken
/// `ForeignRows` would do, which the seam must report rather than read the
/// first row's second value again (or refuse a bind without saying why).
private final class MalformedRowDatabase: ForeignDatabase {
    let displayName = "malformed rows"
    let isAutocommit = true
    let changes = 0
    let lastInsertRowID: Int64 = 0
    let secondRowWidth: Int

    init(secondRowWidth: Int) {
        self.secondRowWidth = secondRowWidth
    }

    private final class Rows: ForeignRows {
        let columnNames = ["a", "b"]
        let secondRowWidth: Int
        private var produced = 0

        init(secondRowWidth: Int) {
            self.secondRowWidth = secondRowWidth
        }

        func bindNext(into row: inout ForeignRow) throws(SQLiteError) -> Bool {
            produced += 1
            switch produced {
            case 1:
                row.bind(.integer(1), at: 1)
                row.bind(.integer(2), at: 2)
            case 2:
                for index in 1...secondRowWidth { row.bind(.integer(Int64(index + 2)), at: Int32(index)) }
            default: return false
            }
            return true
        }
    }

    func run(_ sql: String, parameters: [SQLiteValue]) throws(SQLiteError) -> any ForeignRows {
        Rows(secondRowWidth: secondRowWidth)
    }

    func execute(_ sql: String) throws(SQLiteError) {}
}
