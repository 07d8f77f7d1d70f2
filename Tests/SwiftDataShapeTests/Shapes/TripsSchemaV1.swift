// A SwiftData data-layer file in SwiftData's exact spelling: the only line
// changed from the app's original is the import (`import SwiftData`).
import Foundation
import ModelStore

enum TripsSchemaV1: VersionedSchema {
    static let versionIdentifier = Schema.Version(1, 0, 0)

    static var models: [any PersistentModel.Type] {
        [Trip.self, BucketListItem.self, LivingAccommodation.self]
    }

    @Model
    final class Trip {
        var name: String
        var destination: String
        var startDate: Date
        var endDate: Date

        @Relationship(deleteRule: .cascade, inverse: \BucketListItem.trip)
        var bucketList: [BucketListItem] = [BucketListItem]()

        @Relationship(deleteRule: .cascade, inverse: \LivingAccommodation.trip)
        var livingAccommodation: LivingAccommodation?

        init(name: String, destination: String, startDate: Date = .now, endDate: Date = .distantFuture) {
            self.name = name
            self.destination = destination
            self.startDate = startDate
            self.endDate = endDate
        }
    }

    @Model
    final class BucketListItem {
        var title: String
        var details: String
        var hasReservation: Bool
        var isInPlan: Bool
        var trip: Trip?

        init(title: String, details: String, hasReservation: Bool, isInPlan: Bool) {
            self.title = title
            self.details = details
            self.hasReservation = hasReservation
            self.isInPlan = isInPlan
        }
    }

    @Model
    final class LivingAccommodation {
        var address: String
        var placeName: String
        var trip: Trip?

        init(address: String, placeName: String) {
            self.address = address
            self.placeName = placeName
        }
    }
}
