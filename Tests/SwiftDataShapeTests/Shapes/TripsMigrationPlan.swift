// A SwiftData data-layer file in SwiftData's exact spelling: the only line
// changed from the app's original is the import (`import SwiftData`).
import Foundation
import ModelStore

enum TripsMigrationPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] {
        [TripsSchemaV1.self, TripsSchemaV2.self]
    }

    static var stages: [MigrationStage] {
        [migrateV1toV2]
    }

    /// Version 2 makes names unique: before the change, trips that share a
    /// name get a numbered suffix, so that no trip is lost to the constraint.
    static let migrateV1toV2 = MigrationStage.custom(
        fromVersion: TripsSchemaV1.self,
        toVersion: TripsSchemaV2.self,
        willMigrate: { context in
            let trips = try context.fetch(FetchDescriptor<TripsSchemaV1.Trip>(sortBy: [SortDescriptor(\.startDate)]))
            var seen = Set<String>()
            for trip in trips {
                var name = trip.name
                var suffix = 2
                while seen.contains(name) {
                    name = "\(trip.name) \(suffix)"
                    suffix += 1
                }
                trip.name = name
                seen.insert(name)
            }
            try context.save()
        },
        didMigrate: { context in
            for trip in try context.fetch(FetchDescriptor<TripsSchemaV2.Trip>()) where trip.currency.isEmpty {
                trip.currency = "EUR"
            }
            try context.save()
        }
    )
}
