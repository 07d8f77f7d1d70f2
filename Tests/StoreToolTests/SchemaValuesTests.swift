import Foundation
import ModelStore
import Testing
@testable import ModelStore

/// What the schema record says about values: an insert takes the model's
/// defaults, and an enum attribute takes only its cases.
@Suite("store-tool: defaults and enum cases from the schema record")
struct SchemaValuesTests {
    @Test("insert fills the recorded defaults of the attributes it is not given")
    func insertTakesDefaults() throws {
        let fixture = try Fixture()
        let run = try fixture.run("insert", fixture.path, "Trip", "name=Porto", "destination=Portugal", "startDate=2026-04-01")
        #expect(run.status == 0, "\(run.stderr)")
        let porto = try #require(try fixture.trips().first { $0.name == "Porto" })
        #expect(porto.status == .planned)
        #expect(porto.nights == 3)
        #expect(porto.tags == [])
        #expect(porto.notes == nil)
        // A value given wins over the default.
        let given = try fixture.run(
            "insert", fixture.path, "Trip", "name=Faro", "destination=Portugal", "startDate=2026-04-01", "nights=1", "status=done")
        #expect(given.status == 0, "\(given.stderr)")
        let faro = try #require(try fixture.trips().first { $0.name == "Faro" })
        #expect(faro.nights == 1 && faro.status == .done)
        // Attributes without a default are still required.
        let missing = try fixture.run("insert", fixture.path, "Trip", "name=Braga")
        #expect(missing.status == 7)
        #expect(missing.stderr.contains("Trip.destination is required") && missing.stderr.contains("Trip.startDate is required"))
        #expect(!missing.stderr.contains("Trip.status") && !missing.stderr.contains("Trip.nights"))
    }

    @Test("set, insert and import refuse a value that is not a case, naming the entity, property, value and cases")
    func enumValuesAreCases() throws {
        let fixture = try Fixture()
        let set = try fixture.run("set", fixture.path, "Trip:1", "status=finished")
        #expect(set.status == 2)
        #expect(set.stderr == "store-tool: error: invalid value for Trip.status: 'finished' is not a case of TripStatus; the cases are planned, booked, done\n")
        let json = try fixture.run("set", fixture.path, "Trip:1", #"status:="Planned""#)
        #expect(json.status == 2 && json.stderr.contains("'Planned' is not a case"))
        let insert = try fixture.run(
            "insert", fixture.path, "Trip", "name=Porto", "destination=P", "startDate=2026-04-01", "status='; DROP TABLE Trip; --")
        #expect(insert.status == 2)
        #expect(insert.stderr.contains(#"''; DROP TABLE Trip; --' is not a case of TripStatus"#), "\(insert.stderr)")
        #expect(try fixture.run("set", fixture.path, "Trip:1", "status=booked").status == 0)

        let records = fixture.file("records.jsonl")
        try #"""
            {"key":"Trip:7","attributes":{"name":"Porto","destination":"P","startDate":0,"status":"cancelled"}}
            """#.write(toFile: records, atomically: true, encoding: .utf8)
        let imported = try fixture.run("import", fixture.path, records)
        #expect(imported.status == 2)
        #expect(imported.stderr.contains("line 1: Trip:7.status: 'cancelled' is not a case of TripStatus; the cases are planned, booked, done"), "\(imported.stderr)")
        #expect(try fixture.run("count", fixture.path, "Trip").stdout == "3\n")
    }

    @Test("schema shows cases and defaults in text and json; check finds a stored value that is not a case")
    func schemaAndCheck() throws {
        let fixture = try Fixture()
        let text = try fixture.run("schema", fixture.path, "Trip")
        #expect(text.lines.contains { $0.contains("status") && $0.contains("cases: planned | booked | done") && $0.contains("default: planned") }, "\(text.stdout)")
        #expect(text.lines.contains { $0.contains("nights") && $0.contains("default: 3") })
        #expect(text.lines.contains { $0.contains("tags") && $0.contains("default: []") })
        #expect(!text.lines.contains { $0.contains("startDate") && $0.contains("default") })
        let json = try fixture.run("schema", fixture.path, "Trip", "--format", "json")
        #expect(json.stdout.contains(#""enumCases" : ["#), "\(json.stdout)")
        #expect(json.stdout.contains(#""defaultValue" : "planned""#))
        let connection = try Connection(location: fixture.path, mode: .readWrite)
        try connection.execute("UPDATE Trip SET status = 'lost' WHERE _pk = 2")
        let check = try fixture.run("check", fixture.path)
        #expect(check.status == 1)
        #expect(check.stdout.contains("value: Trip:2.status: 'lost' is not a case of TripStatus"), "\(check.stdout)")
    }
}
