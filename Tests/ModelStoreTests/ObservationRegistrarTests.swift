import Foundation
import Observation
import Testing
@testable import ModelStore

/// Objects make their Observation registrar only when a property is read
/// inside a tracking scope (see ObservationProbe.swift); observation must
/// behave as if every object had one.
@Suite("Observation registrars")
struct ObservationRegistrarTests {
    private func savedTrip() throws -> (ModelContext, Trip, TestStore) {
        let store = try TestStore()
        let container = try store.containerWithSavedTrips(1)
        let context = ModelContext(container)
        let trip = try #require(try context.fetch(FetchDescriptor<Trip>()).first)
        return (context, trip, store)
    }

    @Test("The probe sees tracking scopes, nested ones too, and nothing outside them")
    func probe() {
        #expect(!ObservationProbe.isTracking, "outside any scope (or the probe failed its own check)")
        var inside = false
        var nested = false
        var afterNested = false
        withObservationTracking {
            inside = ObservationProbe.isTracking
            withObservationTracking { nested = ObservationProbe.isTracking } onChange: {}
            afterNested = ObservationProbe.isTracking
        } onChange: {}
        #expect(inside && nested && afterNested)
        #expect(!ObservationProbe.isTracking)
    }

    @Test("Reads outside a tracking scope make no registrar; a tracked read makes one")
    func registrarOnlyWhenTracked() throws {
        let (_, trip, _) = try savedTrip()
        _ = trip.destination
        _ = trip.name
        #expect(!trip._$modelState.hasRegistrar)
        withObservationTracking { _ = trip.destination } onChange: {}
        #expect(trip._$modelState.hasRegistrar)
    }

    @Test("An object read and written outside tracking notifies once it is observed")
    func observedAfterUntrackedReads() throws {
        let (context, trip, _) = try savedTrip()
        _ = trip.destination
        trip.destination = "Spain"
        #expect(context.changedKeyPaths(of: trip) == [\Trip.destination])
        let fired = Flag()
        withObservationTracking { _ = trip.destination } onChange: { fired.set() }
        trip.notes = "not observed"
        #expect(!fired.value)
        trip.destination = "France"
        #expect(fired.value)
    }

    @Test("A read in a nested scope notifies the outer scope too")
    func nestedScopes() throws {
        let (_, trip, _) = try savedTrip()
        let outer = Flag()
        let inner = Flag()
        withObservationTracking {
            withObservationTracking { _ = trip.destination } onChange: { inner.set() }
        } onChange: {
            outer.set()
        }
        trip.destination = "Spain"
        #expect(inner.value && outer.value)
    }

    @Test("An in-place mutation after an untracked read notifies a later observer")
    func inPlaceAfterUntrackedRead() throws {
        let (_, trip, _) = try savedTrip()
        trip.tags.append("read and changed in place, untracked")
        let fired = Flag()
        withObservationTracking { _ = trip.tags } onChange: { fired.set() }
        trip.tags.append("observed")
        #expect(fired.value)
    }

    @Test("A read on another thread's tracking scope does not hide this thread's scope")
    func threads() async throws {
        let (_, trip, _) = try savedTrip()
        let fired = Flag()
        // Untracked reads on other threads while this one tracks.
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<4 {
                group.addTask { for _ in 0..<1_000 { _ = ObservationProbe.isTracking } }
            }
            withObservationTracking { _ = trip.destination } onChange: { fired.set() }
            await group.waitForAll()
        }
        trip.destination = "Spain"
        #expect(fired.value)
    }

    @Test("Prefetched objects read outside tracking still forward and notify once observed")
    func prefetchedForwarding() throws {
        let store = try TestStore()
        let container = try store.graphContainer()
        do {
            let context = ModelContext(container)
            let trip = Graph.Trip(name: "Lisbon")
            context.insert(trip)
            trip.expenses = [Graph.Expense(amount: 1), Graph.Expense(amount: 2)]
            trip.stops = [Graph.Stop(title: "A")]
            try context.save()
        }
        let context = ModelContext(container)
        var descriptor = FetchDescriptor<Graph.Trip>()
        descriptor.relationshipKeyPathsForPrefetching = [\.expenses, \.stops]
        let trip = try #require(try context.fetch(descriptor).first)
        // Read everything outside tracking first, as a list screen would.
        #expect(trip.expenses.map(\.amount).sorted() == [1, 2])
        #expect(trip.stops.map(\.title) == ["A"])
        #expect(!trip._$modelState.hasRegistrar)
        let expensesChanged = Flag()
        withObservationTracking { _ = trip.expenses } onChange: { expensesChanged.set() }
        trip.expenses[0].amount = 7
        #expect(expensesChanged.value, "forwarded from an expense")
        let stopsChanged = Flag()
        withObservationTracking { _ = trip.stops } onChange: { stopsChanged.set() }
        _ = Graph.Stop(title: "B", trip: trip)
        #expect(stopsChanged.value, "through the inverse")
    }
}
