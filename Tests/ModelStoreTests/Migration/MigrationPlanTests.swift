import Foundation
import Testing
@testable import ModelStore

/// A V1 store with three trips and their stops, saved through V1's models.
private func makeV1Store() throws -> URL {
    let url = try TemporaryDirectory().file()
    let container = try ModelContainer(
        for: TripsV1.schema, migrationPlan: TripsPlan.self, configurations: [migrationConfiguration(url)])
    let context = ModelContext(container)
    let lisbon = TripsV1.Trip(name: "Lisbon", nights: 4)
    lisbon.stops = [TripsV1.Stop(title: "Belém"), TripsV1.Stop(title: "Alfama")]
    let kyoto = TripsV1.Trip(name: "Kyoto", nights: 9, note: "ryokan")
    kyoto.stops = [TripsV1.Stop(title: "Fushimi Inari")]
    context.insert(lisbon)
    context.insert(kyoto)
    context.insert(TripsV1.Trip(name: "Oslo", nights: 2))
    try context.save()
    return url
}

private func openV2(_ url: URL) throws -> ModelContainer {
    try ModelContainer(
        for: TripsV2.Trip.self, TripsV2.Stop.self, migrationPlan: TripsPlan.self, configurations: migrationConfiguration(url))
}

@Suite("Migration plans and stages", .serialized)
struct MigrationPlanTests {
    init() {
        TripsPlan.stash.codes = [:]
        TripsPlan.stash.failIn = nil
    }

    @Test("Models nested in versioned schemas share their entity name")
    func nestedEntityNames() {
        #expect(TripsV1.Trip.entityName == "Trip")
        #expect(TripsV2.Trip.entityName == "Trip")
        #expect(TripsV2.schema.version == Schema.Version(2, 0, 0))
    }

    @Test("A lightweight stage: renames, widening, defaults, to-one → to-many; every value and link survives")
    func lightweightStage() throws {
        let url = try makeV1Store()
        let container = try openV2(url)
        let context = ModelContext(container)
        let trips = try context.fetch(FetchDescriptor<TripsV2.Trip>(sortBy: [SortDescriptor(\.title)]))
        #expect(trips.map(\.title) == ["Kyoto", "Lisbon", "Oslo"])
        #expect(trips.map(\.nights) == [9, 4, 2])
        #expect(trips.map(\.rating) == [3, 3, 3])
        #expect(trips.map(\.note) == ["ryokan", "none", "none"])
        #expect(trips[1].stops.map(\.title) == ["Belém", "Alfama"])
        #expect(trips[0].stops.first?.trips.map(\.title) == ["Kyoto"])
        let file = StoreFile(url: url)
        #expect(try file.metadata("schemaVersion") == .text("2.0.0"))
        #expect(try file.rows("SELECT name FROM sqlite_schema WHERE name IN ('Trip.unique(title,nights)', 'Trip.index(rating)') ORDER BY name")
            .count == 2)
        // A second open has nothing to do.
        _ = try openV2(url)
        #expect(try file.rows("SELECT count(*) FROM _modelstore_migrations") == [[.integer(1)]])
    }

    @Test("A chain V1 → V2 → V3 runs in one open, with willMigrate deleting and stashing, didMigrate writing back")
    func chainWithCustomStage() throws {
        let url = try makeV1Store()
        let file = StoreFile(url: url)
        // V1 has no rating: open V2 once to lower Oslo's, so that V3's willMigrate deletes it.
        do {
            let context = ModelContext(try openV2(url))
            let oslo = try context.fetch(FetchDescriptor<TripsV2.Trip>(predicate: #Predicate { $0.title == "Oslo" }))
            oslo.first?.rating = 1
            try context.save()
        }
        let container = try ModelContainer(
            for: TripsV3.Trip.self, TripsV3.Stop.self, migrationPlan: TripsPlan.self, configurations: migrationConfiguration(url))
        let trips = try ModelContext(container).fetch(FetchDescriptor<TripsV3.Trip>(sortBy: [SortDescriptor(\.title)]))
        #expect(trips.map(\.title) == ["Kyoto", "Lisbon"])
        #expect(trips.map(\.code) == ["KYO", "LIS"])
        #expect(try file.rows("SELECT name FROM pragma_table_info('Trip') WHERE name = 'note'").isEmpty)
        #expect(try file.metadata("schemaVersion") == .text("3.0.0"))
        #expect(try file.rows("SELECT kind, name FROM _modelstore_migrations ORDER BY id").map { $0[1] } == [
            .text("lightweight stage 1.0.0 → 2.0.0"), .text("custom stage 2.0.0 → 3.0.0"),
        ])
    }

    @Test("V1 → V3 in one open", arguments: ["willMigrate", "didMigrate", nil] as [String?])
    func fullChain(failIn: String?) throws {
        let url = try makeV1Store()
        let file = StoreFile(url: url)
        let before = try file.everything()
        TripsPlan.stash.failIn = failIn
        let open = {
            try ModelContainer(
                for: TripsV3.Trip.self, TripsV3.Stop.self, migrationPlan: TripsPlan.self,
                configurations: migrationConfiguration(url))
        }
        guard let failIn else {
            let context = ModelContext(try open())   // kept: objects load relationships through it
            let trips = try context.fetch(FetchDescriptor<TripsV3.Trip>(sortBy: [SortDescriptor(\.title)]))
            #expect(trips.map(\.code) == ["KYO", "LIS", "OSL"])
            #expect(trips.map { $0.stops.map(\.title) } == [["Fushimi Inari"], ["Belém", "Alfama"], []])
            return
        }
        #expect {
            _ = try open()
        } throws: { error in
            guard case ModelStoreError.migrationFailed(_, let step, _) = error else { return false }
            return step == "custom stage 2.0.0 → 3.0.0: \(failIn)"
        }
        #expect(try file.everything() == before)
    }

    @Test("A failure before any step or table operation leaves every row and the schema record as they were")
    func failureInjection() throws {
        let original = try makeV1Store()
        let before = try StoreFile(url: original).everything()
        var index = 0
        while true {
            let url = try TemporaryDirectory().file()
            try StoreFile(url: original).copy(to: url)
            var configuration = migrationConfiguration(url)
            configuration.migrationOptions.failsBeforeStep = index
            do {
                _ = try ModelContainer(
                    for: TripsV3.Trip.self, TripsV3.Stop.self, migrationPlan: TripsPlan.self, configurations: configuration)
                break
            } catch ModelStoreError.migrationFailed(_, _, let reason) {
                #expect(reason == "injected failure")
                #expect(try StoreFile(url: url).everything() == before, "failure before step \(index)")
            }
            index += 1
        }
        #expect(index > 10)
    }

    @Test("A store written by a newer ModelStore is refused, never downgraded")
    func newerFormat() throws {
        let url = try makeV1Store()
        try StoreFile(url: url).execute("UPDATE _modelstore_metadata SET value = 99 WHERE key = 'formatVersion'")
        #expect(throws: ModelStoreError.newerFormat(path: url.path(percentEncoded: false), found: 99, supported: StoreFormat.current)) {
            _ = try openV2(url)
        }
    }

    @Test("A store of format 1 gets the history table, recorded as a format upgrade")
    func formatUpgrade() throws {
        let url = try makeV1Store()
        let file = StoreFile(url: url)
        // Back to format 1: no history tables, no row versions.
        var sql = "DROP TABLE _modelstore_migrations; DROP TABLE _modelstore_changes; DROP TABLE _modelstore_transactions; "
        for case .text(let table) in try file.rows(
            "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE '\\_%' ESCAPE '\\' AND name NOT LIKE 'sqlite%' AND name NOT LIKE '%.%'"
        ).map({ $0[0] }) {
            sql += "ALTER TABLE \(quoteIdentifier(table)) DROP COLUMN \"_version\"; "
        }
        try file.execute(sql + "UPDATE _modelstore_metadata SET value = 1 WHERE key = 'formatVersion'")
        _ = try ModelContainer(for: TripsV1.schema, configurations: [migrationConfiguration(url)])
        #expect(try file.metadata("formatVersion") == .integer(Int64(StoreFormat.current)))
        #expect(try file.rows("SELECT kind FROM _modelstore_migrations") == [[.text("format")]])
    }

    @Test("A snapshot is taken before the first step and recorded in the history")
    func snapshot() throws {
        let url = try makeV1Store()
        _ = try ModelContainer(
            for: TripsV2.Trip.self, TripsV2.Stop.self, migrationPlan: TripsPlan.self,
            configurations: migrationConfiguration(url, snapshot: true))
        guard case .text(let path)? = try StoreFile(url: url).rows("SELECT snapshot FROM _modelstore_migrations").first?.first else {
            Issue.record("no snapshot recorded")
            return
        }
        let snapshot = StoreFile(url: URL(filePath: path))
        #expect(try snapshot.rows("SELECT name FROM Trip ORDER BY _pk") == [[.text("Lisbon")], [.text("Kyoto")], [.text("Oslo")]])
        #expect(try snapshot.metadata("schemaVersion") == .text("1.0.0"))
    }

    @Test("A store locked by another connection fails cleanly after the busy timeout")
    func busyStore() throws {
        let url = try makeV1Store()
        let blocker = try Connection(location: url.path(percentEncoded: false), mode: .readWrite)
        try blocker.execute("BEGIN IMMEDIATE")
        defer { try? blocker.execute("ROLLBACK") }
        var configuration = migrationConfiguration(url)
        configuration.migrationOptions.busyTimeout = .milliseconds(50)
        #expect {
            _ = try ModelContainer(
                for: TripsV2.Trip.self, TripsV2.Stop.self, migrationPlan: TripsPlan.self, configurations: configuration)
        } throws: { error in
            guard case ModelStoreError.migrationFailed(_, _, let reason) = error else { return false }
            return reason.contains("in use by another connection")
        }
    }
}
