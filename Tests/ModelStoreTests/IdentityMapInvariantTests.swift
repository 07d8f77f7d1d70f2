import Foundation
import Testing
@testable import ModelStore

/// The identity map's self-checks (`RowRegistry._checkInvariants()`,
/// `ModelContext._checkIdentityMap()`) after a workload that exercises every
/// way an entry comes and goes: inserts registered by a save, fetched rows
/// registered in bulk and one by one, relationship loads, deletes, objects
/// released by the app (their entries removed as their states are freed),
/// and growth after removals. The checks run in debug builds, which is how
/// the tests are built; save and fetch also run them after each call.
@Suite("The identity map's invariants")
struct IdentityMapInvariantTests {
    @Test(arguments: StoreKind.allCases)
    func holdAfterInsertsFetchesDeletesAndReleases(_ kind: StoreKind) throws {
        let store = try TestStore(kind)
        let container = try store.container([Graph.Trip.self, Graph.Stop.self, Graph.Lodging.self, Graph.Person.self, Graph.Tag.self, Graph.Expense.self])
        let context = ModelContext(container)
        var trips: [Graph.Trip] = []
        for index in 0..<300 {
            let trip = Graph.Trip(name: "T\(index)")
            context.insert(trip)
            trip.stops = [Graph.Stop(title: "A\(index)"), Graph.Stop(title: "B\(index)")]
            trips.append(trip)
        }
        try context.save()
        context._checkIdentityMap()
        let tripTable = try #require(context.store.table(for: Graph.Trip.self))
        let registry = try #require(context.existingRegistry(for: tripTable))
        #expect(registry.count == 300)

        // Delete every third trip (its stops cascade), then release them all.
        for trip in trips.enumerated().filter({ $0.offset % 3 == 0 }).map(\.element) { context.delete(trip) }
        try context.save()
        context._checkIdentityMap()
        trips.removeAll()
        context._checkIdentityMap()
        #expect(registry.count < 300, "releasing the objects removed their entries")

        // Fetch (bulk registration), load relationships both ways, release.
        try fetchAndWalk(context, expecting: 200)
        context._checkIdentityMap()

        // A context that keeps its fetched objects while rows come and go.
        let kept = try context.fetch(FetchDescriptor<Graph.Stop>(sortBy: [SortDescriptor(\.title)]))
        #expect(kept.count == 400)
        for stop in kept.prefix(50) { context.delete(stop) }
        for index in 0..<500 { context.insert(Graph.Trip(name: "N\(index)")) }
        try context.save()
        context._checkIdentityMap()
        try fetchAndWalk(context, expecting: 700)
        context._checkIdentityMap()
        registry._checkInvariants()
    }

    private func fetchAndWalk(_ context: ModelContext, expecting count: Int) throws {
        let fetched = try context.fetch(FetchDescriptor<Graph.Trip>())
        #expect(fetched.count == count)
        context._checkIdentityMap()
        let stopCount = fetched.reduce(0) { $0 + $1.stops.count }
        context._checkIdentityMap()
        for trip in fetched.prefix(20) {
            for stop in trip.stops { #expect(stop.trip === trip) }
        }
        #expect(stopCount <= 2 * count)
    }

    #if DEBUG
    @Test("The check stops at an object of another class in an entity's registry")
    func detectsAWrongEntry() async throws {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let note = Note(text: "not a trip")
            let registry = RowRegistry(modelType: Trip.self)
            registry.register(note, rowID: 42)
            registry._checkInvariants()
            withExtendedLifetime(note) {}
        }
        let message = String(decoding: try #require(result).standardErrorContent, as: UTF8.self)
        #expect(message.contains("Note registered for row 42 is not of the entity's class"), "\(message)")
    }
    #endif
}
