import Foundation
import Testing
@testable import ModelStore

/// A Codable attribute's value is checked against the structure its type
/// decodes from (issue 23, item 1): Trip.budget is a `Budget?` struct,
/// Trip.tags a `[String]`.
@Suite("store-tool: Codable values checked against their recorded structure")
struct CodableValueTests {
    @Test("set, insert and import refuse a Codable value that does not fit, naming the property and path; nothing is written")
    func writesRefuseBadValues() throws {
        let fixture = try Fixture()
        let cases: [(String, String)] = [
            (#"budget={"amount":"lots"}"#, #"invalid value for Trip.budget: budget.amount: expected an integer, found the string "lots""#),
            ("tags=5", "invalid value for Trip.tags: tags: expected an array of strings, found the number 5"),
            (#"tags={"x":1}"#, "invalid value for Trip.tags: tags: expected an array of strings, found an object"),
            (#"budget={"amount":1}"#, #"invalid value for Trip.budget: budget: missing the key "currency" (a string)"#),
        ]
        for (edit, message) in cases {
            let run = try fixture.run("set", fixture.path, "Trip:1", edit)
            #expect(run.status == 2, "\(edit)")
            #expect(run.stderr == "store-tool: error: \(message)\n", "\(edit)")
        }
        let insert = try fixture.run(
            "insert", fixture.path, "Trip", "name=Porto", "destination=P", "startDate=2026-04-01", "tags=[1]")
        #expect(insert.status == 2)
        #expect(insert.stderr.contains("Trip.tags: tags[0]: expected a string, found the number 1"), "\(insert.stderr)")
        let records = fixture.file("records.jsonl")
        try #"""
            {"key":"Trip:7","attributes":{"name":"Porto","destination":"P","startDate":0,"budget":{"amount":2.5,"currency":"EUR"}}}
            """#.write(toFile: records, atomically: true, encoding: .utf8)
        let imported = try fixture.run("import", fixture.path, records)
        #expect(imported.status == 2)
        #expect(imported.stderr.contains("line 1: Trip:7.budget: budget.amount: expected an integer, found the number 2.5"), "\(imported.stderr)")

        #expect(try fixture.run("count", fixture.path, "Trip").stdout == "3\n")
        let lisbon = try #require(try fixture.trips().first { $0.name == "Lisbon" })
        #expect(lisbon.budget == Budget(amount: 900, currency: "EUR") && lisbon.tags == ["city", "food"])
        // Values that fit are written.
        #expect(try fixture.run("set", fixture.path, "Trip:1", #"budget={"amount":5,"currency":"NOK"}"#, #"tags=["a"]"#).status == 0)
    }

    @Test("check finds a stored Codable value that does not fit; repair clears an optional one")
    func checkFindsBadStoredValue() throws {
        let fixture = try Fixture()
        let connection = try Connection(location: fixture.path, mode: .readWrite)
        try connection.execute(#"UPDATE Trip SET budget = '{"amount":"lots","currency":"EUR"}' WHERE name = 'Lisbon'"#)
        let check = try fixture.run("check", fixture.path)
        #expect(check.status == 1)
        #expect(check.stdout.contains(#"Trip:1.budget: budget.amount: expected an integer, found the string "lots""#), "\(check.stdout)")
        let repair = try fixture.run("repair", fixture.path, "--yes")
        #expect(repair.status == 0, "\(repair.stdout)\(repair.stderr)")
        #expect(try fixture.run("check", fixture.path).status == 0)
        #expect(try fixture.trips().first { $0.name == "Lisbon" }?.budget == nil)
    }

    @Test("a record without structures (an older app's) accepts any JSON, and schema and check say the structure is unknown")
    func olderRecordIsAccepted() throws {
        let fixture = try Fixture()
        #expect(try !fixture.run("info", fixture.path, "--format", "table").stdout.contains("JSON unchecked"))
        #expect(try fixture.run("info", fixture.path, "--format", "json").stdout.contains(#""unrecordedStructures":[],"#))
        let schemaText = try fixture.run("schema", fixture.path, "Trip")
        #expect(schemaText.lines.contains { $0.contains("budget") && $0.contains(#"structure: {"object":{"amount":"integer","currency":"string"}}"#) }, "\(schemaText.stdout)")
        let connection = try Connection(location: fixture.path, mode: .readWrite)
        let read = try connection.prepare("SELECT value FROM _modelstore_metadata WHERE key = 'schema'")
        _ = try read.step()
        var old = try Schema(recordData: Data(read.string(at: 0).utf8))
        for entity in old.entities.indices {
            for attribute in old.entities[entity].attributes.indices { old.entities[entity].attributes[attribute].codableShape = nil }
        }
        let write = try connection.prepare("UPDATE _modelstore_metadata SET value = ? WHERE key = 'schema'")
        try write.bind(String(decoding: try old.recordData(), as: UTF8.self), at: 1)
        try write.run()

        let set = try fixture.run("set", fixture.path, "Trip:2", #"budget={"amount":"lots"}"#)
        #expect(set.status == 0, "\(set.stderr)")
        let check = try fixture.run("check", fixture.path)
        #expect(check.status == 0, "\(check.stdout)")
        #expect(check.stderr.contains("note: Trip.budget: the structure of its JSON is not recorded"), "\(check.stderr)")
        let info = try fixture.run("info", fixture.path, "--format", "table")
        #expect(info.stdout.contains("JSON unchecked:  Trip.budget, Trip.tags (structure not recorded)"), "\(info.stdout)")
        let infoJSON = try fixture.run("info", fixture.path, "--format", "json")
        #expect(infoJSON.stdout.contains(#""unrecordedStructures":["Trip.budget","Trip.tags"],"#), "\(infoJSON.stdout)")
        let schema = try fixture.run("schema", fixture.path, "Trip")
        #expect(schema.lines.contains { $0.contains("budget") && $0.contains("structure not recorded") }, "\(schema.stdout)")
    }
}
