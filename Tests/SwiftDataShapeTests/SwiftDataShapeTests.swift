import Foundation
import ModelStore
import Testing

/// Runs the SwiftData-shaped files in `Shapes/` (written in SwiftData's
/// spelling, with only the import changed) and checks that they behave as
/// they do on SwiftData.
@Suite struct SwiftDataShapeTests {
    @Test func previewContainerHoldsTheSampleTrips() async throws {
        let names = try await MainActor.run {
            try DataController.previewContainer.mainContext
                .fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)])).map(\.name)
        }
        #expect(names == ["Paris", "Rome"])
    }

    @Test func templateContainerOpens() throws {
        let container = try #require(DataController.makeSharedModelContainer())
        #expect(container.schema.entitiesByName["Trip"] != nil)
        #expect(container.schema.entitiesByName["BucketListItem"] != nil, "related models come with Trip")
    }

    @Test func repositoryReturnsModelsThatLoadTheirRelationships() throws {
        let folder = try TemporaryFolder()
        let repository = try filledRepository(in: folder)
        let paris = try #require(try repository.trip(named: "Paris"))
        #expect(Set(paris.bucketList.map(\.title)) == ["Louvre", "Seine cruise", "Montmartre"])
        #expect(paris.livingAccommodation?.placeName == "Hotel du Louvre")
        #expect(try repository.trip(named: "Lima") == nil)
    }

    @Test func repositoryFetchesSortsSearchesAndCounts() throws {
        let folder = try TemporaryFolder()
        let repository = try filledRepository(in: folder)
        #expect(try repository.upcomingTrips(after: Date(timeIntervalSince1970: 1_600_000_000)).map(\.name) == ["Rome", "Paris"])
        #expect(try repository.upcomingTrips(after: Date(timeIntervalSince1970: 1_750_000_000)).map(\.name) == ["Paris"])
        #expect(try repository.search("ITA").map(\.name) == ["Rome"])
        #expect(try repository.search("").map(\.name) == ["Rome", "Paris"])
        #expect(try repository.numberOfUnplannedItems() == 1)
        #expect(try repository.totalBudget() == 1200)
    }

    @Test func repositoryWritesThroughIdentifiers() throws {
        let folder = try TemporaryFolder()
        let repository = try filledRepository(in: folder)
        let ids = try repository.tripIdentifiers()
        #expect(ids.count == 2)
        try repository.addItem(title: "Catacombs", toTripWith: ids[0])
        try repository.renameTrip(ids[1], to: "Roma")
        let paris = try #require(try repository.trip(named: "Paris"))
        #expect(paris.bucketList.count == 4)
        let context = ModelContext(repository.container)
        let live = try #require(try context.fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.name == "Paris" })).first)
        try repository.reserveAll(in: live)
        let reloaded = try #require(try repository.trip(named: "Paris"))
        #expect(reloaded.bucketList.allSatisfy { $0.hasReservation })
        #expect(try repository.trip(named: "Roma") != nil)
    }

    @Test func deletingPastTripsCascadesToTheirItems() throws {
        let folder = try TemporaryFolder()
        let repository = try filledRepository(in: folder)
        try repository.deletePastTrips(before: Date(timeIntervalSince1970: 1_900_000_000))
        #expect(try repository.tripIdentifiers().isEmpty)
        #expect(try ModelContext(repository.container).fetchCount(FetchDescriptor<BucketListItem>()) == 0)
        #expect(try ModelContext(repository.container).fetchCount(FetchDescriptor<LivingAccommodation>()) == 0)
    }

    /// A store made by the first version, with two trips of the same name,
    /// opens through the plan: the custom stage renames the duplicate before
    /// the name becomes unique, `details` arrives as `notes`, and the new
    /// properties take their defaults.
    @Test func migrationPlanUpgradesAVersionOneStore() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("Trips.store")
        do {
            let container = try DataController.versionOneContainer(at: url)
            let context = ModelContext(container)
            let first = TripsSchemaV1.Trip(name: "Oslo", destination: "Norway", startDate: Date(timeIntervalSince1970: 1))
            let second = TripsSchemaV1.Trip(name: "Oslo", destination: "Norway", startDate: Date(timeIntervalSince1970: 2))
            context.insert(first)
            context.insert(second)
            first.bucketList.append(
                TripsSchemaV1.BucketListItem(title: "Fjord", details: "Ferry at 9", hasReservation: true, isInPlan: true)
            )
            try context.save()
        }
        let container = try DataController.container(at: url)
        #expect(container.migrationPlan == TripsMigrationPlan.self)
        let context = ModelContext(container)
        let trips = try context.fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.startDate)]))
        #expect(trips.map(\.name) == ["Oslo", "Oslo 2"])
        #expect(trips.allSatisfy { $0.currency == "EUR" && $0.budget == 0 })
        let item = try #require(trips.first?.bucketList.first)
        #expect(item.notes == "Ferry at 9")
        #expect(item.rating == nil)
    }

    private func filledRepository(in folder: TemporaryFolder) throws -> TripRepository {
        let container = try DataController.container(at: folder.file("Trips.store"))
        let context = ModelContext(container)
        for trip in Trip.previewTrips {
            context.insert(trip)
        }
        try context.save()
        return TripRepository(container: container)
    }
}

/// `Shapes/ThemeModels.swift`: transformable attributes.
@Suite struct TransformableShapeTests {
    @Test func transformableAttributesRoundTripThroughAReopenedStore() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("Themes.store")
        // Components of n/255, which the transformer's bytes keep exactly.
        let ocean = RGBColor(red: 0, green: 102.0 / 255, blue: 204.0 / 255)
        let sand = RGBColor(red: 1, green: 204.0 / 255, blue: 153.0 / 255)
        do {
            let context = ModelContext(try ThemeStore.container(url: url))
            context.insert(Theme(name: "Ocean", accent: ocean, highlight: sand))
            try context.save()
        }
        let context = ModelContext(try ThemeStore.container(url: url))
        let theme = try #require(try context.fetch(FetchDescriptor<Theme>()).first)
        #expect(theme.accent == ocean)
        #expect(theme.background == nil)
        #expect(theme.highlight == sand)
        let attribute = try #require(Schema([Theme.self]).entitiesByName["Theme"]?.attribute(named: "accent"))
        #expect(attribute.isTransformable)
    }
}
