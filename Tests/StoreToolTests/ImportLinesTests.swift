import Foundation
import ModelStore
import Testing

/// JSONL import: records read line by line, relationship keys outside the
/// file naming objects of the store, and unique values checked per batch.
@Suite("store-tool: importing JSONL records")
struct ImportLinesTests {
    @Test("records exported as jsonl import into an existing store; their to-ones join the end of existing lists")
    func jsonlIntoExistingStore() throws {
        let fixture = try Fixture()
        let export = try fixture.run("export", fixture.path, "Stop", "--format", "jsonl")
        #expect(export.status == 0)
        // The same stops again, under new titles (titles are not unique).
        let file = fixture.file("stops.jsonl")
        try export.stdout.replacingOccurrences(of: #""title":""#, with: #""title":"again "#).write(toFile: file, atomically: true, encoding: .utf8)
        let run = try fixture.run("import", fixture.path, file)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == "imported 3 objects (Stop 3)\n")
        #expect(run.stderr.isEmpty, "nothing extra on stderr when piped: \(run.stderr)")
        let lisbon = try #require(try fixture.trips().first { $0.name == "Lisbon" })
        #expect(lisbon.stops.map(\.title) == ["Belém", "Alfama", "again Belém", "again Alfama"])
        #expect(try fixture.run("check", fixture.path).status == 0)
        let rows = try fixture.run("sql", fixture.path, "SELECT _trip_order FROM Stop WHERE trip = 1 ORDER BY _trip_order", "--format", "csv")
        #expect(rows.lines == ["_trip_order", "0", "1", "2", "3"])
    }

    @Test("every problem of a jsonl file is reported with its line; nothing is written")
    func jsonlProblems() throws {
        let fixture = try Fixture()
        let file = fixture.file("bad.jsonl")
        try #"""
            {"key":"Stop:10","attributes":{"title":"ok"},"relationships":{"trip":"Trip:1"}}
            {"key":"Stop:11","attributes":{"title":
            {"key":"Stop:12","attributes":{"title":"x","titel":"y"}}

            {"key":"Stop:13","attributes":{"title":"x"},"relationships":{"trip":"Trip:99"}}
            {"key":"Trip:20","attributes":{"name":"Oslo","destination":"N","startDate":0}}
            {"key":"Trip:21","attributes":{"name":"Oslo","destination":"N","startDate":0}}
            {"key":"Trip:22","attributes":{"name":"Kyoto","destination":"J","startDate":0}}
            {"key":"Stop:10","attributes":{"title":"again"}}
            {"key":"Nope:1"}
            """#.write(toFile: file, atomically: true, encoding: .utf8)
        let before = try fixture.run("export", fixture.path).stdout
        let run = try fixture.run("import", fixture.path, file)
        #expect(run.status == 2)
        let lines = run.stderr.split(separator: "\n").map(String.init)
        for expected in [
            "line 2: not a record of the form",
            "line 3: Stop:12.titel: Stop has no attribute named 'titel'; did you mean 'title'?",
            "line 5: Stop:13.trip: Trip:99 is neither a record of the file nor an object of the store",
            "line 7: Trip:21.name: unique, but Trip:20 in the file has the same value",
            "line 8: Trip:22.name: unique, but Trip:2 of the store has the same value",
            "line 9: Stop:10: the key appears more than once",
            "line 10: Nope: the store has no entity named 'Nope'",
            "7 problems in \(file); nothing was imported",
        ] {
            #expect(lines.contains { $0.hasPrefix("store-tool: error: " + expected) }, "missing: \(expected)\n\(run.stderr)")
        }
        #expect(lines.count == 9, "the problems, the --upsert note and the summary: \(run.stderr)")
        #expect(try fixture.run("export", fixture.path).stdout == before)
    }

    @Test("a jsonl file cannot create a store: it records no schema")
    func jsonlNeedsAStore() throws {
        let fixture = try Fixture()
        let file = fixture.file("trips.jsonl")
        #expect(try fixture.run("export", fixture.path, "Trip", "--format", "jsonl", "--output", file).status == 0)
        let missing = fixture.file("new.store")
        let run = try fixture.run("import", missing, file)
        #expect(run.status == 2)
        #expect(run.stderr.contains("records no schema"), "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: missing))
    }

    @Test("unique values (a #Unique pair) are checked in batches: against the store and within the file, across batch ends")
    func uniqueAcrossBatches() throws {
        let fixture = try GraphFixture()
        var lines: [String] = []
        for index in 1...1200 {
            var title = "Course \(index)"
            if index == 1100 { title = "Art" }  // (Art, autumn) is in the store
            if index == 700 { title = "Course 5" }  // the same pair as line 5
            lines.append(#"{"key":"Course:\#(index + 100)","attributes":{"title":"\#(title)","term":"autumn"}}"#)
        }
        // Another term is another pair.
        lines.append(#"{"key":"Course:2000","attributes":{"title":"Art","term":"spring"}}"#)
        let file = fixture.file("courses.jsonl")
        try lines.joined(separator: "\n").write(toFile: file, atomically: true, encoding: .utf8)
        let run = try fixture.run("import", fixture.path, file, "--dry-run")
        #expect(run.status == 2)
        let problems = run.stderr.split(separator: "\n").map(String.init)
        #expect(problems.count == 4, "two problems, the --upsert note and the summary: \(run.stderr)")
        #expect(problems.contains("store-tool: error: line 700: Course:800.(title, term): unique together (#Unique), but Course:105 in the file has the same values"), "\(run.stderr)")
        #expect(problems.contains("store-tool: error: line 1100: Course:1200.(title, term): unique together (#Unique), but Course:1 of the store has the same values"), "\(run.stderr)")
        // Without the two repeats, the other 1199 import.
        let fixed = lines.enumerated().filter { ![699, 1099].contains($0.offset) }.map(\.element)
        try fixed.joined(separator: "\n").write(toFile: file, atomically: true, encoding: .utf8)
        let ok = try fixture.run("import", fixture.path, file)
        #expect(ok.status == 0, "\(ok.stderr)")
        #expect(ok.stdout == "imported 1199 objects (Course 1199)\n")
    }
}
