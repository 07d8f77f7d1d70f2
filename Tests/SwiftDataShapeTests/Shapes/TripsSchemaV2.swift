// A SwiftData data-layer file in SwiftData's exact spelling: the only line
// changed from the app's original is the import (`import SwiftData`).
import Foundation
import ModelStore

/// Version 2 makes trip names unique, renames `details` to `notes`, and adds
/// a budget and an optional rating, with types left to inference.
enum TripsSchemaV2: VersionedSchema {
    static let versionIdentifier = Schema.Version(2, 0, 0)

    static var models: [any PersistentModel.Type] {
        [Trip.self, BucketListItem.self, LivingAccommodation.self]
    }

    @Model
    final class Trip {
        #Index<Trip>([\.startDate], [\.destination, \.startDate])

        @Attribute(.unique) var name: String
        var destination: String
        var startDate: Date
        var endDate: Date
        var budget = Decimal.zero
        var currency = "EUR"
        var createdAt: Date = .now

        @Relationship(deleteRule: .cascade, inverse: \BucketListItem.trip)
        var bucketList: [BucketListItem] = [BucketListItem]()

        @Relationship(deleteRule: .cascade, inverse: \LivingAccommodation.trip)
        var livingAccommodation: LivingAccommodation?

        @Transient var isSelected = false

        init(name: String, destination: String, startDate: Date = .now, endDate: Date = .distantFuture) {
            self.name = name
            self.destination = destination
            self.startDate = startDate
            self.endDate = endDate
        }

        var days: Int {
            Calendar(identifier: .gregorian).dateComponents([.day], from: startDate, to: endDate).day ?? 0
        }
    }

    @Model
    final class BucketListItem {
        var title: String
        @Attribute(originalName: "details") var notes: String
        var hasReservation: Bool
        var isInPlan: Bool
        var rating: Int?
        var trip: Trip?

        init(title: String, notes: String, hasReservation: Bool, isInPlan: Bool) {
            self.title = title
            self.notes = notes
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

typealias Trip = TripsSchemaV2.Trip
typealias BucketListItem = TripsSchemaV2.BucketListItem
typealias LivingAccommodation = TripsSchemaV2.LivingAccommodation
