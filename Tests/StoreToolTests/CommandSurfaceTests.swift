import Foundation
import ModelStore
import Testing
@testable import ModelStore

/// The repository's Migrations/ folder: the example app's scripts.
private let migrationsFolder = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appending(path: "Migrations").path(percentEncoded: false)

/// What every command shares: help with an example, --dry-run on every
/// write, and bad or hostile input refused without writing.
@Suite("store-tool: every command's help, --dry-run, and hostile input")
struct CommandSurfaceTests {
    static let commands = [
        "info", "schema", "list", "count", "show", "set", "insert", "delete", "export", "import", "check", "sql", "backup", "migrate",
    ]

    /// Every table of the store, as the tool's sql prints it.
    func snapshot(_ fixture: Fixture) throws -> String {
        var text = ""
        for table in ["Trip", "Stop", "Traveler", "Traveler.trips", "_modelstore_metadata"] {
            text += try fixture.run("sql", fixture.path, "SELECT * FROM \"\(table)\"", "--format", "csv").stdout
        }
        return text
    }

    @Test("every command's help shows an example", arguments: commands)
    func helpHasAnExample(_ command: String) throws {
        let run = try Fixture.runTool(["help", command])
        #expect(run.status == 0)
        #expect(run.stdout.contains("Example"), "\(command)")
        #expect(run.stdout.contains("store-tool \(command) "), "\(command)")
        let top = try Fixture.runTool(["--help"])
        #expect(top.stdout.contains(command))
        #expect(top.stdout.contains("Exit codes"))
    }

    @Test("store-tool --help and help list print the filter grammar")
    func helpHasTheFilterGrammar() throws {
        for arguments in [["--help"], ["help", "list"]] {
            let run = try Fixture.runTool(arguments)
            #expect(run.status == 0)
            for rule in ["condition  :=", #"op         := "==" | "!=""#, "icontains", "startswith", #"["not"] "in" list"#] {
                #expect(run.stdout.contains(rule), "\(arguments): \(rule)")
            }
        }
    }

    @Test("every write command takes --dry-run and writes nothing")
    func dryRunEverywhere() throws {
        let fixture = try Fixture()
        let export = fixture.file("trips.json")
        #expect(try fixture.run("export", fixture.path, "--output", export).status == 0)
        let copy = fixture.file("copy.store")
        let before = try snapshot(fixture)
        for arguments in [
            ["set", fixture.path, "Trip:1", "notes=x", "--dry-run"],
            ["insert", fixture.path, "Stop", "title=x", "--dry-run"],
            ["delete", fixture.path, "Trip:1", "--dry-run"],
            ["import", copy, export, "--dry-run"],
            ["migrate", fixture.path, "--scripts", migrationsFolder, "--dry-run"],
            ["backup", fixture.path, copy, "--dry-run"],
        ] {
            let run = try fixture.runTool(arguments)
            #expect(run.status == 0, "\(arguments): \(run.stderr)")
            #expect(run.stdout.contains("dry run") || run.stdout.contains("\"dryRun\":true") || arguments[0] == "migrate", "\(arguments): \(run.stdout)")
        }
        #expect(try snapshot(fixture) == before)
        #expect(!FileManager.default.fileExists(atPath: copy))
        let existing = try fixture.run("backup", fixture.path, export, "--dry-run")
        #expect(existing.status == 9 && existing.stderr.contains("already exists"), "\(existing.stderr)")
    }

    @Test("a filter comparing an enum with a value that is not a case names the cases")
    func enumFilter() throws {
        let fixture = try Fixture()
        let run = try fixture.run("list", fixture.path, "Trip", "--where", #"status == "boked""#)
        #expect(run.status == 2)
        #expect(run.stderr == "store-tool: error: invalid filter at column 11: 'boked' is not a case of TripStatus; the cases are planned, booked, done\n")
        let list = try fixture.run("count", fixture.path, "Trip", "--where", #"status in ["booked", "dun"]"#)
        #expect(list.status == 2 && list.stderr.contains("column 22") && list.stderr.contains("'dun'"), "\(list.stderr)")
        #expect(try fixture.run("count", fixture.path, "Trip", "--where", #"status in ["booked", "done"]"#).stdout == "1\n")
    }

    @Test("hostile names of entities, properties, sort keys and fields are refused as unknown, never run")
    func hostileNames() throws {
        let fixture = try Fixture()
        let before = try snapshot(fixture)
        let hostile = #"Trip"; DROP TABLE "Trip"; --"#
        for arguments in [
            ["list", fixture.path, hostile], ["count", fixture.path, "Trip", "--where", #"name" = 1 OR 1 == 1"#],
            ["list", fixture.path, "Trip", "--sort", #"name"; DROP TABLE Trip; --"#], ["list", fixture.path, "Trip", "--fields", "name,\(hostile)"],
            ["set", fixture.path, "Trip:1", "\(hostile)=1"], ["insert", fixture.path, hostile, "name=x"],
            ["show", fixture.path, "\(hostile):1"], ["export", fixture.path, hostile], ["schema", fixture.path, hostile],
            ["delete", fixture.path, hostile, "--where", "name == \"x\"", "--yes"],
        ] {
            let run = try fixture.runTool(arguments)
            #expect(run.status == 2, "\(arguments): \(run.stderr)")
            #expect(run.stderr.hasPrefix("store-tool: error: ") && run.stderr.filter { $0 == "\n" }.count == 1, "\(arguments): \(run.stderr)")
        }
        #expect(try snapshot(fixture) == before)
    }

    @Test("hostile values survive insert, jsonl import and export byte for byte")
    func hostileValues() throws {
        let fixture = try Fixture()
        let values = ["'); DROP TABLE Stop; --", "\"quoted\" \\ back", "tab\there", "%_*", "é e\u{301} 👩‍👩‍👧", "line\nbreak"]
        for value in values {
            let run = try fixture.run("insert", fixture.path, "Stop", "title=\(value)", "trip=Trip:3")
            #expect(run.status == 0, "\(value): \(run.stderr)")
        }
        let exported = try fixture.run("export", fixture.path, "Stop", "--format", "jsonl")
        let file = fixture.file("stops.jsonl")
        try exported.stdout.write(toFile: file, atomically: true, encoding: .utf8)
        let imported = try fixture.run("import", fixture.path, file)
        #expect(imported.status == 0, "\(imported.stderr)")
        let reykjavik = try #require(try fixture.trips().first { $0.name == "Reykjavik" })
        #expect(reykjavik.stops.map(\.title) == values + values)
        for value in values {
            let escaped = value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
                .replacingOccurrences(of: "\n", with: "\\n").replacingOccurrences(of: "\t", with: "\\t")
            let count = try fixture.run("count", fixture.path, "Stop", "--where", "title == \"\(escaped)\"")
            #expect(count.stdout == "2\n", "\(value): \(count.stderr)")
        }
        #expect(try fixture.run("check", fixture.path).status == 0)
    }

    @Test("a locked store: import, delete and insert give up after --wait with exit 6 and write nothing")
    func lockedWrites() throws {
        let fixture = try Fixture()
        let file = fixture.file("stops.jsonl")
        #expect(try fixture.run("export", fixture.path, "Stop", "--format", "jsonl", "--output", file).status == 0)
        let before = try snapshot(fixture)
        let connection = try Connection(location: fixture.path, mode: .readWrite)
        try connection.execute("BEGIN IMMEDIATE")
        for arguments in [
            ["import", fixture.path, file, "--wait", "0"], ["delete", fixture.path, "Stop:1", "--yes", "--wait", "0"],
            ["insert", fixture.path, "Stop", "title=x", "--wait", "0"],
        ] {
            let run = try fixture.runTool(arguments)
            #expect(run.status == 6, "\(arguments): \(run.stderr)")
            #expect(run.stderr.contains("locked"), "\(arguments): \(run.stderr)")
        }
        try connection.execute("ROLLBACK")
        #expect(try snapshot(fixture) == before)
    }

    @Test("a store of a newer format is refused by writes too, with exit 5")
    func newerFormatWrites() throws {
        let fixture = try Fixture()
        let connection = try Connection(location: fixture.path, mode: .readWrite)
        try connection.execute("UPDATE _modelstore_metadata SET value = 99 WHERE key = 'formatVersion'")
        for arguments in [["set", fixture.path, "Trip:1", "notes=x"], ["insert", fixture.path, "Stop", "title=x"], ["delete", fixture.path, "Trip:1", "--yes"]] {
            let run = try fixture.runTool(arguments)
            #expect(run.status == 5, "\(arguments): \(run.stderr)")
            #expect(run.stderr.contains("format 99"), "\(arguments): \(run.stderr)")
        }
    }
}
