import Foundation
import ModelStore

/// Where a trip stands. Stored as its raw value: the TEXT 'planned', 'booked'…
/// `CaseIterable` lets the store record the cases, so that store-tool
/// refuses a value that is not one of them.
enum TripStatus: String, Codable, CaseIterable, Sendable {
    case planned, booked, done
}

/// A budget. Any other Codable value is stored as JSON text with sorted keys:
/// {"amount":1200,"currency":"EUR"}.
struct Budget: Codable, Hashable, Sendable {
    var amount: Int
    var currency: String
}

/// A trip. `@Model` turns every stored `var` into a tracked, persisted
/// property; the table "Trip" has one column per property.
@Model final class Trip {
    /// Trips are listed by destination and date (added by the migration
    /// script Migrations/0001_stop_notes.yaml).
    #Index<Trip>([\.destination, \.startDate])
    /// Unique across all trips: inserting another trip with the same name
    /// updates that trip's row (an upsert).
    @Attribute(.unique) var name: String
    var destination: String
    var startDate: Date
    var budget: Budget?
    var tags: [String] = []
    var status: TripStatus = .planned
    var notes: String?
    /// The trip's stops, in order. Deleting a trip deletes its stops; the
    /// inverse `Stop.trip` is kept in step in memory.
    @Relationship(deleteRule: .cascade, inverse: \Stop.trip) var stops: [Stop] = []

    /// Not stored and not tracked: a fetched trip gets the default value.
    @Transient var isSelected = false

    /// Computed properties are not stored either.
    var budgetText: String {
        guard let budget else { return "-" }
        return "\(budget.amount) \(budget.currency)"
    }

    init(name: String, destination: String, startDate: Date, budget: Budget? = nil, tags: [String] = []) {
        self.name = name
        self.destination = destination
        self.startDate = startDate
        self.budget = budget
        self.tags = tags
    }
}

/// A stop of a trip. The table "Stop" has a foreign-key column "trip" (with
/// an index) and "_trip_order", the stop's position in `trip.stops`.
@Model final class Stop {
    var title: String
    var trip: Trip?
    /// Added in version 1.1 (Migrations/0001_stop_notes.yaml).
    var note: String?

    init(title: String) {
        self.title = title
    }
}
