import Foundation
import ModelStore
import Testing
@testable import ModelStore

/// `repair` fixes what `check` finds and can be fixed safely, listing every
/// fix before it writes (issue 23 item 2).
@Suite("store-tool: repair")
struct RepairCommandTests {
    /// The fixture with a problem of each kind repair meets: Kyoto's row
    /// deleted behind the store's back (its stop's to-one and Ana's join row
    /// now name a missing trip), Lisbon's optional budget not JSON, and
    /// Reykjavik's required tags not JSON.
    private func damagedFixture() throws -> Fixture {
        let fixture = try Fixture()
        let connection = try Connection(location: fixture.path, mode: .readWrite)
        try connection.execute("PRAGMA foreign_keys = OFF")
        try connection.execute("DELETE FROM Trip WHERE name = 'Kyoto'")
        try connection.execute("UPDATE Trip SET budget = '{bad' WHERE name = 'Lisbon'")
        try connection.execute("UPDATE Trip SET tags = '[' WHERE name = 'Reykjavik'")
        return fixture
    }

    @Test("without --yes it lists each fix and each problem it leaves, writes nothing, and exits 1")
    func listsFirst() throws {
        let fixture = try damagedFixture()
        let before = try Data(contentsOf: fixture.store)
        let run = try fixture.run("repair", fixture.path)
        #expect(run.status == 1, "\(run.stderr)")
        #expect(run.stdout.contains("fixes (3):"))
        #expect(run.stdout.contains("Stop:3.trip: set to nil"))
        #expect(run.stdout.contains("Trip:1.budget: set to nil (the stored text is not valid JSON)"))
        #expect(run.stdout.contains("delete 1 join row of"))
        #expect(run.stdout.contains("left as they are (1):"))
        #expect(run.stdout.contains("Trip:3.tags") && run.stdout.contains("tags is not optional: give it a value with store-tool set"))
        #expect(run.stdout.contains("nothing was written; add --yes"))
        let dryRun = try fixture.run("repair", fixture.path, "--dry-run")
        #expect(dryRun.stdout.contains("dry run: nothing was written"))
        #expect(try Data(contentsOf: fixture.store) == before)
    }

    @Test("--yes writes every fix in one transaction, recorded in the history; check then finds only what was left")
    func appliesFixes() throws {
        let fixture = try damagedFixture()
        let run = try fixture.run("repair", fixture.path, "--yes")
        #expect(run.status == 1, "a problem is left: \(run.stderr)")
        #expect(run.stdout.contains("repaired: 3 objects or join rows changed"))
        let check = try fixture.run("check", fixture.path)
        #expect(check.lines == ["value: Trip:3.tags: the stored text is not valid JSON"])
        let stop = try fixture.run("show", fixture.path, "Stop:3", "--format", "json")
        #expect(stop.stdout.contains(#""trip":null"#))
        let history = try fixture.run("history", fixture.path)
        #expect(history.stdout.contains("update Trip:1 budget") && history.stdout.contains("update Stop:3 trip"))

        // The last problem is the operator's: set overwrites the bad value.
        #expect(try fixture.run("set", fixture.path, "Trip:3", "tags=[]").status == 0)
        let clean = try fixture.run("repair", fixture.path)
        #expect(clean.status == 0)
        #expect(clean.stdout == "no fixes\n")
    }
}

/// A ticket must have a holder: a dangling `holder` is a problem repair leaves.
@Model final class RepairTicket {
    var code: String
    var notes: [String]?
    var holder: RepairHolder
    init(code: String, holder: RepairHolder) {
        self.code = code
        self.holder = holder
    }
}

@Model final class RepairHolder {
    var name: String
    @Relationship(inverse: \RepairTicket.holder) var tickets: [RepairTicket] = []
    init(name: String) { self.name = name }
}

@Suite("store-tool: repair beside a problem it leaves")
struct RepairLeavesTests {
    @Test("a dry run with a required to-one left dangling runs the other fixes and writes nothing")
    func dryRunBesideADanglingRequiredLink() throws {
        let folder = testRoot.appending(path: UUID().uuidString)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let store = folder.appending(path: "tickets.store")
        let context = ModelContext(try ModelContainer(for: RepairTicket.self, RepairHolder.self, configurations: ModelConfiguration(url: store)))
        context.insert(RepairTicket(code: "T1", holder: RepairHolder(name: "Ana")))
        try context.save()
        let connection = try Connection(location: store.path(percentEncoded: false), mode: .readWrite)
        try connection.execute("PRAGMA foreign_keys = OFF")
        try connection.execute("DELETE FROM RepairHolder")
        try connection.execute("UPDATE RepairTicket SET notes = '[' WHERE code = 'T1'")
        let path = store.path(percentEncoded: false)
        let run = try Fixture.runTool(["repair", path, "--dry-run"])
        #expect(run.status == 1, "\(run.stderr)")
        #expect(run.stdout.contains("RepairTicket:1.notes: set to nil"))
        #expect(run.stdout.contains("holder is not optional"))
        #expect(run.stdout.contains("dry run: nothing was written"))
        // The test's own connections keep the WAL open, so the file's bytes
        // are no witness: the row is.
        let row = try connection.prepare("SELECT notes FROM RepairTicket WHERE code = 'T1'")
        #expect(try row.step() && row.string(at: 0) == "[")
    }
}
