import Foundation
import ModelStore
import Testing

/// An airport is unique by its code and, separately, by its name: two rules
/// a record can match two different objects by.
@Model final class Airport {
    @Attribute(.unique) var code: String
    @Attribute(.unique) var name: String
    init(code: String, name: String) {
        self.code = code
        self.name = name
    }
}

/// `import --upsert`: records whose unique values match objects of the store
/// update them; the others are inserted.
@Suite("store-tool: import --upsert")
struct ImportUpsertTests {
    /// Lisbon (Trip:1) updated, Kyoto (Trip:2) given Belém as its only stop, Oslo new.
    static let mix = [
        #"{"key":"Trip:10","attributes":{"name":"Lisbon","notes":"updated","nights":5}}"#,
        #"{"key":"Trip:11","attributes":{"name":"Oslo","destination":"Norway","startDate":0},"relationships":{"travelers":["Traveler:1"]}}"#,
        #"{"key":"Trip:12","attributes":{"name":"Kyoto"},"relationships":{"stops":["Stop:1"]}}"#,
    ]

    @Test("records matching a unique value update their object (attributes given, to-manys replaced); the others are inserted")
    func insertOrUpdate() throws {
        let fixture = try Fixture()
        let file = fixture.file("trips.jsonl")
        try Self.mix.joined(separator: "\n").write(toFile: file, atomically: true, encoding: .utf8)

        let refused = try fixture.run("import", fixture.path, file)
        #expect(refused.status == 2)
        #expect(refused.stderr.contains("line 1: Trip:10.name: unique, but Trip:1 of the store has the same value"), "\(refused.stderr)")

        let version = "SELECT _version FROM Trip WHERE name = 'Lisbon'"
        let versionBefore = try fixture.run("sql", fixture.path, version, "--format", "csv").lines.last
        let run = try fixture.run("import", fixture.path, file, "--upsert")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == "imported 1 object (Trip 1), updated 2 existing objects (Trip 2)\n")
        let trips = try fixture.trips()
        #expect(trips.map(\.name) == ["Kyoto", "Lisbon", "Oslo", "Reykjavik"])
        let lisbon = try #require(trips.first { $0.name == "Lisbon" })
        #expect(lisbon.notes == "updated")
        #expect(lisbon.nights == 5)
        #expect(lisbon.destination == "Portugal", "an attribute the record leaves out keeps its value")
        #expect(lisbon.stops.map(\.title) == ["Alfama"], "Belém moved to Kyoto")
        #expect(lisbon.travelers.map(\.name) == ["Ana"], "a to-many the record leaves out is kept")
        let kyoto = try #require(trips.first { $0.name == "Kyoto" })
        #expect(kyoto.stops.map(\.title) == ["Belém"])
        #expect(kyoto.destination == "Japan")
        let oslo = try #require(trips.first { $0.name == "Oslo" })
        #expect(oslo.travelers.map(\.name) == ["Ana"])
        #expect(try fixture.run("check", fixture.path).status == 0)
        // Through the write path: version bumped, history recorded.
        let versionAfter = try fixture.run("sql", fixture.path, version, "--format", "csv").lines.last
        #expect(Int(versionAfter ?? "") ?? 0 > Int(versionBefore ?? "") ?? 0, "\(String(describing: versionBefore)) → \(String(describing: versionAfter))")
        let history = try fixture.run("history", fixture.path)
        #expect(history.lines.contains("  update Trip:1 name, notes, nights"), "\(history.stdout)")
        #expect(history.lines.contains("  update Trip:2 name, stops"), "\(history.stdout)")
        #expect(history.lines.contains("  insert Trip:4"), "\(history.stdout)")
    }

    @Test("a #Unique pair matches as a whole: the same title in another term is a new course")
    func compoundUnique() throws {
        let fixture = try GraphFixture()
        let file = fixture.file("courses.jsonl")
        try [
            #"{"key":"Course:50","attributes":{"title":"Art","term":"autumn"},"relationships":{"students":["Person:2"]}}"#,
            #"{"key":"Course:51","attributes":{"title":"Art","term":"spring"}}"#,
        ].joined(separator: "\n").write(toFile: file, atomically: true, encoding: .utf8)
        let run = try fixture.run("import", fixture.path, file, "--upsert")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == "imported 1 object (Course 1), updated 1 existing object (Course 1)\n")
        let context = try fixture.context()
        let art = try context.fetch(FetchDescriptor<Course>(predicate: #Predicate { $0.title == "Art" }, sortBy: [SortDescriptor(\.term)]))
        #expect(art.map(\.term) == ["autumn", "spring"])
        #expect(art.first?.students.map(\.name) == ["Ben"])
        let ana = try #require(try context.fetch(FetchDescriptor<Person>(predicate: #Predicate { $0.name == "Ana" })).first)
        #expect(ana.courses.map(\.title) == ["Bio"])
        #expect(try fixture.run("check", fixture.path).status == 0)
    }

    @Test("an entity without unique attributes is refused, naming it; nothing is written")
    func entityWithoutUnique() throws {
        let fixture = try Fixture()
        let file = fixture.file("mixed.jsonl")
        try [
            #"{"key":"Trip:10","attributes":{"name":"Lisbon","notes":"x"}}"#,
            #"{"key":"Stop:10","attributes":{"title":"Ribeira"}}"#,
            #"{"key":"Stop:11","attributes":{"title":"Baixa"}}"#,
        ].joined(separator: "\n").write(toFile: file, atomically: true, encoding: .utf8)
        let before = try fixture.run("export", fixture.path).stdout
        let run = try fixture.run("import", fixture.path, file, "--upsert")
        #expect(run.status == 2)
        let lines = run.stderr.split(separator: "\n").map(String.init)
        #expect(
            lines == [
                "store-tool: error: line 2: Stop: an upsert matches records to objects by unique attributes (.unique or #Unique), and Stop has none",
                "store-tool: error: 1 problem in \(file); nothing was imported",
            ], "\(run.stderr)")
        #expect(try fixture.run("export", fixture.path).stdout == before)
    }

    @Test("--dry-run with --upsert reports what it would insert and update and writes nothing")
    func dryRun() throws {
        let fixture = try Fixture()
        let file = fixture.file("trips.jsonl")
        try Self.mix.joined(separator: "\n").write(toFile: file, atomically: true, encoding: .utf8)
        let before = try fixture.run("export", fixture.path).stdout
        let run = try fixture.run("import", fixture.path, file, "--upsert", "--dry-run")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == "dry run: would import 1 object (Trip 1) and update 2 existing objects (Trip 2); nothing was written\n")
        #expect(try fixture.run("export", fixture.path).stdout == before)
    }

    @Test("a record that matches two objects by two unique attributes, or an object another record matches, is refused")
    func ambiguous() throws {
        let folder = testRoot.appending(path: UUID().uuidString)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let store = folder.appending(path: "airports.store")
        let context = ModelContext(try ModelContainer(for: Airport.self, configurations: ModelConfiguration(url: store)))
        context.insert(Airport(code: "LIS", name: "Lisbon"))
        context.insert(Airport(code: "OPO", name: "Porto"))
        try context.save()
        let file = folder.appending(path: "airports.jsonl").path(percentEncoded: false)
        try [
            #"{"key":"Airport:10","attributes":{"code":"LIS","name":"Porto"}}"#,
            #"{"key":"Airport:11","attributes":{"code":"FAO","name":"Lisbon"}}"#,
            #"{"key":"Airport:12","attributes":{"code":"LIS","name":"Lisboa"}}"#,
        ].joined(separator: "\n").write(toFile: file, atomically: true, encoding: .utf8)
        let path = store.path(percentEncoded: false)
        let run = try Fixture.runTool(["import", path, file, "--upsert"])
        #expect(run.status == 2)
        #expect(run.stderr.contains("line 1: Airport:10.name: matches Airport:2 of the store, but its other unique values match Airport:1"), "\(run.stderr)")
        #expect(run.stderr.contains("matches Airport:1 of the store, which Airport:"), "\(run.stderr)")
        // One record per object, each matching one: both update.
        try [
            #"{"key":"Airport:10","attributes":{"code":"LIS","name":"Lisboa"}}"#,
            #"{"key":"Airport:11","attributes":{"code":"FAO","name":"Porto"}}"#,
        ].joined(separator: "\n").write(toFile: file, atomically: true, encoding: .utf8)
        let ok = try Fixture.runTool(["import", path, file, "--upsert"])
        #expect(ok.status == 0, "\(ok.stderr)")
        #expect(ok.stdout == "imported 0 objects, updated 2 existing objects (Airport 2)\n")
        let rows = try Fixture.runTool(["sql", path, "SELECT code, name FROM Airport ORDER BY 1", "--format", "csv"])
        #expect(rows.lines == ["code,name", "FAO,Porto", "LIS,Lisboa"])
    }
}
