import Foundation
import ModelStore
import Testing
@testable import ModelStore

/// A stored value that does not fit its type (text that is not JSON in a
/// Codable column) is shown as bad and the command goes on: one bad row does
/// not hide the others, and `set` can overwrite it (issue 23 item 2).
@Suite("store-tool: a stored value that does not fit its type")
struct UnreadableValueTests {
    /// The fixture with Kyoto's budget (Trip:2) and Reykjavik's tags (Trip:3)
    /// made unreadable.
    private func damagedFixture() throws -> Fixture {
        let fixture = try Fixture()
        let connection = try Connection(location: fixture.path, mode: .readWrite)
        try connection.execute("UPDATE Trip SET budget = '{not json' WHERE name = 'Kyoto'")
        try connection.execute("UPDATE Trip SET tags = '[1,' WHERE name = 'Reykjavik'")
        return fixture
    }

    @Test("list shows every object, each bad value marked with its problem, and notes them on stderr")
    func listGoesOn() throws {
        let fixture = try damagedFixture()
        let table = try fixture.run("list", fixture.path, "Trip", "--fields", "name,budget,tags", "--format", "table")
        #expect(table.status == 0, "\(table.stderr)")
        #expect(table.lines.count == 5, "a header, a rule and all three trips: \(table.stdout)")
        // Cut to the table's column width; `show` and JSON print it whole.
        #expect(table.stdout.contains("<unreadable: the stored text is not valid JSON; stored"))
        #expect(table.stdout.contains("Lisbon") && table.stdout.contains("Reykjavik"))
        #expect(table.stderr.contains("2 stored values could not be read"))

        let jsonl = try fixture.run("list", fixture.path, "Trip", "--fields", "name,budget", "--format", "jsonl")
        #expect(jsonl.status == 0)
        #expect(jsonl.lines.count == 3)
        #expect(jsonl.lines[1] == #"{"id":"Trip:2","name":"Kyoto","budget":{"$unreadable":{"problem":"the stored text is not valid JSON","stored":"{not json"}}}"#)
        #expect(jsonl.stderr.contains("1 stored value could not be read"))

        let csv = try fixture.run("list", fixture.path, "Trip", "--fields", "name,tags", "--format", "csv")
        #expect(csv.status == 0)
        #expect(csv.stdout.contains("<unreadable: the stored text is not valid JSON; stored \"\"[1,\"\">"))
    }

    @Test("show marks the bad value, in text and JSON, and follows relationships")
    func showGoesOn() throws {
        let fixture = try damagedFixture()
        let text = try fixture.run("show", fixture.path, "Trip:2", "--depth", "1", "--format", "table")
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stdout.contains("budget       <unreadable: the stored text is not valid JSON; stored \"{not json\">"))
        #expect(text.stdout.contains("Fushimi Inari"))
        #expect(text.stderr.contains("1 stored value could not be read"))
        let json = try fixture.run("show", fixture.path, "Trip:3", "--format", "json")
        #expect(json.status == 0)
        #expect(json.stdout.contains(#""tags":{"$unreadable":{"problem":"the stored text is not valid JSON","stored":"[1,"}}"#))
    }

    @Test("export writes every object, a bad value as a marker that import refuses, naming the value")
    func exportAndImport() throws {
        let fixture = try damagedFixture()
        let export = try fixture.run("export", fixture.path, "--output", fixture.file("all.json"))
        #expect(export.status == 0, "\(export.stderr)")
        #expect(export.stderr.contains("2 stored values could not be read"))
        let exported = try String(contentsOfFile: fixture.file("all.json"), encoding: .utf8)
        #expect(exported.contains(#""budget":{"$unreadable":{"problem":"the stored text is not valid JSON","stored":"{not json"}}"#))
        #expect(exported.contains(#""name":"Reykjavik""#))

        let empty = try Fixture(populated: false)
        let imported = try empty.run("import", empty.path, fixture.file("all.json"))
        #expect(imported.status == 2)
        #expect(imported.stderr.contains("Trip:2.budget: the export marks this value as unreadable in the store it came from: the stored text is not valid JSON"))
        #expect(try empty.run("count", empty.path, "Trip").stdout == "0\n", "nothing was imported")
    }

    @Test("set overwrites a bad value; an edit that leaves one fails, naming it, and writes nothing")
    func setRepairs() throws {
        let fixture = try damagedFixture()
        let kept = try fixture.run("set", fixture.path, "Trip:2", "notes=quiet")
        #expect(kept.status == 8)
        #expect(kept.stderr.contains("Trip.budget") && kept.stderr.contains("give budget a value in the same edit"))
        let repaired = try fixture.run("set", fixture.path, "Trip:2", "budget=nil", "notes=quiet")
        #expect(repaired.status == 0, "\(repaired.stderr)")
        #expect(repaired.stdout.contains(#""before":{"id":"Trip:2""#) && repaired.stdout.contains("$unreadable"))
        let list = try fixture.run("list", fixture.path, "Trip", "--where", "name == \"Kyoto\"", "--fields", "budget,notes", "--format", "jsonl")
        #expect(list.stdout == #"{"id":"Trip:2","budget":null,"notes":"quiet"}"# + "\n")
        #expect(list.stderr.isEmpty)
        let check = try fixture.run("check", fixture.path)
        #expect(check.stdout.contains("Trip:3.tags") && !check.stdout.contains("Trip:2.budget"))
    }
}
