import Foundation
import Testing
@testable import ModelStore

/// Undo and redo across saves, rollbacks, and other contexts' saves merged in.
@Suite("Undo across saves and merges", .timeLimit(.minutes(10)))
struct UndoAcrossSavesTests {
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

    private func storedNames(_ container: ModelContainer) throws -> [String] {
        try ModelContext(container).fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)])).map(\.name)
    }

    @Test func undoingPastASaveChangesTheObjectAgainAndTheNextSaveWritesIt() throws {
        let store = try TestStore()
        let container = try store.graphContainer()
        let context = ModelContext(container)
        let undoManager = recordUndo(in: context)
        let trip = Trip(name: "Lisbon")
        step(undoManager) { context.insert(trip) }
        try context.save()
        step(undoManager) { trip.name = "Porto" }
        try context.save()
        #expect(undoManager.canUndo, "a save keeps the undo stack")

        undoManager.undo()
        #expect(trip.name == "Lisbon")
        #expect(context.changedPropertyNames(of: trip) == ["name"], "Lisbon is no longer the saved value")
        try context.save()
        #expect(try storedNames(container) == ["Lisbon"])

        undoManager.redo()
        #expect(trip.name == "Porto")
        try context.save()
        #expect(try storedNames(container) == ["Porto"])

        undoManager.undo()
        undoManager.undo()
        #expect(trip.isDeleted, "undoing a saved insert deletes the object")
        try context.save()
        #expect(try storedNames(container) == [])
    }

    @Test func redoBackToTheSavedValueIsClean() throws {
        let store = try TestStore()
        let context = ModelContext(try store.graphContainer())
        let undoManager = recordUndo(in: context)
        let trip = Trip(name: "Lisbon")
        step(undoManager) { context.insert(trip) }
        try context.save()
        step(undoManager) { trip.name = "Porto" }
        try context.save()
        undoManager.undo()
        #expect(context.hasChanges)
        undoManager.redo()
        #expect(!context.hasChanges, "Porto is what the store holds")
    }

    /// A trip with a tag (to-many with an inverse) and an owner (to-one
    /// without one), saved, then deleted and the deletion saved.
    private func savedDeletedTrip(
        in context: ModelContext, _ undoManager: UndoManager
    ) throws -> (trip: Trip, tag: Graph.Tag, owner: Graph.Person, deletedID: PersistentIdentifier) {
        let trip = Trip(name: "Lisbon")
        let tag = Graph.Tag(name: "sun")
        let owner = Graph.Person(name: "Ana")
        step(undoManager) {
            context.insert(trip)
            trip.tags = [tag]
            trip.owner = owner
        }
        try context.save()
        let deletedID = trip.persistentModelID
        step(undoManager) { context.delete(trip) }
        try context.save()
        #expect(tag.trips.isEmpty)
        return (trip, tag, owner, deletedID)
    }

    @Test func undoingASavedDeleteInsertsTheObjectAgainWithItsValuesAndRelationships() throws {
        let store = try TestStore()
        let container = try store.graphContainer()
        let context = ModelContext(container)
        let undoManager = recordUndo(in: context)
        let (trip, tag, owner, deletedID) = try savedDeletedTrip(in: context, undoManager)

        undoManager.undo()
        #expect(trip.modelContext === context)
        #expect(!trip.isDeleted)
        #expect(trip.name == "Lisbon")
        #expect(trip.tags.count == 1 && trip.tags.first === tag)
        #expect(tag.trips.count == 1 && tag.trips.first === trip, "the inverse holds it again")
        #expect(trip.owner === owner)
        #expect(context.hasChanges)

        try context.save()
        #expect(trip.persistentModelID != deletedID, "a new row, as in Core Data")
        let fresh = ModelContext(container)
        let trips = try fresh.fetch(FetchDescriptor<Trip>())
        #expect(trips.map(\.name) == ["Lisbon"])
        #expect(trips.first?.tags.map(\.name) == ["sun"])
        #expect(trips.first?.owner?.name == "Ana")
        #expect(try fresh.fetch(FetchDescriptor<Graph.Tag>()).first?.trips.map(\.name) == ["Lisbon"])
    }

    @Test func redoingTheUndoOfASavedDeleteDeletesTheObjectAgain() throws {
        let store = try TestStore()
        let container = try store.graphContainer()
        let context = ModelContext(container)
        let undoManager = recordUndo(in: context)
        let (trip, tag, _, _) = try savedDeletedTrip(in: context, undoManager)

        undoManager.undo()
        undoManager.redo()
        #expect(trip.modelContext == nil)
        #expect(tag.trips.isEmpty)
        try context.save()
        #expect(try storedNames(container) == [])
        #expect(try ModelContext(container).fetch(FetchDescriptor<Graph.Tag>()).first?.trips.isEmpty == true)

        undoManager.undo()
        #expect(trip.modelContext === context)
        #expect(tag.trips.first === trip)
        try context.save()
        #expect(try storedNames(container) == ["Lisbon"])
    }

    @Test func undoingASavedDeleteRestoresWhatItsCascadeRemoved() throws {
        let store = try TestStore()
        let container = try store.graphContainer()
        let context = ModelContext(container)
        let undoManager = recordUndo(in: context)
        let trip = Trip(name: "Lisbon")
        let stop = Graph.Stop(title: "Belém")
        let lodging = Graph.Lodging(name: "Pensão")
        step(undoManager) {
            context.insert(trip)
            trip.stops = [stop]
            trip.lodging = lodging
        }
        try context.save()
        step(undoManager) { context.delete(trip) }
        try context.save()
        #expect(stop.modelContext == nil && lodging.modelContext == nil, "the cascade removed them")

        undoManager.undo()
        #expect(stop.modelContext === context && lodging.modelContext === context)
        #expect(trip.stops.count == 1 && trip.stops.first === stop && stop.trip === trip)
        #expect(trip.lodging === lodging && lodging.trip === trip)
        try context.save()
        let fresh = ModelContext(container)
        let stored = try fresh.fetch(FetchDescriptor<Trip>())
        #expect(stored.first?.stops.map(\.title) == ["Belém"])
        #expect(stored.first?.lodging?.name == "Pensão")

        undoManager.redo()
        #expect(trip.isDeleted && stop.isDeleted && lodging.isDeleted, "saved since: deleted at the next save")
        try context.save()
        let afterRedo = ModelContext(container)
        #expect(try afterRedo.fetchCount(FetchDescriptor<Trip>()) == 0)
        #expect(try afterRedo.fetchCount(FetchDescriptor<Graph.Stop>()) == 0)
        #expect(try afterRedo.fetchCount(FetchDescriptor<Graph.Lodging>()) == 0)
    }

    @Test func rollbackRemovesTheContextsOperationsOnly() throws {
        let store = try TestStore()
        let context = ModelContext(try store.graphContainer())
        let undoManager = recordUndo(in: context)
        let trip = Trip(name: "Lisbon")
        step(undoManager) { context.insert(trip) }
        try context.save()
        final class Editor {
            var selection = 0
        }
        let editor = Editor()
        step(undoManager) {
            undoManager.registerUndo(withTarget: editor) { $0.selection = 0 }
            editor.selection = 1
        }
        step(undoManager) { trip.name = "Porto" }
        context.rollback()
        #expect(trip.name == "Lisbon")
        #expect(undoManager.canUndo, "the app's own operation stays")
        undoManager.undo()
        #expect(trip.name == "Lisbon")
        #expect(editor.selection == 0)
        #expect(!undoManager.canUndo)
        #expect(!context.hasChanges)
    }

    /// A saved book read by a context that records undo, and another context.
    private func twoContexts() throws -> (reader: ModelContext, writer: ModelContext, UndoManager, MergeBook, MergeBook) {
        let container = try mergeContainer(TestStore())
        let seed = ModelContext(container)
        let book = MergeBook(title: "Emma", pages: 400)
        seed.insert(book)
        try seed.save()
        let reader = ModelContext(container)
        let writer = ModelContext(container)
        let undoManager = recordUndo(in: reader)
        let read = try #require(reader.model(for: book.persistentModelID) as? MergeBook)
        let written = try #require(writer.model(for: book.persistentModelID) as? MergeBook)
        return (reader, writer, undoManager, read, written)
    }

    @Test func anUndoDoesNotRestoreOverAnotherContextsNewerSave() throws {
        let (reader, writer, undoManager, book, written) = try twoContexts()
        step(undoManager) {
            book.title = "Emma (annotated)"
            book.pages = 420
        }
        try reader.save()
        _ = try writer.fetch(FetchDescriptor<MergeBook>())
        written.title = "Emma, 2nd ed."
        try writer.save()
        _ = try reader.fetch(FetchDescriptor<MergeBook>())
        #expect(book.title == "Emma, 2nd ed.")

        undoManager.undo()
        #expect(book.title == "Emma, 2nd ed.", "the other context's save is newer than the undone change")
        #expect(book.pages == 400, "a property the other save did not change is undone")
        #expect(reader.changedPropertyNames(of: book) == ["pages"])
        try reader.save()
        let stored = try #require(try ModelContext(reader.container).fetch(FetchDescriptor<MergeBook>()).first)
        #expect(stored.title == "Emma, 2nd ed." && stored.pages == 400)
    }

    @Test func anUndoOverAnUnsavedConflictLeavesItToTheMergePolicy() throws {
        let (reader, writer, undoManager, book, written) = try twoContexts()
        step(undoManager) { book.pages = 999 }
        written.pages = 420
        try writer.save()
        _ = try reader.fetch(FetchDescriptor<MergeBook>())
        #expect(book.pages == 999, "unsaved changes win until saved")

        undoManager.undo()
        #expect(book.pages == 400)
        #expect(reader.changedPropertyNames(of: book) == ["pages"], "not clean: the store holds 420 now")
        #expect {
            try reader.save()
        } throws: { error in
            guard case ModelStoreError.saveConflicts = error else { return false }
            return true
        }
        reader.mergePolicy = .storeWins
        try reader.save()
        #expect(book.pages == 420)
    }
}
