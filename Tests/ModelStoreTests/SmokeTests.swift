import Foundation
import Testing
@testable import ModelStore

@Test func insertSaveFetch() throws {
    let store = try TestStore()
    let container = try store.container()
    let context = ModelContext(container)
    let trip = makeTrip()
    trip.tags = ["a", "b"]
    trip.budget = Budget(amount: 1200, currency: "EUR")
    context.insert(trip)
    try context.save()
    let other = ModelContext(container)
    let fetched = try other.fetch(FetchDescriptor<Trip>())
    #expect(fetched.count == 1)
    #expect(fetched.first?.name == "Lisbon")
    #expect(fetched.first?.tags == ["a", "b"])
    #expect(fetched.first?.budget == Budget(amount: 1200, currency: "EUR"))
}
