import Foundation
import Testing
@testable import ModelStore

/// Undoing a delete a save wrote, when the deleted object's relationships
/// were never loaded, and when other objects referred to it through
/// relationships without inverse; and how long the undo step keeps what it
/// restores.
@Suite("Undo of saved deletes: unloaded relationships and references without inverse", .timeLimit(.minutes(10)))
struct UndoSavedDeleteLinkTests {
    typealias Trip = Graph.Trip

    private func recordUndo(in context: ModelContext) -> UndoManager {
        let undoManager = UndoManager()
        undoManager.groupsByEvent = false
        context.undoManager = undoManager
        return undoManager
    }

    private func step(_ undoManager: UndoManager, _ body: () throws -> Void) rethrows {
        undoManager.beginUndoGrouping()
        defer { undoManager.endUndoGrouping() }
        try body()
    }

    /// Saves a trip with a tag, an owner, a stop and an agency that lists it
    /// (a to-many without inverse), from a context of its own.
    private func seed(_ container: ModelContainer) throws {
        let context = ModelContext(container)
        let trip = Trip(name: "Lisbon")
        let agency = Graph.Agency(name: "Sol")
        context.insert(trip)
        context.insert(agency)
        trip.tags = [Graph.Tag(name: "sun")]
        trip.owner = Graph.Person(name: "Ana")
        trip.stops = [Graph.Stop(title: "Belém")]
        agency.trips = [trip]
        try context.save()
    }

    @Test func relationshipsNeverLoadedComeBackWithTheObject() throws {
        let store = try TestStore()
        let container = try store.graphContainer()
        try seed(container)
        let context = ModelContext(container)
        let undoManager = recordUndo(in: context)
        // Fetched, nothing touched: every relationship is a fault.
        let trip = try #require(try context.fetch(FetchDescriptor<Trip>()).first)
        step(undoManager) { context.delete(trip) }
        try context.save()

        undoManager.undo()
        #expect(trip.modelContext === context)
        #expect(trip.tags.map(\.name) == ["sun"])
        #expect(trip.tags.first?.trips.first === trip, "the inverse holds it again")
        #expect(trip.owner?.name == "Ana")
        #expect(trip.stops.map(\.title) == ["Belém"], "the cascade's object, never loaded, comes back")
        #expect(trip.stops.first?.trip === trip)
        let agency = try #require(try context.fetch(FetchDescriptor<Graph.Agency>()).first)
        #expect(agency.trips.first === trip, "a to-many without inverse holds it again")
        try context.save()

        let fresh = ModelContext(container)
        let stored = try #require(try fresh.fetch(FetchDescriptor<Trip>()).first)
        #expect(stored.tags.map(\.name) == ["sun"])
        #expect(stored.owner?.name == "Ana")
        #expect(stored.stops.map(\.title) == ["Belém"])
        #expect(try fresh.fetch(FetchDescriptor<Graph.Agency>()).first?.trips.map(\.name) == ["Lisbon"])
        #expect(try fresh.fetchCount(FetchDescriptor<Graph.Stop>()) == 1)

        undoManager.redo()
        try context.save()
        let afterRedo = ModelContext(container)
        #expect(try afterRedo.fetchCount(FetchDescriptor<Trip>()) == 0)
        #expect(try afterRedo.fetchCount(FetchDescriptor<Graph.Stop>()) == 0)
        #expect(try afterRedo.fetch(FetchDescriptor<Graph.Agency>()).first?.trips.isEmpty == true)
    }

    @Test(arguments: [false, true])
    func aToOneWithoutInverseRefersToTheObjectAgain(holderLoaded: Bool) throws {
        let store = try TestStore()
        let container = try store.graphContainer()
        try seed(container)
        let context = ModelContext(container)
        let undoManager = recordUndo(in: context)
        let trip = holderLoaded ? try context.fetch(FetchDescriptor<Trip>()).first : nil
        #expect(!holderLoaded || trip?.owner?.name == "Ana")
        let ana = try #require(try context.fetch(FetchDescriptor<Graph.Person>()).first)
        step(undoManager) { context.delete(ana) }
        try context.save()
        #expect(trip?.owner == nil)
        #expect(try ModelContext(container).fetch(FetchDescriptor<Trip>()).first?.owner == nil)

        undoManager.undo()
        let restored = try #require(try context.fetch(FetchDescriptor<Trip>()).first)
        #expect(restored.owner === ana)
        try context.save()
        #expect(try ModelContext(container).fetch(FetchDescriptor<Trip>()).first?.owner?.name == "Ana")

        undoManager.redo()
        #expect(restored.owner == nil, "redo takes the reference back before deleting again")
        try context.save()
        #expect(try ModelContext(container).fetch(FetchDescriptor<Trip>()).first?.owner == nil)
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Graph.Person>()) == 0)
    }

    @Test func aToOneChangedSinceKeepsItsNewValue() throws {
        let store = try TestStore()
        let container = try store.graphContainer()
        try seed(container)
        let context = ModelContext(container)
        let undoManager = recordUndo(in: context)
        let ana = try #require(try context.fetch(FetchDescriptor<Graph.Person>()).first)
        step(undoManager) { context.delete(ana) }
        try context.save()
        // Not undoable: nothing of it is on the stack.
        undoManager.disableUndoRegistration()
        let trip = try #require(try context.fetch(FetchDescriptor<Trip>()).first)
        let bea = Graph.Person(name: "Bea")
        trip.owner = bea
        undoManager.enableUndoRegistration()

        undoManager.undo()
        #expect(ana.modelContext === context)
        #expect(trip.owner === bea)
    }

    @Test func theUndoStepAloneKeepsWhatItRestores() throws {
        let store = try TestStore()
        let container = try store.graphContainer()
        try seed(container)
        let context = ModelContext(container)
        let undoManager = recordUndo(in: context)
        weak var deleted: Trip?
        weak var cascaded: Graph.Stop?
        try {
            let trip = try #require(try context.fetch(FetchDescriptor<Trip>()).first)
            deleted = trip
            cascaded = trip.stops.first
            step(undoManager) { context.delete(trip) }
        }()
        try context.save()
        #expect(deleted != nil && cascaded != nil, "the undo step holds them")
        undoManager.removeAllActions()
        #expect(deleted == nil && cascaded == nil, "nothing else holds them once the step is gone")
    }

    @Test func aStepDroppedByLevelsOfUndoReleasesWhatItRestores() throws {
        let store = try TestStore()
        let container = try store.graphContainer()
        try seed(container)
        let context = ModelContext(container)
        let undoManager = recordUndo(in: context)
        undoManager.levelsOfUndo = 1
        weak var deleted: Trip?
        try {
            let trip = try #require(try context.fetch(FetchDescriptor<Trip>()).first)
            deleted = trip
            step(undoManager) { context.delete(trip) }
        }()
        try context.save()
        #expect(deleted != nil)
        let tag = try #require(try context.fetch(FetchDescriptor<Graph.Tag>()).first)
        step(undoManager) { tag.name = "rain" }
        #expect(deleted == nil, "the delete's step left the stack")
    }
}
