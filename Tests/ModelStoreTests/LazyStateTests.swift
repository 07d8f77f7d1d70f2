import Foundation
import Observation
import Testing
@testable import ModelStore

/// A fetched object makes its `ModelState` on first use (see `FetchedRow`).
@Suite("States made on first use")
struct LazyStateTests {
    @Test func aFetchedObjectThatIsOnlyReadHasNoState() throws {
        let store = try TestStore()
        let context = ModelContext(try store.containerWithSavedTrips(3))
        let trips = try context.fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)]))
        #expect(trips.map(\.name) == ["T0", "T1", "T2"])
        #expect(trips.allSatisfy { $0._$modelStateIfMade == nil })
        // Fetching again finds the same objects, still without states.
        let again = try context.fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)]))
        #expect(zip(trips, again).allSatisfy { $0 === $1 })
        #expect(again.allSatisfy { $0._$modelStateIfMade == nil })
    }

    @Test func theStateMadeOnFirstUseIsTheFetchedRows() throws {
        let store = try TestStore()
        let container = try store.containerWithSavedTrips(2)
        let context = ModelContext(container)
        let trip = try #require(try context.fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)])).first)
        // A write makes the state: saved, in this context, with its row.
        trip.destination = "Chile"
        let state = try #require(trip._$modelStateIfMade)
        #expect(state.lifecycle == .persisted)
        #expect(trip.modelContext === context)
        #expect(!trip.persistentModelID.isTemporary)
        #expect(context.changedModelsArray.first as? Trip === trip)
        #expect(context.committedValue(of: trip, \.destination) == "Portugal")
        try context.save()
        let reread = try #require(
            try ModelContext(container).fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.name == "T0" })).first)
        #expect(reread.destination == "Chile")
        // Asking for the identifier also makes it, with the row's key.
        let other = try #require(try context.fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.name == "T1" })).first)
        #expect(other._$modelStateIfMade == nil)
        #expect(other.persistentModelID.rowID == 2)
        #expect(other.persistentModelID.entityName == "Trip")
        #expect(reread.persistentModelID == trip.persistentModelID)
    }

    @Test func aFreedObjectWithoutStateLeavesTheIdentityMap() throws {
        let store = try TestStore()
        let container = try store.containerWithSavedTrips(50)
        let context = ModelContext(container)
        let table = try context.table(for: Trip.self)
        weak var first: Trip?
        do {
            let trips = try context.fetch(FetchDescriptor<Trip>())
            first = trips.first
            #expect(context.existingRegistry(for: table)?.count == 50)
        }
        #expect(first == nil)
        // Each object's kept row took its entry out as the object was freed.
        #expect(context.existingRegistry(for: table)?.count == 0)
        let refetched = try context.fetch(FetchDescriptor<Trip>())
        #expect(refetched.count == 50)
        #expect(context.existingRegistry(for: table)?.count == 50)
    }

    // The state's owner is then the context that took the object over when
    // its own went (see ModelContext+Succession.swift), which no app sees.
    @Test func anObjectOutlivingItsContextMakesAStateWithoutContext() throws {
        let store = try TestStore()
        let container = try store.containerWithSavedTrips(1)
        var context: ModelContext? = ModelContext(container)
        let trip = try #require(try context?.fetch(FetchDescriptor<Trip>()).first)
        let identifier = try #require(try ModelContext(container).fetch(FetchDescriptor<Trip>()).first).persistentModelID
        context = nil
        #expect(trip._$modelStateIfMade == nil)
        #expect(trip.modelContext == nil)
        #expect(trip.persistentModelID == identifier)
        // A write is not tracked without a context, as for any detached object.
        trip.destination = "Peru"
        #expect(trip.destination == "Peru")
        #expect(!trip.hasChanges)
    }

    @Test func readingAnObjectWithoutStateInsideATrackingScopeObservesIt() throws {
        let store = try TestStore()
        let context = ModelContext(try store.containerWithSavedTrips(1))
        let trip = try #require(try context.fetch(FetchDescriptor<Trip>()).first)
        #expect(trip._$modelStateIfMade == nil)
        let changed = Flag()
        withObservationTracking {
            _ = trip.destination
        } onChange: {
            changed.set()
        }
        #expect(trip._$modelStateIfMade?.hasRegistrar == true)
        trip.destination = "Japan"
        #expect(changed.value)
    }
}
