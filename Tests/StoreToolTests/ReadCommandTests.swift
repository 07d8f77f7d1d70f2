import Foundation
import ModelStore
import Testing

@Suite("store-tool: inspecting a store")
struct ReadCommandTests {
    @Test("info names the format, the schema version, the fingerprint and counts per entity")
    func info() throws {
        let fixture = try Fixture()
        let run = try fixture.run("info", fixture.path, "--format", "table")
        #expect(run.status == 0)
        #expect(run.stdout.contains("Format:          \(StoreFormat.current)"))
        #expect(run.stdout.contains("Schema version:  1.0.0"))
        #expect(run.stdout.contains("matches the schema record"))
        #expect(run.lines.contains { $0.hasPrefix("  Trip") && $0.hasSuffix("3 objects") })
        #expect(run.lines.contains { $0.hasPrefix("  Stop") && $0.hasSuffix("3 objects") })
        #expect(run.stdout.contains("Journal mode:    wal"))
    }

    @Test("schema lists attributes with types and relationships with inverse and rule; mermaid and dot draw them")
    func schema() throws {
        let fixture = try Fixture()
        let text = try fixture.run("schema", fixture.path, "Trip")
        #expect(text.status == 0)
        #expect(text.stdout.contains("startDate"))
        #expect(text.stdout.contains("stops") && text.stdout.contains("inverse Stop.trip") && text.stdout.contains("cascade"))
        #expect(!text.stdout.contains("Traveler\n"))
        let mermaid = try fixture.run("schema", fixture.path, "--format", "mermaid")
        #expect(mermaid.stdout.hasPrefix("erDiagram"))
        #expect(mermaid.stdout.contains("Stop }o--o| Trip"))
        let dot = try fixture.run("schema", fixture.path, "--format", "dot")
        #expect(dot.stdout.hasPrefix("digraph schema {"))
        let json = try fixture.run("schema", fixture.path, "--format", "json")
        #expect(json.stdout.contains("\"entities\""))
    }

    @Test("sql --format csv writes NULL as an empty field, the empty string as \"\" and the text NULL as itself")
    func sqlCSVTellsNullFromText() throws {
        let fixture = try Fixture()
        let run = try fixture.run(
            "sql", fixture.path, "SELECT NULL AS a, '' AS b, 'NULL' AS c, 'x,y' AS d", "--format", "csv")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.lines == ["a,b,c,d", ",\"\",NULL,\"x,y\""])
    }

    @Test("list shows typed values readably in every format")
    func listFormats() throws {
        let fixture = try Fixture()
        let jsonl = try fixture.run("list", fixture.path, "Trip", "--sort", "name")
        #expect(jsonl.status == 0)
        #expect(jsonl.lines.count == 3)
        #expect(jsonl.lines[0].hasPrefix("{\"id\":\"Trip:2\",\"name\":\"Kyoto\""))
        #expect(jsonl.lines[1].contains("\"startDate\":\"2025-06-10T00:00:00Z\""))
        #expect(jsonl.lines[1].contains("\"budget\":{\"amount\":900,\"currency\":\"EUR\"}"))
        #expect(jsonl.lines[1].contains("\"stops\":2"))
        let csv = try fixture.run("list", fixture.path, "Stop", "--format", "csv", "--fields", "title,trip")
        #expect(csv.lines == ["id,title,trip", "Stop:1,Belém,Trip:1", "Stop:2,Alfama,Trip:1", "Stop:3,Fushimi Inari,Trip:2"])
        let json = try fixture.run("list", fixture.path, "Trip", "--format", "json", "--limit", "1", "--offset", "1")
        let decoded = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]]
        #expect(decoded?.count == 1)
        #expect(decoded?.first?["id"] as? String == "Trip:2")
        let table = try fixture.run("list", fixture.path, "Trip", "--format", "table", "--fields", "name,status")
        #expect(table.lines[0].hasPrefix("id      name"))
        #expect(table.lines.contains { $0.hasPrefix("Trip:2") && $0.contains("booked") })
    }

    @Test("filters: comparisons, to-one paths, to-many members, JSON arrays, in, nil, not, or")
    func filters() throws {
        let fixture = try Fixture()
        func ids(_ filter: String, _ entity: String = "Trip") throws -> [String] {
            let run = try fixture.run("list", fixture.path, entity, "--where", filter, "--format", "csv", "--fields", entity == "Trip" ? "name" : "title")
            #expect(run.status == 0, "\(filter): \(run.stderr)")
            return run.lines.dropFirst().map { String($0.prefix { $0 != "," }) }
        }
        #expect(try ids(#"name contains "o""#) == ["Trip:1", "Trip:2"])
        #expect(try ids(#"status == "booked""#) == ["Trip:2"])
        #expect(try ids(#"status in ["booked", "done"]"#) == ["Trip:2"])
        #expect(try ids(#"budget == nil"#) == ["Trip:2", "Trip:3"])
        #expect(try ids(#"tags contains "food""#) == ["Trip:1"])
        #expect(try ids(#"startDate > "2025-07-01" and not (name == "Reykjavik")"#) == ["Trip:2"])
        #expect(try ids(#"stops.title == "Alfama" or name startswith "Rey""#) == ["Trip:1", "Trip:3"])
        #expect(try ids(#"stops.count >= 1"#) == ["Trip:1", "Trip:2"])
        #expect(try ids(#"trip.name == "Kyoto""#, "Stop") == ["Stop:3"])
        #expect(try ids(#"travelers contains "Traveler:1""#) == ["Trip:1", "Trip:2"])
        #expect(try ids(#"nights == 3 and id > 1"#) == ["Trip:2", "Trip:3"])
        let count = try fixture.run("count", fixture.path, "Trip", "--where", "nights >= 3")
        #expect(count.stdout == "3\n")
    }

    @Test("show follows relationships to the given depth")
    func show() throws {
        let fixture = try Fixture()
        let flat = try fixture.run("show", fixture.path, "Trip:1", "--format", "table")
        #expect(flat.status == 0)
        #expect(flat.stdout.contains("stops        [Stop:1, Stop:2]"))
        #expect(!flat.stdout.contains("Belém"))
        let deep = try fixture.run("show", fixture.path, "Trip:1", "--depth", "1", "--format", "table")
        #expect(deep.stdout.contains("Belém") && deep.stdout.contains("Alfama"))
        #expect(deep.stdout.contains("Traveler:1"))
        let json = try fixture.run("show", fixture.path, "Trip:1", "--depth", "1", "--format", "json")
        #expect(json.stdout.contains("\"stops\":[{\"id\":\"Stop:1\",\"title\":\"Belém\""))
    }

    @Test("sql runs read-only statements and refuses writes, several statements and ATTACH")
    func sql() throws {
        let fixture = try Fixture()
        let read = try fixture.run("sql", fixture.path, "SELECT name FROM Trip ORDER BY name", "--format", "csv")
        #expect(read.lines == ["name", "Kyoto", "Lisbon", "Reykjavik"])
        for statement in [
            "DELETE FROM Trip", "SELECT 1; DROP TABLE Trip", "DROP TABLE Trip", "UPDATE Trip SET name = 'x'",
            "ATTACH DATABASE '\(fixture.file("other.db"))' AS other", "PRAGMA journal_mode = DELETE",
        ] {
            let run = try fixture.run("sql", fixture.path, statement)
            #expect(run.status == 2, "\(statement)")
            #expect(run.stderr.hasPrefix("store-tool: error: refused"), "\(statement): \(run.stderr)")
        }
        #expect(try fixture.trips().count == 3)
        #expect(!FileManager.default.fileExists(atPath: fixture.file("other.db")))
    }

    @Test("backup makes a copy that is a store with the same objects")
    func backup() throws {
        let fixture = try Fixture()
        let copy = fixture.file("copy.store")
        let run = try fixture.run("backup", fixture.path, copy)
        #expect(run.status == 0)
        #expect(run.stderr.isEmpty)
        let listed = try fixture.run("count", copy, "Stop")
        #expect(listed.stdout == "3\n")
        let again = try fixture.run("backup", fixture.path, copy)
        #expect(again.status == 9 && again.stderr.contains("already exists"), "\(again.stderr)")
    }

    @Test("check reports a healthy store with exit 0")
    func checkHealthy() throws {
        let fixture = try Fixture()
        let run = try fixture.run("check", fixture.path)
        #expect(run.status == 0)
        #expect(run.stdout.hasPrefix("ok"))
    }

    @Test("list streams many rows in key order")
    func manyRows() throws {
        let fixture = try Fixture(populated: false)
        let context = try fixture.context()
        for index in 0..<3000 {
            context.insert(Trip(name: "T\(index)", destination: "D", startDate: Date(timeIntervalSince1970: Double(index))))
        }
        try context.save()
        let run = try fixture.run("list", fixture.path, "Trip", "--fields", "name")
        #expect(run.lines.count == 3000)
        #expect(run.lines.last == "{\"id\":\"Trip:3000\",\"name\":\"T2999\"}")
    }
}
