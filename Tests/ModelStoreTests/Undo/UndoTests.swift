import Foundation
import Observation
import Testing
@testable import ModelStore

/// `ModelContext.undoManager`: every kind of change undone and redone, in
/// memory (saves, rollback and merges: UndoAcrossSavesTests.swift).
@Suite("Undo and redo", .timeLimit(.minutes(10)))
struct UndoTests {
    typealias Trip = Graph.Trip
    typealias Stop = Graph.Stop

    /// A saved trip with two stops, read by a fresh context with an undo
    /// manager that groups only explicitly.
    private func savedTrip(_ store: TestStore) throws -> (ModelContext, UndoManager, Trip) {
        let container = try store.graphContainer()
        let writer = ModelContext(container)
        writer.insert(Trip(name: "Lisbon", stops: ["Belém", "Alfama"]))
        try writer.save()
        let context = ModelContext(container)
        let undoManager = UndoManager()
        undoManager.groupsByEvent = false
        context.undoManager = undoManager
        let read = try #require(try context.fetch(FetchDescriptor<Trip>()).first)
        return (context, undoManager, read)
    }

    /// Runs `body` as one undo group.
    private func step(_ undoManager: UndoManager, _ body: () -> Void) {
        undoManager.beginUndoGrouping()
        body()
        undoManager.endUndoGrouping()
    }

    @Test func nilByDefaultAndNothingRecordedWithout() throws {
        let store = try TestStore()
        let context = ModelContext(try store.graphContainer())
        #expect(context.undoManager == nil)
        let trip = Trip(name: "Lisbon")
        context.insert(trip)
        trip.name = "Porto"
        let undoManager = UndoManager()
        context.undoManager = undoManager
        #expect(!undoManager.canUndo, "changes made before the manager was set are not recorded")
        trip.name = "Faro"
        #expect(undoManager.canUndo)
        context.undoManager = nil
        #expect(!trip._$modelState.recordsUndo)
    }

    @Test func attributeChangeUndoneRedoneAndCleanAgain() throws {
        let store = try TestStore()
        let (context, undoManager, trip) = try savedTrip(store)
        step(undoManager) { trip.name = "Porto" }
        step(undoManager) { trip.name = "Faro" }
        #expect(context.changedPropertyNames(of: trip) == ["name"])

        undoManager.undo()
        #expect(trip.name == "Porto")
        #expect(context.changedPropertyNames(of: trip) == ["name"], "Porto is not the saved value")
        undoManager.undo()
        #expect(trip.name == "Lisbon")
        #expect(!context.hasChanges, "back at its saved values, the object is clean")
        #expect(context.changedKeyPaths(of: trip).isEmpty)
        #expect(!undoManager.canUndo && undoManager.canRedo)

        undoManager.redo()
        #expect(trip.name == "Porto")
        #expect(context.changedModelsArray.count == 1)
        undoManager.redo()
        #expect(trip.name == "Faro")
        try context.save()
        #expect(try ModelContext(context.container).fetch(FetchDescriptor<Trip>()).map(\.name) == ["Faro"])
    }

    @Test func onlyThePropertiesThatDifferStayDirty() throws {
        let store = try TestStore()
        let (context, undoManager, trip) = try savedTrip(store)
        let stop = try #require(trip.stops.first { $0.title == "Belém" })
        step(undoManager) { stop.title = "Belém Tower" }
        step(undoManager) { trip.name = "Porto" }
        undoManager.undo()
        #expect(context.changedModelsArray.count == 1)
        #expect(context.changedPropertyNames(of: stop) == ["title"])
        #expect(!trip.hasChanges)
    }

    @Test func insertUndoneAndRedone() throws {
        let store = try TestStore()
        let (context, undoManager, _) = try savedTrip(store)
        let porto = Trip(name: "Porto")
        step(undoManager) { context.insert(porto) }
        undoManager.undo()
        #expect(porto.modelContext == nil)
        #expect(!context.hasChanges)
        undoManager.redo()
        #expect(porto.modelContext === context)
        #expect(context.insertedModelsArray.count == 1)
        try context.save()
        #expect(try ModelContext(context.container).fetchCount(FetchDescriptor<Trip>()) == 2)
    }

    @Test func deleteUndoneKeepsTheCascadeRedoneApplyingIt() throws {
        let store = try TestStore()
        let (context, undoManager, trip) = try savedTrip(store)
        step(undoManager) { context.delete(trip) }
        #expect(trip.isDeleted)
        undoManager.undo()
        #expect(!trip.isDeleted)
        #expect(!context.hasChanges)
        try context.save()
        let check = ModelContext(context.container)
        #expect(try check.fetchCount(FetchDescriptor<Trip>()) == 1)
        #expect(try check.fetchCount(FetchDescriptor<Stop>()) == 2, "the cascade's objects are still there")

        undoManager.redo()
        #expect(trip.isDeleted)
        try context.save()
        #expect(try check.fetchCount(FetchDescriptor<Trip>()) == 0)
        #expect(try check.fetchCount(FetchDescriptor<Stop>()) == 0, "the cascade applies at the save")
    }

    @Test func toOneMoveUndoneWithInverses() throws {
        let store = try TestStore()
        let (context, undoManager, lisbon) = try savedTrip(store)
        let porto = Trip(name: "Porto")
        step(undoManager) { context.insert(porto) }
        try context.save()
        let stop = try #require(lisbon.stops.first { $0.title == "Belém" })

        step(undoManager) { stop.trip = porto }
        #expect(porto.stops.map(\.title) == ["Belém"])
        #expect(lisbon.stops.map(\.title) == ["Alfama"])

        undoManager.undo()
        #expect(stop.trip === lisbon)
        #expect(Set(lisbon.stops.map(\.title)) == ["Belém", "Alfama"])
        #expect(porto.stops.isEmpty)
        #expect(!context.hasChanges, "every end of the move is back at its saved value")

        undoManager.redo()
        #expect(stop.trip === porto)
        #expect(porto.stops.map(\.title) == ["Belém"])
        #expect(lisbon.stops.map(\.title) == ["Alfama"])
        try context.save()
        let check = ModelContext(context.container)
        let stored = try check.fetch(FetchDescriptor<Stop>(predicate: #Predicate { $0.title == "Belém" }))
        #expect(stored.first?.trip?.name == "Porto")
    }

    @Test func toManyInPlaceChangeUndoneWithInversesAndAdoptedInsert() throws {
        let store = try TestStore()
        let (context, undoManager, trip) = try savedTrip(store)
        let stop = Stop(title: "Sintra")
        step(undoManager) { trip.stops.append(stop) }
        #expect(stop.trip === trip)
        #expect(stop.modelContext === context, "relating a new object inserts it")

        undoManager.undo()
        #expect(trip.stops.count == 2)
        #expect(stop.trip == nil)
        #expect(stop.modelContext == nil, "the insert is undone too")
        #expect(!context.hasChanges)

        undoManager.redo()
        #expect(trip.stops.count == 3)
        #expect(stop.trip === trip)
        #expect(stop.modelContext === context)
        try context.save()
        #expect(try ModelContext(context.container).fetchCount(FetchDescriptor<Stop>()) == 3)
    }

    @Test func explicitGroupsUndoTogether() throws {
        let store = try TestStore()
        let (context, undoManager, trip) = try savedTrip(store)
        undoManager.beginUndoGrouping()
        trip.name = "Porto"
        undoManager.beginUndoGrouping()
        trip.stops.removeAll()
        undoManager.endUndoGrouping()
        undoManager.endUndoGrouping()
        step(undoManager) { trip.name = "Faro" }
        #expect(undoManager.groupingLevel == 0)
        undoManager.undo()
        #expect(trip.name == "Porto" && trip.stops.isEmpty)
        undoManager.undo()
        #expect(trip.name == "Lisbon" && trip.stops.count == 2)
        #expect(!context.hasChanges)
    }

    @MainActor
    @Test func changesOfOneMainActorTurnUndoTogether() async throws {
        let store = try TestStore()
        let container = try store.graphContainer()
        let writer = ModelContext(container)
        writer.insert(Trip(name: "Lisbon", stops: ["Belém", "Alfama"]))
        try writer.save()
        let context = container.mainContext
        context.autosaveEnabled = false
        let undoManager = UndoManager()
        context.undoManager = undoManager
        let trip = try #require(try context.fetch(FetchDescriptor<Trip>()).first)
        trip.name = "Porto"
        trip.stops.removeAll()
        #expect(undoManager.groupingLevel == 1, "the first change opened the event's group")
        await undoManager.eventGroupClosing?.value
        #expect(undoManager.groupingLevel == 0)
        trip.name = "Faro"
        await undoManager.eventGroupClosing?.value
        undoManager.undo()
        #expect(trip.name == "Porto" && trip.stops.isEmpty)
        undoManager.undo()
        #expect(trip.name == "Lisbon" && trip.stops.count == 2)
        #expect(!context.hasChanges)
    }

    @Test func observersHearOfUndoAndRedo() throws {
        let store = try TestStore()
        let (context, undoManager, trip) = try savedTrip(store)
        step(undoManager) { trip.name = "Porto" }
        let observed = Flag()
        withObservationTracking { _ = trip.name } onChange: { observed.set() }
        var willChange: [AnyKeyPath] = []
        let subscription = trip.objectWillChange.sink { willChange.append($0.keyPath) }
        undoManager.undo()
        #expect(observed.value)
        let redone = Flag()
        withObservationTracking { _ = trip.name } onChange: { redone.set() }
        undoManager.redo()
        #expect(redone.value)
        #expect(willChange == [\Trip.name, \Trip.name])
        #expect(context.changedPropertyNames(of: trip) == ["name"])
        _ = subscription
    }
}

extension Graph.Trip {
    convenience init(name: String, stops: [String]) {
        self.init(name: name)
        self.stops = stops.map { Graph.Stop(title: $0) }
    }
}
