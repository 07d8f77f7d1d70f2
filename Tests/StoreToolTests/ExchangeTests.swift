import Foundation
import ModelStore
import Testing

@Suite("store-tool: export and import")
struct ExchangeTests {
    static let hostile = [
        "quote \" backslash \\ slash / tab \t", "line\nbreak\r\n", "nul \0 bell \u{7} esc \u{1B}", "emoji 👩‍👩‍👧 é e\u{301}",
        "separators \u{2028}\u{2029}", "'; DROP TABLE Trip; --", "{\"key\":\"Trip:1\"}", "",
    ]

    /// The fixture with hostile strings, a reordered to-many and a store of its own.
    func prepared() throws -> Fixture {
        let fixture = try Fixture()
        let context = try fixture.context()
        let trips = try context.fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)]))
        for (index, trip) in trips.enumerated() {
            trip.notes = Self.hostile[index % Self.hostile.count] + Self.hostile[(index + 3) % Self.hostile.count]
            trip.tags = Self.hostile
        }
        let lisbon = try #require(trips.first { $0.name == "Lisbon" })
        lisbon.stops = Array(lisbon.stops.reversed())
        lisbon.stops[0].title = Self.hostile.joined()
        lisbon.budget = Budget(amount: -7, currency: "€ \"x\"")
        lisbon.startDate = Date(timeIntervalSince1970: 1_749_513_600.123_456_7)
        try context.save()
        return fixture
    }

    @Test("export → import into a new store → export gives the same objects and relationships")
    func roundTrip() throws {
        let fixture = try prepared()
        let first = fixture.file("first.json")
        let export = try fixture.run("export", fixture.path, "--format", "json", "--output", first)
        #expect(export.status == 0, "\(export.stderr)")
        let copy = fixture.file("copy.store")
        let imported = try fixture.run("import", copy, first)
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stdout.contains("imported 7 objects"), "\(imported.stdout)")
        let again = try fixture.run("export", copy, "--format", "json")
        #expect(again.status == 0, "\(again.stderr)")
        let original = try String(contentsOfFile: first, encoding: .utf8)
        #expect(again.stdout == original)

        // The typed API reads the copy as it read the original.
        let context = ModelContext(
            try ModelContainer(for: Trip.self, Traveler.self, configurations: ModelConfiguration(url: URL(filePath: copy))))
        let trips = try context.fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)]))
        let originals = try fixture.trips()
        #expect(trips.map(\.name) == originals.map(\.name))
        for (trip, source) in zip(trips, originals) {
            #expect(trip.notes == source.notes)
            #expect(trip.tags == Self.hostile)
            #expect(trip.budget == source.budget)
            #expect(trip.startDate == source.startDate)
            #expect(trip.status == source.status)
            #expect(trip.stops.map(\.title) == source.stops.map(\.title))
            #expect(trip.travelers.map(\.name) == source.travelers.map(\.name))
        }
        let lisbon = try #require(trips.first { $0.name == "Lisbon" })
        #expect(lisbon.stops.map(\.title) == [Self.hostile.joined(), "Belém"])
        let ana = try #require(try context.fetch(FetchDescriptor<Traveler>()).first)
        #expect(ana.trips.map(\.name) == ["Lisbon", "Kyoto"])
        #expect(try fixture.run("check", copy).status == 0)
    }

    @Test("an import file with several errors reports every one and writes nothing")
    func reportsAllErrors() throws {
        let fixture = try Fixture()
        let export = try fixture.run("export", fixture.path, "--format", "json")
        let schema = try #require(export.stdout.range(of: ",\"entities\":{")).lowerBound
        let file = fixture.file("bad.json")
        let body = export.stdout[..<schema] + #"""
            ,"entities":{
            "Trips":[{"key":"Trips:1"}],
            "Trip":[
            {"key":"Trip:1","attributes":{"name":"Porto","destination":"Portugal","startDate":0,"tags":[],"status":"planned","nights":"3","nme":1},"relationships":{"stops":["Stop:99"],"travelers":[]}},
            {"key":"Trip:2","attributes":{"name":"Kyoto","destination":"Japan","startDate":"someday","tags":[],"status":"planned","nights":1},"relationships":{}},
            {"key":"Trip:3","attributes":{"name":"Porto","startDate":1,"tags":[],"status":"planned","nights":1}}
            ],
            "Stop":[{"key":"Stop:1","attributes":{"title":null},"relationships":{"trip":"Trip:7"}}]
            }}
            """#
        try body.write(toFile: file, atomically: true, encoding: .utf8)
        let before = try fixture.run("export", fixture.path, "--format", "json").stdout
        for arguments in [["import", fixture.path, file], ["import", fixture.path, file, "--dry-run"]] {
            let run = try fixture.runTool(arguments)
            #expect(run.status == 2, "\(run.stderr)")
            let lines = run.stderr.split(separator: "\n").map(String.init)
            for expected in [
                "Trips: the store has no entity named 'Trips'; did you mean 'Trip'?",
                "Trip:1.nights: expected an integer (int), found \"3\"",
                "Trip:1.nme: Trip has no attribute named 'nme'; did you mean 'name'?",
                "Trip:1.stops: Stop:99 is not a record of the file (a dangling key)",
                "Trip:2.name: unique, but Trip:2 of the store has the same value",
                "Trip:2.startDate: expected a date, found \"someday\"",
                "Trip:3.destination: required, but missing",
                "Trip:3.name: unique, but Trip:1 in the file has the same value",
                "Stop:1.title: required, but null",
                "Stop:1.trip: Trip:7 is not a record of the file (a dangling key)",
                "10 problems in \(file); nothing was imported",
            ] {
                #expect(lines.contains("store-tool: error: " + expected), "missing: \(expected)\n\(run.stderr)")
            }
            #expect(lines.count == 12, "the ten problems, the --upsert note and the summary: \(run.stderr)")
        }
        #expect(try fixture.run("export", fixture.path, "--format", "json").stdout == before)
        let missing = fixture.file("never.store")
        #expect(try fixture.run("import", missing, file).status == 2)
        #expect(!FileManager.default.fileExists(atPath: missing))
    }

    @Test("--dry-run checks and runs the import and writes nothing")
    func dryRun() throws {
        let fixture = try prepared()
        let file = fixture.file("trips.json")
        #expect(try fixture.run("export", fixture.path, "--output", file).status == 0)
        let newStore = fixture.file("new.store")
        let intoNew = try fixture.run("import", newStore, file, "--dry-run")
        #expect(intoNew.status == 0, "\(intoNew.stderr)")
        #expect(intoNew.stdout.contains("dry run: would import 7 objects"))
        #expect(!FileManager.default.fileExists(atPath: newStore))

        let empty = try Fixture(populated: false)
        let intoEmpty = try empty.run("import", empty.path, file, "--dry-run")
        #expect(intoEmpty.status == 0, "\(intoEmpty.stderr)")
        #expect(try empty.run("count", empty.path, "Trip").stdout == "0\n")
        let real = try empty.run("import", empty.path, file)
        #expect(real.status == 0, "\(real.stderr)")
        #expect(try empty.trips().first { $0.name == "Lisbon" }?.stops.count == 2)
        // A second import of the same file breaks the unique names: refused whole.
        let twice = try empty.run("import", empty.path, file)
        #expect(twice.status == 2)
        #expect(try empty.run("count", empty.path, "Trip").stdout == "3\n")
    }

    @Test("jsonl and csv export one entity's rows")
    func rows() throws {
        let fixture = try Fixture()
        let csv = try fixture.run("export", fixture.path, "Stop", "--format", "csv")
        #expect(csv.status == 0, "\(csv.stderr)")
        #expect(csv.lines == ["id,title,trip", "Stop:1,Belém,Trip:1", "Stop:2,Alfama,Trip:1", "Stop:3,Fushimi Inari,Trip:2"])
        let jsonl = try fixture.run("export", fixture.path, "Trip", "--format", "jsonl")
        #expect(jsonl.lines.count == 3)
        #expect(jsonl.lines[0].hasPrefix(#"{"key":"Trip:1","attributes":{"name":"Lisbon""#), "\(jsonl.stdout)")
        #expect(jsonl.lines[0].hasSuffix(#""relationships":{"stops":["Stop:1","Stop:2"],"travelers":["Traveler:1"]}}"#))
        let two = try fixture.run("export", fixture.path, "Trip", "Stop", "--format", "csv")
        #expect(two.status == 2)
        #expect(two.stderr.contains("exports one entity"))
    }
}
