import Foundation
import Testing
@testable import ModelStore

// A time limit, so that a sequence that does not end fails instead of hanging;
// generous, since main-actor tests of the whole run queue up behind each
// other on a loaded machine and a tight limit would fail a test that waits.
@Suite("objectWillChange", .timeLimit(.minutes(10)))
struct ObjectWillChangeTests {
    @Test func sinkReceivesDirectChangesBeforeTheyHappen() {
        let expense = FwdExpense(title: "Taxi", amount: 10)
        var seenAmounts: [Double] = []
        let log = ChangeLog(expense)
        let reader = expense.objectWillChange.sink { [weak expense] _ in
            if let expense { seenAmounts.append(expense.amount) }
        }
        expense.amount = 12
        expense.title = "Cab"
        #expect(log.keyPaths == [\FwdExpense.amount, \FwdExpense.title])
        #expect(log.paths == [[], []])
        #expect(log.changes.allSatisfy { $0.isDirect })
        #expect(log.changes.allSatisfy { $0.model as? FwdExpense === expense })
        #expect(seenAmounts == [10, 12], "the event comes before the new value is stored")
        _ = reader
    }

    @Test func writingAnEqualValueEmitsNothing() {
        let expense = FwdExpense(title: "Taxi", amount: 10)
        let log = ChangeLog(expense)
        expense.amount = 10
        expense.title = "Taxi"
        #expect(log.changes.isEmpty)
    }

    @Test func inPlaceMutationEmits() {
        let expense = FwdExpense(title: "Taxi")
        let log = ChangeLog(expense)
        expense.tags.append("work")
        #expect(log.keyPaths == [\FwdExpense.tags])
    }

    @Test func cancelStopsEvents() {
        let expense = FwdExpense(title: "Taxi")
        let log = ChangeLog(expense)
        expense.amount = 1
        log.subscription?.cancel()
        #expect(log.subscription?.isCancelled == true)
        expense.amount = 2
        log.subscription?.cancel()
        #expect(log.changes.count == 1)
    }

    @Test func releasingTheSubscriptionStopsEvents() {
        let expense = FwdExpense(title: "Taxi")
        let log = ChangeLog(expense)
        expense.amount = 1
        log.subscription = nil
        expense.amount = 2
        #expect(log.changes.count == 1)
    }

    @Test func aSubscriberCancelledDuringDeliveryHearsNothingMore() {
        let expense = FwdExpense(title: "Taxi")
        let second = ChangeLog()
        let first = expense.objectWillChange.sink { _ in second.subscription?.cancel() }
        second.subscription = expense.objectWillChange.sink { second.record($0) }
        expense.amount = 1
        #expect(second.changes.isEmpty)
        _ = first
    }

    @Test func noRelayUnlessSomebodySubscribes() {
        let expense = FwdExpense(title: "Taxi")
        _ = expense.objectWillChange
        expense.amount = 1
        expense.tags.append("x")
        #expect(expense._$modelState.changeRelay == nil)
        let subscription = expense.objectWillChange.sink { _ in }
        #expect(expense._$modelState.changeRelay != nil)
        subscription.cancel()
        #expect(expense._$modelState.changeRelay == nil, "the object is back on the fast path")
    }

    @Test func valuesYieldsTheSameEvents() async {
        let expense = FwdExpense(title: "Taxi")
        let values = expense.objectWillChange.values
        expense.amount = 3
        expense.title = "Cab"
        var iterator = values.makeAsyncIterator()
        let first = await iterator.next()
        let second = await iterator.next()
        #expect(first?.keyPath == \FwdExpense.amount)
        #expect(second?.keyPath == \FwdExpense.title)
        #expect(first?.model as? FwdExpense === expense)
        #expect(first?.relationshipPath.isEmpty == true)
    }

    @MainActor @Test func valuesAreIteratedWhereTheModelLives() async {
        let expense = FwdExpense(title: "Taxi")
        let values = expense.objectWillChange.values
        expense.amount = 3
        for await change in values {
            #expect(change.keyPath == \FwdExpense.amount)
            break
        }
    }

    @Test func valuesEndWhenTheObjectIsFreed() async {
        var expense: FwdExpense? = FwdExpense(title: "Taxi")
        let values = expense!.objectWillChange.values
        expense?.amount = 3
        expense = nil
        var keyPaths: [AnyKeyPath] = []
        for await change in values { keyPaths.append(change.keyPath) }
        #expect(keyPaths == [\FwdExpense.amount])
    }

    @Test func aSequenceNobodyIteratesIsForgottenAtTheNextChange() async {
        let expense = FwdExpense(title: "Taxi")
        do {
            let values = expense.objectWillChange.values
            expense.amount = 1
            for await _ in values { break }
        }
        #expect(expense._$modelState.changeRelay != nil)
        expense.amount = 2
        #expect(expense._$modelState.changeRelay == nil)
    }

    @Test func aPublisherOfAFreedObjectGivesNothing() async {
        var expense: FwdExpense? = FwdExpense(title: "Taxi")
        let publisher = expense!.objectWillChange
        expense = nil
        #expect(publisher.sink { _ in }.isCancelled)
        for await _ in publisher.values { Issue.record("a freed object emits nothing") }
    }

    @Test func subscriptionsDoNotKeepTheObjectAlive() {
        weak var weakExpense: FwdExpense?
        var subscription: ModelChangeSubscription?
        var values: AsyncStream<ModelChange>?
        do {
            let expense = FwdExpense(title: "Taxi")
            weakExpense = expense
            subscription = expense.objectWillChange.sink { _ in }
            expense.amount = 5
            values = expense.objectWillChange.values
        }
        #expect(weakExpense == nil)
        subscription?.cancel()
        _ = values
    }

    @Test func rollbackEmitsTheRestoredValues() throws {
        let store = try TestStore()
        let container = try store.containerWithSavedTrips(1)
        let context = ModelContext(container)
        let trip = try #require(try context.fetch(FetchDescriptor<Trip>()).first)
        trip.destination = "Spain"
        let log = ChangeLog(trip)
        context.rollback()
        #expect(trip.destination == "Portugal")
        #expect(log.keyPaths == [\Trip.destination])
    }
}
