import Foundation
import ModelStore

// Models like the example's (Tools/Example/Models.swift), plus a
// many-to-many and a .deny rule, so that the tool meets every kind of
// relationship.

enum TripStatus: String, Codable, CaseIterable, Sendable { case planned, booked, done }

struct Budget: Codable, Hashable, Sendable {
    var amount: Int
    var currency: String
}

@Model final class Trip {
    @Attribute(.unique) var name: String
    var destination: String
    var startDate: Date
    var budget: Budget?
    var tags: [String] = []
    var status: TripStatus = .planned
    var notes: String?
    var nights: Int = 3
    @Relationship(deleteRule: .cascade, inverse: \Stop.trip) var stops: [Stop] = []
    @Relationship(deleteRule: .nullify, inverse: \Traveler.trips) var travelers: [Traveler] = []

    init(name: String, destination: String, startDate: Date) {
        self.name = name
        self.destination = destination
        self.startDate = startDate
    }
}

@Model final class Stop {
    var title: String
    var trip: Trip?
    init(title: String) { self.title = title }
}

/// A traveler cannot be deleted while they have trips (.deny).
@Model final class Traveler {
    var name: String
    @Relationship(deleteRule: .deny) var trips: [Trip] = []
    init(name: String) { self.name = name }
}
