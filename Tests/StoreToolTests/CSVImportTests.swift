import Foundation
import ModelStore
import Testing

/// CSV export and import: nil, the empty string and the text "nil" told
/// apart; values with commas, quotes and line breaks; problems by line and
/// column.
@Suite("store-tool: CSV export and import")
struct CSVImportTests {
    /// The fixture with values CSV must quote, and nil, "" and "nil".
    func prepared() throws -> Fixture {
        let fixture = try Fixture()
        let context = try fixture.context()
        let trips = try context.fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)]))
        trips[0].notes = nil
        trips[1].notes = ""
        trips[2].notes = "nil"
        trips[0].destination = "京都 👩‍👩‍👧 é e\u{301}"
        trips[1].destination = "Lisbon, \"the\" city\nline two\r\nline three"
        trips[1].tags = ["a,b", "\"x\"", ""]
        trips[1].budget = nil
        trips[2].budget = Budget(amount: 5, currency: "I,S\"K")
        let stops = try context.fetch(FetchDescriptor<Stop>(sortBy: [SortDescriptor(\.title)]))
        stops[0].title = ""
        stops[1].title = "nil"
        stops[2].title = " spaced, \"quoted\" "
        stops[2].trip = nil
        try context.save()
        return fixture
    }

    @Test("export → import → export gives the same CSV; nil, \"\" and \"nil\" stay apart")
    func roundTrip() throws {
        let fixture = try prepared()
        let trips = fixture.file("Trip.csv")
        let stops = fixture.file("Stop.csv")
        #expect(try fixture.run("export", fixture.path, "Trip", "--format", "csv", "--output", trips).status == 0)
        #expect(try fixture.run("export", fixture.path, "Stop", "--format", "csv", "--output", stops).status == 0)
        let text = try String(contentsOfFile: trips, encoding: .utf8)
        #expect(text.contains("\"Lisbon, \"\"the\"\" city\nline two\r\nline three\""), "\(text.debugDescription)")

        let copy = try Fixture(populated: false)
        let importedTrips = try copy.run("import", copy.path, trips)
        #expect(importedTrips.status == 0, "\(importedTrips.stderr)")
        #expect(importedTrips.stdout == "imported 3 objects (Trip 3)\n")
        let importedStops = try copy.run("import", copy.path, stops)
        #expect(importedStops.status == 0, "\(importedStops.stderr)")
        for (entity, file) in [("Trip", trips), ("Stop", stops)] {
            let again = try copy.run("export", copy.path, entity, "--format", "csv")
            #expect(again.stdout == (try String(contentsOfFile: file, encoding: .utf8)), "\(entity)")
        }
        let copied = try copy.trips()
        let originals = try fixture.trips()
        #expect(copied.map(\.notes) == [nil, "", "nil"])
        for (trip, source) in zip(copied, originals) {
            #expect(trip.destination == source.destination)
            #expect(trip.tags == source.tags)
            #expect(trip.budget == source.budget)
            #expect(trip.status == source.status)
            #expect(trip.startDate == source.startDate)
            #expect(trip.stops.map(\.title) == source.stops.map(\.title))
        }
        let titles = try copy.context().fetch(FetchDescriptor<Stop>(sortBy: [SortDescriptor(\.title)])).map(\.title)
        #expect(titles == ["", " spaced, \"quoted\" ", "nil"])
        #expect(try copy.run("check", copy.path).status == 0)
    }

    @Test("a header naming no property is refused, naming line 1 and its column")
    func badHeader() throws {
        let fixture = try Fixture()
        let file = fixture.file("stops.csv")
        try "id,titel,trip,trip\nStop:1,x,,\n".write(toFile: file, atomically: true, encoding: .utf8)
        let run = try fixture.run("import", fixture.path, file, "--entity", "Stop")
        #expect(run.status == 2)
        let lines = run.stderr.split(separator: "\n").map(String.init)
        #expect(
            lines == [
                "store-tool: error: line 1, column 2: Stop has no property named 'titel'; did you mean 'title'?",
                "store-tool: error: line 1, column 4: 'trip' appears twice in the header",
                "store-tool: error: 2 problems in \(file); nothing was imported",
            ], "\(run.stderr)")
        let stem = try fixture.run("import", fixture.path, file)
        #expect(stem.stderr.contains("the store has no entity named 'stops'"), "\(stem.stderr)")
    }

    @Test("every problem of the rows is reported with its line (and column); nothing is written")
    func badRows() throws {
        let fixture = try Fixture()
        let file = fixture.file("Trip.csv")
        try """
            id,name,destination,startDate,nights,tags
            Trip:10,Oslo,Norway,2026-01-01,three,[]
            Trip:11,"Bergen",Norway,"2026-01-01",2,"[1"
            Trip:12,Kyoto,Japan,2026-01-01,2,[]
            Trip:13,Tromsø,Norway,2026-01-01
            Trip:14,Bo"do,Norway,2026-01-01,2,[]
            Trip:15,"Alta"x,Norway,2026-01-01,2,[]
            Trip:16,,Norway,2026-01-01,2,[]
            Trip:17,"Molde
            """.write(toFile: file, atomically: true, encoding: .utf8)
        let before = try fixture.run("export", fixture.path).stdout
        let run = try fixture.run("import", fixture.path, file)
        #expect(run.status == 2)
        let lines = run.stderr.split(separator: "\n").map(String.init)
        for expected in [
            "line 2: Trip:10.nights: expected an integer",
            "line 3: Trip:11.tags: expected JSON, but",
            "line 4: Trip:12.name: unique, but Trip:2 of the store has the same value",
            "line 5: 4 fields, but the header has 6",
            "line 6: column 11: a quote inside an unquoted field",
            "line 7: column 15: text after a closing quote",
            "line 8: Trip:16.name: required, but null",
            "line 9: column 9: a quoted field is not closed before the end of the file",
            "8 problems in \(file); nothing was imported",
        ] {
            #expect(lines.contains { $0.hasPrefix("store-tool: error: " + expected) }, "missing: \(expected)\n\(run.stderr)")
        }
        #expect(lines.contains("store-tool: note: import --upsert updates an object of the store whose unique values a record holds, instead of refusing the record"), "\(run.stderr)")
        #expect(lines.count == 10, "\(run.stderr)")
        #expect(try fixture.run("export", fixture.path).stdout == before)
    }
}
