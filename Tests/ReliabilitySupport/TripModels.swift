import Foundation
import ModelStore

// Two versions of a trip planner's schema for the migration tests. V1 → V2
// rebuilds both tables (Trip: a renamed attribute, a widened type, a new
// non-optional attribute, an optional that becomes required; Stop: its
// to-one becomes a many-to-many in a join table), and the stage's didMigrate
// rewrites every row of both.

public enum TripsV1: VersionedSchema {
    public static var versionIdentifier: Schema.Version { Schema.Version(1, 0, 0) }
    public static var models: [any PersistentModel.Type] { [Trip.self, Stop.self] }

    @Model public final class Trip {
        public var name: String
        public var nights: Int32
        public var note: String?
        @Relationship(deleteRule: .cascade, inverse: \Stop.trip) public var stops: [Stop] = []
        public init(name: String, nights: Int32, note: String?) {
            self.name = name
            self.nights = nights
            self.note = note
        }
    }

    @Model public final class Stop {
        public var title: String
        public var trip: Trip?
        public init(title: String) { self.title = title }
    }
}

public enum TripsV2: VersionedSchema {
    public static var versionIdentifier: Schema.Version { Schema.Version(2, 0, 0) }
    public static var models: [any PersistentModel.Type] { [Trip.self, Stop.self] }

    @Model public final class Trip {
        @Attribute(originalName: "name") public var title: String
        public var nights: Int64
        public var rating: Int = 0
        public var note: String = "none"
        @Relationship(inverse: \Stop.trips) public var stops: [Stop] = []
        public init(title: String, nights: Int64) {
            self.title = title
            self.nights = nights
        }
    }

    @Model public final class Stop {
        public var title: String
        @Relationship(originalName: "trip") public var trips: [Trip] = []
        public init(title: String) { self.title = title }
    }
}

/// V1 → V2 in one custom stage.
public enum TripsPlan: SchemaMigrationPlan {
    public static var schemas: [any VersionedSchema.Type] { [TripsV1.self, TripsV2.self] }
    public static var stages: [MigrationStage] {
        [
            .custom(
                fromVersion: TripsV1.self, toVersion: TripsV2.self, willMigrate: nil,
                didMigrate: { context in
                    for trip in try context.fetch(FetchDescriptor<TripsV2.Trip>()) { trip.rating = TripContent.rating(nights: trip.nights) }
                    for stop in try context.fetch(FetchDescriptor<TripsV2.Stop>()) { stop.title = TripContent.migratedTitle(stop.title) }
                    try context.save()
                })
        ]
    }
}

/// The content of a trips store: `count` trips with two stops each, and the
/// same content after the migration, as plain values.
public struct TripContent: Equatable, Sendable {
    public struct Trip: Equatable, Sendable {
        public var title: String
        public var nights: Int64
        public var rating: Int
        public var note: String?
        public var stops: [String]
    }

    public var trips: [Trip]

    static func rating(nights: Int64) -> Int { Int(nights % 5) + 1 }
    static func migratedTitle(_ title: String) -> String { title.uppercased() + " ✓" }

    /// What `makeV1(count:)` writes, as V1 holds it (no rating: 0).
    public static func v1(count: Int) -> TripContent {
        TripContent(
            trips: (0..<count).map { index in
                Trip(
                    title: "Trip \(String(100_000 + index).dropFirst()) to Évora", nights: Int64(index % 29), rating: 0, note: index % 3 == 0 ? "note \(index)" : nil,
                    stops: ["stop \(index)a", "stop \(index)b"])
            })
    }

    /// The same content after the V1 → V2 migration.
    public static func v2(count: Int) -> TripContent {
        var content = v1(count: count)
        for index in content.trips.indices {
            content.trips[index].rating = rating(nights: content.trips[index].nights)
            content.trips[index].note = content.trips[index].note ?? "none"
            content.trips[index].stops = content.trips[index].stops.map(migratedTitle)
        }
        return content
    }

    /// Writes a V1 store at `url` with `count` trips.
    /// - Throws: what creating or saving the store throws.
    public static func makeV1(at url: URL, count: Int) throws {
        let context = ModelContext(try ModelContainer(for: TripsV1.schema, configurations: [ModelConfiguration(url: url)]))
        for trip in v1(count: count).trips {
            let model = TripsV1.Trip(name: trip.title, nights: Int32(trip.nights), note: trip.note)
            context.insert(model)
            for title in trip.stops {
                let stop = TripsV1.Stop(title: title)
                context.insert(stop)
                model.stops.append(stop)
            }
        }
        try context.save()
    }

    /// Reads a V2 store's content, trips in title order.
    /// - Throws: what opening (and so migrating) the store or fetching throws.
    public static func readV2(_ url: URL, options: MigrationOptions = .init()) throws -> TripContent {
        var configuration = ModelConfiguration(url: url)
        configuration.migrationOptions = options
        let context = ModelContext(
            try ModelContainer(for: TripsV2.Trip.self, TripsV2.Stop.self, migrationPlan: TripsPlan.self, configurations: configuration))
        let trips = try context.fetch(FetchDescriptor<TripsV2.Trip>())
        return TripContent(
            trips: trips.map { Trip(title: $0.title, nights: $0.nights, rating: $0.rating, note: $0.note, stops: $0.stops.map(\.title)) }
                .sorted { $0.title < $1.title })
    }
}
