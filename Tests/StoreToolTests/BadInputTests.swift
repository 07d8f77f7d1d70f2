import Foundation
import ModelStore
import Testing
@testable import ModelStore

@Suite("store-tool: bad input gives one line on stderr, a documented exit code, and writes nothing")
struct BadInputTests {
    /// Runs, then checks the exit code, that stderr is one line, and that the store is untouched.
    func expectFailure(_ fixture: Fixture, _ arguments: [String], status: Int32, mentions: String) throws {
        let before = try fixture.run("list", fixture.path, "Trip").stdout + fixture.run("list", fixture.path, "Stop").stdout
        let run = try fixture.runTool(arguments)
        #expect(run.status == status, "\(arguments): \(run.stderr)")
        #expect(run.stderr.hasPrefix("store-tool: error: "), "\(arguments)")
        #expect(run.stderr.filter { $0 == "\n" }.count == 1, "\(arguments): \(run.stderr)")
        #expect(run.stderr.contains(mentions), "\(arguments): \(run.stderr)")
        let after = try fixture.run("list", fixture.path, "Trip").stdout + fixture.run("list", fixture.path, "Stop").stdout
        #expect(before == after, "\(arguments) changed the store")
    }

    @Test("unknown entities and properties, with did you mean")
    func unknownNames() throws {
        let fixture = try Fixture()
        try expectFailure(fixture, ["list", fixture.path, "Trips"], status: 2, mentions: "did you mean 'Trip'")
        try expectFailure(fixture, ["list", fixture.path, "Trip", "--where", "nme == 1"], status: 2, mentions: "did you mean 'name'?")
        try expectFailure(fixture, ["set", fixture.path, "Trip:1", "destinaton=x"], status: 2, mentions: "did you mean 'destination'?")
        try expectFailure(fixture, ["list", fixture.path, "Trip", "--fields", "titel"], status: 2, mentions: "no property named 'titel'")
        try expectFailure(fixture, ["list", fixture.path, "Trip", "--sort", "nam:desc"], status: 2, mentions: "'nam'")
        try expectFailure(fixture, ["show", fixture.path, "Trp:1"], status: 2, mentions: "did you mean 'Trip'")
        try expectFailure(fixture, ["show", fixture.path, "Trip:one"], status: 2, mentions: "not an object identifier")
        try expectFailure(fixture, ["show", fixture.path, "Trip:42"], status: 3, mentions: "Trip:42 does not exist")
    }

    @Test("values that do not parse as the property's type")
    func unparsableValues() throws {
        let fixture = try Fixture()
        for (edit, mentions) in [
            ("nights=123abc", "Trip.nights"), ("nights=1.5", "integer"), ("nights=99999999999999999999", "integer"),
            ("startDate=2025-13-01", "ISO 8601"), ("startDate=yesterday", "ISO 8601"), ("budget={oops", "JSON"),
            ("name=nil", "required"), ("stops+=Trip:2", "holds Stop objects"), ("stops+=Stop:99", "Stop:99 does not exist"),
            ("name=Kyoto", "unique"), ("status=", ""),
        ] where !mentions.isEmpty {
            let status: Int32 = ["required", "does not exist", "unique"].contains { mentions.contains($0) } ? 7 : 2
            try expectFailure(fixture, ["set", fixture.path, "Trip:1", edit], status: status, mentions: mentions)
        }
        try expectFailure(fixture, ["insert", fixture.path, "Trip", "name=Porto"], status: 7, mentions: "Trip.destination is required")
    }

    @Test("malformed filters name the column of the problem")
    func malformedFilters() throws {
        let fixture = try Fixture()
        for (filter, column) in [
            (#"name == "x" and ("#, 18), (#"name = "x""#, 6), (#"name == "unterminated"#, 9), (#"nights > 3abc"#, 11),
            (#"nights > "three""#, 10), (#"name ~ "x""#, 6), ("", 1), (#"status in "a""#, 11), (#"name == "x" )"#, 13),
        ] {
            try expectFailure(fixture, ["list", fixture.path, "Trip", "--where", filter], status: 2, mentions: "at column \(column):")
        }
    }

    @Test("a missing file, a folder, a file that is not SQLite, a SQLite file that is not a store")
    func notAStore() throws {
        let fixture = try Fixture()
        try expectFailure(fixture, ["info", fixture.file("missing.store")], status: 4, mentions: "no such file")
        try expectFailure(fixture, ["info", fixture.folder.path(percentEncoded: false)], status: 4, mentions: "folder")
        try Data("hello, not a database".utf8).write(to: URL(filePath: fixture.file("text.store")))
        try expectFailure(fixture, ["list", fixture.file("text.store"), "Trip"], status: 4, mentions: "not a SQLite database")
        let other = try Connection(location: fixture.file("other.db"), mode: .create)
        try other.execute("CREATE TABLE people (name TEXT)")
        try expectFailure(fixture, ["info", fixture.file("other.db")], status: 4, mentions: "not a ModelStore store")
    }

    @Test("a store of a newer format")
    func newerFormat() throws {
        let fixture = try Fixture()
        let connection = try Connection(location: fixture.path, mode: .readWrite)
        try connection.execute("UPDATE _modelstore_metadata SET value = 99 WHERE key = 'formatVersion'")
        try expectFailureWithoutListing(fixture, ["info", fixture.path], status: 5, mentions: "format 99")
    }

    @Test("a store locked by another process: the write gives up after --wait and writes nothing")
    func locked() throws {
        let fixture = try Fixture()
        let connection = try Connection(location: fixture.path, mode: .readWrite)
        try connection.execute("BEGIN IMMEDIATE")
        let run = try fixture.run("set", fixture.path, "Trip:1", "notes=locked", "--wait", "0")
        #expect(run.status == 6, "\(run.stderr)")
        #expect(run.stderr.contains("locked"))
        try connection.execute("ROLLBACK")
        #expect(try fixture.trips().first { $0.name == "Lisbon" }?.notes == nil)
    }

    @Test("check finds a value that does not fit its type and exits 1")
    func checkFindsProblems() throws {
        let fixture = try Fixture()
        let connection = try Connection(location: fixture.path, mode: .readWrite)
        try connection.execute("UPDATE Trip SET budget = 'not json' WHERE name = 'Kyoto'")
        let run = try fixture.run("check", fixture.path)
        #expect(run.status == 1)
        #expect(run.stdout.contains("value: Trip:2.budget"))
    }

    @Test("hostile strings in values and filters are data, never SQL")
    func hostileStrings() throws {
        let fixture = try Fixture()
        // (A NUL cannot be passed in an argument; the library writes one below.)
        let hostile = ["x'); DROP TABLE Trip; --", "100%", "a_b", "quote\"s", "\\back", "'"]
        for (index, text) in hostile.enumerated() {
            let run = try fixture.run("set", fixture.path, "Trip:\(index % 3 + 1)", "notes=\(text)")
            #expect(run.status == 0, "\(run.stderr)")
            let escaped = text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
                .replacingOccurrences(of: "\0", with: "\\0")
            let count = try fixture.run("count", fixture.path, "Trip", "--where", "notes == \"\(escaped)\"")
            #expect(count.stdout == "1\n", "\(text): \(count.stderr)")
        }
        let context = try fixture.context()
        let stop = try #require(try context.fetch(FetchDescriptor<Stop>()).first)
        stop.title = "nul\0byte"
        try context.save()
        let nul = try fixture.run("list", fixture.path, "Stop", "--where", #"title == "nul\0byte""#, "--fields", "title")
        #expect(nul.lines == [#"{"id":"Stop:1","title":"nul\u0000byte"}"#], "\(nul.stderr)")
        // % and _ are not wildcards.
        let percent = try fixture.run("count", fixture.path, "Trip", "--where", #"name contains "%" or name contains "_""#)
        #expect(percent.stdout == "0\n")
        let unicode = try fixture.run("count", fixture.path, "Stop", "--where", #"title == "Alfam\u{61}""#)
        #expect(unicode.stdout == "1\n")
        #expect(try fixture.trips().count == 3)
        #expect(try fixture.run("check", fixture.path).status == 0)
    }

    private func expectFailureWithoutListing(_ fixture: Fixture, _ arguments: [String], status: Int32, mentions: String) throws {
        let run = try fixture.runTool(arguments)
        #expect(run.status == status, "\(run.stderr)")
        #expect(run.stderr.hasPrefix("store-tool: error: ") && run.stderr.contains(mentions), "\(run.stderr)")
    }
}
