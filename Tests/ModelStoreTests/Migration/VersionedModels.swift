import Foundation
@testable import ModelStore

// Three versions of a trip planner's schema, nested in their versions as
// SwiftData apps write them: the classes share entity names (Trip, Stop).

enum TripsV1: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(1, 0, 0) }
    static var models: [any PersistentModel.Type] { [Trip.self, Stop.self] }

    @Model final class Trip {
        var name: String
        var nights: Int32
        var note: String?
        @Relationship(deleteRule: .cascade, inverse: \Stop.trip) var stops: [Stop] = []
        init(name: String, nights: Int32, note: String? = nil) {
            self.name = name
            self.nights = nights
            self.note = note
        }
    }

    @Model final class Stop {
        var title: String
        var trip: Trip?
        init(title: String) { self.title = title }
    }
}

/// V1 → V2 is lightweight: a rename, a widened type, a new attribute with a
/// default, a non-optional filled by its default, a to-one that becomes
/// to-many (a many-to-many), a compound unique constraint and an index.
enum TripsV2: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(2, 0, 0) }
    static var models: [any PersistentModel.Type] { [Trip.self, Stop.self] }

    @Model final class Trip {
        #Unique<Trip>([\.title, \.nights])
        #Index<Trip>([\.rating])
        @Attribute(originalName: "name") var title: String
        var nights: Int64
        var rating: Int = 3
        var note: String = "none"
        @Relationship(inverse: \Stop.trips) var stops: [Stop] = []
        init(title: String, nights: Int64) {
            self.title = title
            self.nights = nights
        }
    }

    @Model final class Stop {
        var title: String
        @Relationship(originalName: "trip") var trips: [Trip] = []
        init(title: String) { self.title = title }
    }
}

/// V2 → V3 is custom: trips rated below 2 are deleted in willMigrate, each
/// trip's code is worked out there and written back by identifier in
/// didMigrate, and `note` is dropped (allowed: the stage says so).
enum TripsV3: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(3, 0, 0) }
    static var models: [any PersistentModel.Type] { [Trip.self, Stop.self] }

    @Model final class Trip {
        #Unique<Trip>([\.title, \.nights])
        #Index<Trip>([\.rating])
        var title: String
        var nights: Int64
        var rating: Int = 3
        var code: String?
        @Relationship(inverse: \Stop.trips) var stops: [Stop] = []
        init(title: String, nights: Int64) {
            self.title = title
            self.nights = nights
        }
    }

    @Model final class Stop {
        var title: String
        var trips: [Trip] = []
        init(title: String) { self.title = title }
    }
}

/// Values a custom stage keeps between its willMigrate and didMigrate.
final class StageStash {
    var codes: [PersistentIdentifier: String] = [:]
    var failIn: String?
}

enum TripsPlan: SchemaMigrationPlan {
    nonisolated(unsafe) static var stash = StageStash()
    static var schemas: [any VersionedSchema.Type] { [TripsV1.self, TripsV2.self, TripsV3.self] }
    static var stages: [MigrationStage] { [v1ToV2, v2ToV3] }

    // Computed, as MigrationStage is not Sendable (as in SwiftData).
    static var v1ToV2: MigrationStage { .lightweight(fromVersion: TripsV1.self, toVersion: TripsV2.self) }
    static var v2ToV3: MigrationStage {
        .custom(
        fromVersion: TripsV2.self, toVersion: TripsV3.self,
        willMigrate: { context in
            if stash.failIn == "willMigrate" { throw StageFailure() }
            for trip in try context.fetch(FetchDescriptor<TripsV2.Trip>()) {
                if trip.rating < 2 {
                    context.delete(trip)
                } else {
                    stash.codes[trip.persistentModelID] = String(trip.title.prefix(3)).uppercased()
                }
            }
            try context.save()
        },
        didMigrate: { context in
            if stash.failIn == "didMigrate" { throw StageFailure() }
            for (identifier, code) in stash.codes {
                guard let trip = try context.model(for: identifier, as: TripsV3.Trip.self) else { continue }
                trip.code = code
            }
        })
    }
}

struct StageFailure: Error {}
