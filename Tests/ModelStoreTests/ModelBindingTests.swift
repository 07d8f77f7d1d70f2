import Foundation
import Testing
@testable import ModelStore

/// A form as a UI framework would hold it: a view value whose bindings write
/// into a model, although the view itself is immutable.
private struct BudgetForm {
    @ModelBindable var trip: PlannedTrip
    @ModelBinding var note: String?

    init(trip: PlannedTrip) {
        self.trip = trip
        _note = ModelBindable(trip).note
    }

    /// What a text field bound to `$trip.budget.amount` does on input, from
    /// a non-mutating context such as a view's `body`.
    func enter(amount: Double, currency: String, note: String) {
        let amountField: ModelBinding<Double> = $trip.budget.amount
        amountField.wrappedValue = amount
        $trip.budget.currency.wrappedValue = currency
        self.note = note
    }
}

@Suite("Model bindings")
struct ModelBindingTests {
    @Test func aBindingReadsAndWritesThroughTheReference() throws {
        let (context, trip, _) = try ModelReferenceTests.savedTrip()
        let amount = trip.reference(\.budget.amount).binding
        #expect(amount.wrappedValue == 800)
        amount.wrappedValue = 950
        #expect(trip.budget.amount == 950)
        #expect(context.changedKeyPaths(of: trip) == [\PlannedTrip.budget])
    }

    @Test func dynamicMembersNarrowABinding() throws {
        let (context, trip, _) = try ModelReferenceTests.savedTrip()
        let budget = trip.reference(\.budget).binding
        let currency: ModelBinding<String> = budget.currency
        #expect(currency.wrappedValue == "JPY")
        currency.wrappedValue = "EUR"
        #expect(trip.budget == TripBudget(amount: 800, currency: "EUR"))
        ModelBindable(trip).budget.amount.wrappedValue = 10
        #expect(trip.budget == TripBudget(amount: 10, currency: "EUR"))
        #expect(context.changedKeyPaths(of: trip) == [\PlannedTrip.budget])
    }

    @Test func aFormBoundToATripsNestedBudgetWritesOnlyTheBudgetAndNote() throws {
        let (context, trip, _) = try ModelReferenceTests.savedTrip()
        let form = BudgetForm(trip: trip)
        var amounts: [Double] = []
        let token = trip.reference(\.budget.amount).observe { amounts.append($0) }
        form.enter(amount: 1_500, currency: "EUR", note: "rail pass")
        #expect(trip.budget == TripBudget(amount: 1_500, currency: "EUR"))
        #expect(trip.note == "rail pass")
        #expect(form.note == "rail pass")
        #expect(amounts == [1_500])
        #expect(context.changedKeyPaths(of: trip) == [\PlannedTrip.budget, \PlannedTrip.note])
        token.cancel()
    }

    @Test func anElementBindingOutOfRangeReadsNilAndIgnoresWrites() throws {
        let (_, trip, _) = try ModelReferenceTests.savedTrip()
        let third = trip.reference(\.tags)[2].binding
        trip.tags = ["temples"]
        #expect(third.wrappedValue == nil)
        third.wrappedValue = "onsen"
        #expect(trip.tags == ["temples"])
    }

    @Test func aBindingFromFunctionsAndAConstantBinding() {
        var stored = 1
        let binding = ModelBinding(get: { stored }, set: { stored = $0 })
        binding.wrappedValue = 2
        #expect(stored == 2)
        #expect(binding.projectedValue.wrappedValue == 2)
        let constant = ModelBinding.constant("fixed")
        constant.wrappedValue = "changed"
        #expect(constant.wrappedValue == "fixed")
    }
}
