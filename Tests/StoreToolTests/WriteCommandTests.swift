import Foundation
import Testing

@Suite("store-tool: editing a store")
struct WriteCommandTests {
    @Test("set parses typed values, prints before and after, and the app reads them")
    func setValues() throws {
        let fixture = try Fixture()
        let run = try fixture.run(
            "set", fixture.path, "Trip:3", "status=done", "notes=Aurora", "startDate=2026-03-01T18:30:00Z",
            #"budget={"currency":"ISK","amount":250000}"#, "nights=5", "--format", "table")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("status       planned -> done"))
        let trip = try #require(try fixture.trips().first { $0.name == "Reykjavik" })
        #expect(trip.status == .done)
        #expect(trip.notes == "Aurora")
        #expect(trip.nights == 5)
        #expect(trip.budget == Budget(amount: 250_000, currency: "ISK"))
        #expect(trip.startDate == Date(timeIntervalSince1970: 1_772_389_800))
        let cleared = try fixture.run("set", fixture.path, "Trip:3", "notes=nil")
        #expect(cleared.status == 0)
        #expect(try fixture.trips().first { $0.name == "Reykjavik" }?.notes == nil)
        let text = try fixture.run("set", fixture.path, "Trip:3", #"notes:="nil""#)
        #expect(text.status == 0)
        #expect(try fixture.trips().first { $0.name == "Reykjavik" }?.notes == "nil")
    }

    @Test("relationships: rel=, rel+=, rel-= keep inverses right")
    func relationships() throws {
        let fixture = try Fixture()
        // Moving a stop to another trip takes it from its old trip.
        #expect(try fixture.run("set", fixture.path, "Trip:2", "stops+=Stop:1").status == 0)
        var trips = try fixture.trips()
        #expect(trips.first { $0.name == "Kyoto" }?.stops.map(\.title) == ["Fushimi Inari", "Belém"])
        #expect(trips.first { $0.name == "Lisbon" }?.stops.map(\.title) == ["Alfama"])
        #expect(try fixture.run("set", fixture.path, "Stop:2", "trip=Trip:3").status == 0)
        #expect(try fixture.run("set", fixture.path, "Trip:2", "stops-=Stop:3").status == 0)
        #expect(try fixture.run("set", fixture.path, "Traveler:1", "trips=Trip:3,Trip:1").status == 0)
        trips = try fixture.trips()
        #expect(trips.first { $0.name == "Reykjavik" }?.stops.map(\.title) == ["Alfama"])
        #expect(trips.first { $0.name == "Kyoto" }?.stops.map(\.title) == ["Belém"])
        #expect(trips.first { $0.name == "Kyoto" }?.travelers.isEmpty == true)
        #expect(trips.first { $0.name == "Reykjavik" }?.travelers.map(\.name) == ["Ana"])
        let check = try fixture.run("check", fixture.path)
        #expect(check.status == 0, "\(check.stdout)")
    }

    @Test("insert prints the new identifier; the app fetches the object")
    func insert() throws {
        let fixture = try Fixture()
        let run = try fixture.run(
            "insert", fixture.path, "Trip", "name=Porto", "destination=Portugal", "startDate=2026-04-01", "tags=[\"wine\"]",
            "status=planned", "nights=2")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == "Trip:4\n")
        let stop = try fixture.run("insert", fixture.path, "Stop", "title=Ribeira", "trip=Trip:4")
        #expect(stop.stdout == "Stop:4\n")
        let porto = try #require(try fixture.trips().first { $0.name == "Porto" })
        #expect(porto.tags == ["wine"])
        #expect(porto.stops.map(\.title) == ["Ribeira"])
    }

    @Test("--dry-run shows the effect and writes nothing")
    func dryRun() throws {
        let fixture = try Fixture()
        let set = try fixture.run("set", fixture.path, "Trip:1", "name=Porto", "--dry-run", "--format", "table")
        #expect(set.status == 0)
        #expect(set.stdout.contains("Lisbon -> Porto"))
        let insert = try fixture.run(
            "insert", fixture.path, "Trip", "name=Porto", "destination=P", "startDate=2026-04-01", "tags=[]", "status=planned",
            "nights=1", "--dry-run")
        #expect(insert.status == 0)
        #expect(insert.stdout.contains("would insert Trip:4"))
        let delete = try fixture.run("delete", fixture.path, "Trip:1", "--dry-run")
        #expect(delete.status == 0)
        #expect(try fixture.trips().map(\.name) == ["Kyoto", "Lisbon", "Reykjavik"])
    }

    @Test("delete prints the plan, needs --yes, cascades and is blocked by .deny")
    func delete() throws {
        let fixture = try Fixture()
        let plan = try fixture.run("delete", fixture.path, "Trip:1")
        #expect(plan.status == 0)
        #expect(
            plan.lines == ["delete 3 objects:", "  Trip: 1 (selected)", "  Stop: 2 (cascade from Trip.stops)", "nothing was deleted; add --yes to delete"],
            "\(plan.stdout)")
        let verbose = try fixture.run("delete", fixture.path, "Trip:1", "--verbose")
        #expect(verbose.lines.contains("deleted: Stop:1, Stop:2, Trip:1"), "\(verbose.stdout)")
        #expect(try fixture.trips().count == 3)
        let denied = try fixture.run("delete", fixture.path, "Traveler:1", "--yes")
        #expect(denied.status == 7)
        #expect(denied.stdout.contains("blocked: Traveler.trips (delete rule deny) of 1 object still holds 2 objects not deleted"), "\(denied.stdout)")
        #expect(!denied.stdout.contains("Trip:1"), "identifiers only with --verbose")
        let deniedVerbose = try fixture.run("delete", fixture.path, "Traveler:1", "--verbose")
        #expect(deniedVerbose.stdout.contains("blocked: Traveler:1.trips still holds Trip:1, Trip:2"), "\(deniedVerbose.stdout)")
        #expect(denied.stderr.contains("cannot delete Traveler:1"))
        let done = try fixture.run("delete", fixture.path, "Trip", "--where", #"destination == "Portugal""#, "--yes")
        #expect(done.status == 0, "\(done.stderr)")
        #expect(try fixture.trips().map(\.name) == ["Kyoto", "Reykjavik"])
        let stops = try fixture.run("count", fixture.path, "Stop")
        #expect(stops.stdout == "1\n")
    }

    @Test("delete --where prints counts per entity, not the identifiers (those with --verbose)")
    func deleteSummary() throws {
        let fixture = try Fixture()
        let plan = try fixture.run("delete", fixture.path, "Stop", "--where", #"title != "x""#)
        #expect(plan.status == 0, "\(plan.stderr)")
        #expect(plan.lines == ["delete 3 objects:", "  Stop: 3 (selected)", "nothing was deleted; add --yes to delete"], "\(plan.stdout)")
        let verbose = try fixture.run("delete", fixture.path, "Stop", "--where", #"title != "x""#, "--verbose")
        #expect(verbose.lines.contains("deleted: Stop:1, Stop:2, Stop:3"), "\(verbose.stdout)")
    }
}
