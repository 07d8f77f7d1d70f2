import Foundation
import Testing
@testable import ModelStore

/// `@Relationship(forwardsChanges: true)` wired to `objectWillChange`.
@Suite("Forwarding through relationships")
struct RelationshipForwardingTests {
    typealias Trip = Graph.Trip

    /// Collects the events a publisher emits, as "path → key path" strings.
    final class Recorder {
        var events: [String] = []
        var subscription: ModelChangeSubscription?

        init(_ publisher: ModelChangePublisher) {
            subscription = publisher.sink { [unowned self] change in
                events.append((change.relationshipPath + [change.keyPath]).map { "\($0)" }.joined(separator: " → "))
            }
        }
    }

    @Test("An expense's change reaches its trip and the trip's agency, with the path it took")
    func depthThree() {
        let agency = Graph.Agency(name: "Far Away")
        let trip = Trip(name: "Lisbon")
        let expense = Graph.Expense(amount: 10)
        agency.trips.append(trip)
        trip.expenses = [expense]
        let atAgency = Recorder(agency.objectWillChange)
        let atTrip = Recorder(trip.objectWillChange)
        expense.amount = 12
        #expect(atTrip.events == ["\(\Trip.expenses) → \(\Graph.Expense.amount)"])
        #expect(atAgency.events == ["\(\Graph.Agency.trips) → \(\Trip.expenses) → \(\Graph.Expense.amount)"])
        trip.name = "Lisboa"
        #expect(atAgency.events.count == 2)
    }

    @Test("A removed member no longer forwards; a relationship without forwarding never did")
    func removal() {
        let trip = Trip(name: "Lisbon")
        let expense = Graph.Expense(amount: 10)
        let stop = Graph.Stop(title: "A")
        trip.expenses = [expense]
        trip.stops = [stop]
        let atTrip = Recorder(trip.objectWillChange)
        stop.title = "B"
        #expect(atTrip.events.isEmpty)
        trip.expenses.removeAll()
        #expect(atTrip.events.count == 1)   // the membership change itself
        expense.amount = 1
        #expect(atTrip.events.count == 1)
    }

    @Test("Expenses loaded from the store forward, lazily loaded or prefetched")
    func loaded() throws {
        let store = try TestStore()
        let container = try store.graphContainer()
        do {
            let context = ModelContext(container)
            let trip = Trip(name: "Lisbon")
            context.insert(trip)
            trip.expenses = [Graph.Expense(amount: 1), Graph.Expense(amount: 2)]
            try context.save()
        }
        for prefetch in [false, true] {
            let context = ModelContext(container)
            var descriptor = FetchDescriptor<Trip>()
            if prefetch { descriptor.relationshipKeyPathsForPrefetching = [\.expenses] }
            let trip = try #require(try context.fetch(descriptor).first)
            let expenses = trip.expenses
            let atTrip = Recorder(trip.objectWillChange)
            expenses[1].amount = 5
            #expect(atTrip.events == ["\(\Trip.expenses) → \(\Graph.Expense.amount)"], "prefetch: \(prefetch)")
        }
    }

    @Test("Observers of trip.expenses are told when an expense changes")
    func observation() {
        let trip = Trip(name: "Lisbon")
        let expense = Graph.Expense(amount: 10)
        trip.expenses = [expense]
        let flag = Flag()
        withObservationTracking {
            _ = trip.expenses
        } onChange: {
            flag.set()
        }
        expense.amount = 11
        #expect(flag.value)
    }

    @Test("Forwarding holds the holder weakly: a released trip is freed")
    func weakHolder() {
        let expense = Graph.Expense(amount: 10)
        weak var weakTrip: Trip?
        do {
            let trip = Trip(name: "Lisbon")
            trip.expenses = [expense]
            weakTrip = trip
        }
        #expect(weakTrip == nil)
        expense.amount = 3
    }
}
