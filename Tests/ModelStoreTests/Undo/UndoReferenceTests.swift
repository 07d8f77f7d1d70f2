import Foundation
import Testing
@testable import ModelStore

/// Writes through a `ModelReference` or a `ModelBinding` go through the
/// model's setter, so the context's undo manager records them like any
/// other write: one undo puts the whole nested value back.
@Suite("Undo of writes through references and bindings")
struct UndoReferenceTests {
    @Test func aNestedWriteThroughAReferenceUndoesAndRedoes() throws {
        let (context, trip, _) = try ModelReferenceTests.savedTrip()
        let undoManager = UndoManager()
        undoManager.groupsByEvent = false
        context.undoManager = undoManager

        undoManager.beginUndoGrouping()
        trip.reference(\.budget.amount).value = 1_500
        undoManager.endUndoGrouping()
        #expect(trip.budget == TripBudget(amount: 1_500, currency: "JPY"))
        #expect(context.changedPropertyNames(of: trip) == ["budget"])

        undoManager.undo()
        #expect(trip.budget == TripBudget(amount: 800, currency: "JPY"))
        #expect(context.changedPropertyNames(of: trip).isEmpty, "back to the saved value: clean")

        undoManager.redo()
        #expect(trip.budget.amount == 1_500)
        #expect(context.changedPropertyNames(of: trip) == ["budget"])
    }

    @Test func anElementWriteThroughABindingUndoes() throws {
        let (context, trip, _) = try ModelReferenceTests.savedTrip()
        let undoManager = UndoManager()
        undoManager.groupsByEvent = false
        context.undoManager = undoManager

        let binding = ModelBinding(trip.reference(\.tags)[1])
        undoManager.beginUndoGrouping()
        binding.wrappedValue = "markets"
        undoManager.endUndoGrouping()
        #expect(trip.tags == ["temples", "markets", "rail"])

        undoManager.undo()
        #expect(trip.tags == ["temples", "food", "rail"])
        #expect(!context.hasChanges)
    }
}
