import Foundation
import ModelStore

// Models for the reference and binding tests: a trip whose budget is a
// Codable struct, with array attributes of values and of structs, and a
// value that is Codable but not Equatable.

struct TripBudget: Codable, Hashable {
    var amount: Double
    var currency: String
}

struct TripLeg: Codable, Hashable {
    var city: String
    var nights: Int
}

/// Codable but not Equatable: every write of it is a change.
struct TripSketch: Codable {
    var lines: [String]
}

@Model final class PlannedTrip {
    var name: String
    var budget = TripBudget(amount: 0, currency: "EUR")
    var tags: [String] = []
    var legs: [TripLeg] = []
    var note: String?
    var sketch = TripSketch(lines: [])

    init(name: String) {
        self.name = name
    }
}
