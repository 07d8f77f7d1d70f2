import Foundation
import Testing
@testable import ModelStore

@Suite("SQLite layer")
struct SQLiteTests {
    private func memoryConnection() throws -> Connection {
        try Connection(location: ":memory:", mode: .create)
    }

    @Test func typedBindingAndReading() throws {
        let connection = try memoryConnection()
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
        #expect(select.int64(at: 0) == .min)
        #expect(select.double(at: 1) == -1.5)
        #expect(select.storage(at: 2) == .text, "an empty string is text, not NULL")
        #expect(select.string(at: 2) == "")
        #expect(select.data(at: 3) == Data([1, 2, 3]))
        #expect(select.storage(at: 4) == .null)
        #expect(try select.step())
        #expect(select.int64(at: 0) == .max)
        #expect(select.double(at: 1) == .infinity)
        #expect(select.string(at: 2) == "héllo\u{0}world")
        #expect(select.storage(at: 3) == .blob, "empty Data is a zero-length blob, not NULL")
        #expect(select.data(at: 3) == Data())
        #expect(select.value(at: 4) == .text("dynamic"))
        #expect(try !select.step())
    }

    @Test func statementCacheReusesPreparedStatements() throws {
        let connection = try memoryConnection()
        let first = try connection.cachedStatement("SELECT 1")
        let second = try connection.cachedStatement("SELECT 1")
        let other = try connection.cachedStatement("SELECT 2")
        #expect(first === second)
        #expect(first !== other)
    }

    @Test("A kept statement is handed back directly, and a new one while it still steps (a nested run of its query)")
    func keptStatementWhileRunning() throws {
        let connection = try memoryConnection()
        try connection.execute("CREATE TABLE t (i INTEGER); INSERT INTO t VALUES (1), (2), (3)")
        let sql = "SELECT i FROM t ORDER BY i"
        var kept: Statement?
        let outer = try connection.cachedStatement(sql, keptIn: &kept)
        #expect(kept === outer)
        #expect(try outer.step())
        #expect(outer.int64(at: 0) == 1)
        // The same query again inside the outer loop: not the outer
        // statement, which would be reset under it.
        let inner = try connection.cachedStatement(sql, keptIn: &kept)
        #expect(inner !== outer)
        #expect(kept === inner)
        var innerValues: [Int64] = []
        while try inner.step() { innerValues.append(inner.int64(at: 0)) }
        inner.reset()
        #expect(innerValues == [1, 2, 3])
        // The outer loop goes on where it was.
        #expect(try outer.step())
        #expect(outer.int64(at: 0) == 2)
        // Once the kept statement was reset by its user, it comes back.
        let again = try connection.cachedStatement(sql, keptIn: &kept)
        #expect(again === inner)
        #expect(try again.step())
        #expect(again.int64(at: 0) == 1)
    }

    @Test func errorsCarryCodesMessageAndSQL() throws {
        let connection = try memoryConnection()
        try connection.execute("CREATE TABLE t (x INTEGER UNIQUE)")
        try connection.execute("INSERT INTO t VALUES (1)")
        #expect {
            try connection.execute("INSERT INTO t VALUES (1)")
        } throws: { error in
            guard let error = error as? SQLiteError else { return false }
            return error.primaryCode == SQLiteError.constraint && error.extendedCode == 2067  // SQLITE_CONSTRAINT_UNIQUE
                && error.message.contains("UNIQUE") && error.sql == "INSERT INTO t VALUES (1)"
        }
        #expect {
            try connection.prepare("SELEKT nonsense")
        } throws: { error in
            (error as? SQLiteError)?.sql == "SELEKT nonsense"
        }
    }

    @Test func transactionCommitsOrRollsBack() throws {
        let connection = try memoryConnection()
        try connection.execute("CREATE TABLE t (x)")
        try connection.transaction { try connection.execute("INSERT INTO t VALUES (1)") }
        struct Failure: Error {}
        #expect(throws: Failure.self) {
            try connection.transaction {
                try connection.execute("INSERT INTO t VALUES (2)")
                throw Failure()
            }
        }
        #expect(connection.isAutocommit)
        #expect(try count(connection) == 1)
    }

    @Test func savepointsUndoOnlyTheirOwnWork() throws {
        let connection = try memoryConnection()
        try connection.execute("CREATE TABLE t (x)")
        struct Failure: Error {}
        try connection.transaction {
            try connection.execute("INSERT INTO t VALUES (1)")
            #expect(throws: Failure.self) {
                try connection.savepoint("inner") {
                    try connection.execute("INSERT INTO t VALUES (2)")
                    throw Failure()
                }
            }
            try connection.savepoint("kept") { try connection.execute("INSERT INTO t VALUES (3)") }
        }
        #expect(try count(connection) == 2)
    }

    @Test func connectionSettings() throws {
        let directory = try TemporaryDirectory()
        let connection = try Connection(location: directory.file().path, mode: .create)
        try connection.enableWriteAheadLog()
        #expect(try pragma(connection, "journal_mode") == .text("wal"))
        #expect(try pragma(connection, "foreign_keys") == .integer(1))
        #expect(try pragma(connection, "busy_timeout") == .integer(5_000))
        #expect(try pragma(connection, "trusted_schema") == .integer(0))
        #expect(try pragma(connection, "synchronous") == .integer(1))  // NORMAL
        // Defensive mode: writing the schema table by hand is refused.
        #expect(throws: SQLiteError.self) {
            try connection.execute("PRAGMA writable_schema = ON; UPDATE sqlite_schema SET sql = '' WHERE 0")
        }
    }

    @Test func openModes() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file().path
        #expect(throws: SQLiteError.self) { try Connection(location: path, mode: .readWrite) }
        let creator = try Connection(location: path, mode: .create)
        try creator.execute("CREATE TABLE t (x)")
        let reader = try Connection(location: path, mode: .readOnly)
        #expect {
            try reader.execute("INSERT INTO t VALUES (1)")
        } throws: { error in
            (error as? SQLiteError)?.primaryCode == SQLiteError.readOnly
        }
        let writer = try Connection(location: path, mode: .readWrite)
        try writer.execute("INSERT INTO t VALUES (1)")
        #expect(try count(reader) == 1)
    }

    @Test func statementObserverCountsExecutionsNotRows() throws {
        let connection = try memoryConnection()
        try connection.execute("CREATE TABLE t (x); INSERT INTO t VALUES (1), (2), (3)")
        var seen: [String] = []
        connection.statementObserver = { seen.append($0) }
        let statement = try connection.cachedStatement("SELECT x FROM t")
        while try statement.step() {}
        _ = try connection.cachedStatement("SELECT x FROM t").step()
        #expect(seen == ["SELECT x FROM t", "SELECT x FROM t"])
    }

    @Test func identifiersAreQuoted() {
        #expect(quoteIdentifier("Trip") == #""Trip""#)
        #expect(quoteIdentifier(#"a"b"#) == #""a""b""#)
    }

    private func count(_ connection: Connection) throws -> Int64 {
        let statement = try connection.prepare("SELECT count(*) FROM t")
        _ = try statement.step()
        return statement.int64(at: 0)
    }

    private func pragma(_ connection: Connection, _ name: String) throws -> SQLiteValue {
        let statement = try connection.prepare("PRAGMA \(name)")
        _ = try statement.step()
        return statement.value(at: 0)
    }
}
