// A SwiftData data-layer file in SwiftData's exact spelling: the only line
// changed from the app's original is the import (`import SwiftData`).
import Foundation
import ModelStore

/// Container setup as real apps write it: the Xcode template's shared
/// container, a container with a migration plan at a chosen URL, and an
/// in-memory preview container filled with sample data.
enum DataController {
    /// The Xcode template's container, at the default location.
    static func makeSharedModelContainer() -> ModelContainer? {
        let schema = Schema([
            Trip.self
        ])
        let modelConfiguration = ModelConfiguration(schema: schema, isStoredInMemoryOnly: true)

        do {
            return try ModelContainer(for: schema, configurations: [modelConfiguration])
        } catch {
            print("Could not create ModelContainer: \(error)")
            return nil
        }
    }

    /// The app's store at `url`, migrated to the current version on open.
    static func container(at url: URL) throws -> ModelContainer {
        let configuration = ModelConfiguration("Trips", url: url)
        return try ModelContainer(
            for: Schema(versionedSchema: TripsSchemaV2.self),
            migrationPlan: TripsMigrationPlan.self,
            configurations: configuration
        )
    }

    /// A first version's store at `url`, as an older build of the app made it.
    static func versionOneContainer(at url: URL) throws -> ModelContainer {
        try ModelContainer(
            for: TripsSchemaV1.Trip.self, TripsSchemaV1.BucketListItem.self, TripsSchemaV1.LivingAccommodation.self,
            configurations: ModelConfiguration(url: url)
        )
    }

    /// An in-memory container with sample trips, for previews and tests.
    @MainActor
    static let previewContainer: ModelContainer = {
        do {
            let container = try ModelContainer(
                for: Trip.self,
                configurations: ModelConfiguration(isStoredInMemoryOnly: true)
            )
            let context = container.mainContext
            for trip in Trip.previewTrips {
                context.insert(trip)
            }
            try context.save()
            return container
        } catch {
            preconditionFailure("Failed to create the preview container: \(error)")
        }
    }()
}

extension Trip {
    static var previewTrips: [Trip] {
        let paris = Trip(
            name: "Paris", destination: "France",
            startDate: Date(timeIntervalSince1970: 1_800_000_000),
            endDate: Date(timeIntervalSince1970: 1_800_600_000)
        )
        paris.bucketList = [
            BucketListItem(title: "Louvre", notes: "Book ahead", hasReservation: true, isInPlan: true),
            BucketListItem(title: "Seine cruise", notes: "", hasReservation: false, isInPlan: true),
            BucketListItem(title: "Montmartre", notes: "Evening", hasReservation: false, isInPlan: false),
        ]
        paris.livingAccommodation = LivingAccommodation(address: "1 Rue de Rivoli", placeName: "Hotel du Louvre")
        let rome = Trip(
            name: "Rome", destination: "Italy",
            startDate: Date(timeIntervalSince1970: 1_700_000_000),
            endDate: Date(timeIntervalSince1970: 1_700_300_000)
        )
        rome.budget = 1200
        return [paris, rome]
    }
}
