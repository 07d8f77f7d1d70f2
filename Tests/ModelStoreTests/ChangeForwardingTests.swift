import Foundation
import Observation
import Testing
@testable import ModelStore

// A time limit, so that a walk that does not end fails instead of hanging;
// generous, so that a loaded machine does not fail a test that only waits.
@Suite("Change forwarding", .timeLimit(.minutes(10)))
struct ChangeForwardingTests {
    /// owner.trips = [trip], trip.expenses = [expense], both forwarding.
    private func graph() -> (FwdOwner, FwdTrip, FwdExpense) {
        let owner = FwdOwner(name: "Ana")
        let trip = FwdTrip(name: "Lisbon")
        let expense = FwdExpense(title: "Taxi")
        trip.expenses = [expense]
        owner.trips = [trip]
        return (owner, trip, expense)
    }

    @Test func aChangeTravelsThreeLevelsWithItsPath() {
        let (owner, trip, expense) = graph()
        let logs = (ChangeLog(owner), ChangeLog(trip), ChangeLog(expense))
        expense.amount = 10
        for log in [logs.0, logs.1, logs.2] {
            #expect(log.keyPaths == [\FwdExpense.amount])
            #expect(log.models == [ObjectIdentifier(expense)])
        }
        #expect(logs.2.paths == [[]])
        #expect(logs.1.paths == [[\FwdTrip.expenses]])
        #expect(logs.0.paths == [[\FwdOwner.trips, \FwdTrip.expenses]])
    }

    @Test func aHolderForwardsItsOwnChangesAndMembershipChanges() {
        let (owner, trip, _) = graph()
        let ownerLog = ChangeLog(owner)
        let tripLog = ChangeLog(trip)
        trip.name = "Porto"
        let taxi = FwdExpense(title: "Bus")
        trip.expenses.append(taxi)
        #expect(tripLog.keyPaths == [\FwdTrip.name, \FwdTrip.expenses])
        #expect(tripLog.paths == [[], []])
        #expect(ownerLog.keyPaths == [\FwdTrip.name, \FwdTrip.expenses])
        #expect(ownerLog.paths == [[\FwdOwner.trips], [\FwdOwner.trips]])
        taxi.amount = 4
        #expect(ownerLog.paths.last == [\FwdOwner.trips, \FwdTrip.expenses], "the new member forwards")
    }

    @Test func forwardingPassesThroughObjectsWithoutSubscribers() {
        let (owner, trip, expense) = graph()
        let ownerLog = ChangeLog(owner)
        let tripLog = ChangeLog(trip)
        tripLog.subscription?.cancel()
        expense.amount = 1
        #expect(tripLog.changes.isEmpty)
        #expect(ownerLog.paths == [[\FwdOwner.trips, \FwdTrip.expenses]])
        ownerLog.subscription?.cancel()
        expense.amount = 2
        #expect(ownerLog.changes.count == 1)
    }

    @Test func inPlaceMutationsForward() {
        let (owner, _, expense) = graph()
        let ownerLog = ChangeLog(owner)
        expense.tags.append("work")
        #expect(ownerLog.keyPaths == [\FwdExpense.tags])
        #expect(expense._$modelState.changeRelay?.inPlaceMutations.isEmpty == true, "each willSet had its didSet")
    }

    @Test func valuesCarryForwardedChanges() async {
        let (owner, _, expense) = graph()
        var iterator = owner.objectWillChange.values.makeAsyncIterator()
        expense.amount = 7
        let change = await iterator.next()
        #expect(change?.model as? FwdExpense === expense)
        #expect(change?.relationshipPath == [\FwdOwner.trips, \FwdTrip.expenses])
    }

    @Test func linkingTwiceIsLinkingOnce() {
        let (_, trip, expense) = graph()
        expense._$modelState.addForwardingParent(trip, via: \FwdTrip.expenses)
        #expect(forwardingParentCount(of: expense) == 1)
        let tripLog = ChangeLog(trip)
        expense.amount = 1
        #expect(tripLog.changes.count == 1)
    }

    @Test func removingALinkStopsForwarding() {
        let (owner, trip, expense) = graph()
        let ownerLog = ChangeLog(owner)
        trip.expenses = []
        #expect(forwardingParentCount(of: expense) == 0)
        expense.amount = 1
        #expect(ownerLog.keyPaths == [\FwdTrip.expenses], "only the removal itself")
        #expect(expense._$modelState.changeRelay == nil)
    }

    @Test func manyParentsAreIndexed() {
        let expense = FwdExpense(title: "Shared")
        let trips = (0..<40).map { FwdTrip(name: "T\($0)") }
        for trip in trips { trip.expenses = [expense] }
        for trip in trips { expense._$modelState.addForwardingParent(trip, via: \FwdTrip.expenses) }
        #expect(forwardingParentCount(of: expense) == 40)
        for trip in trips.prefix(30) { trip.expenses = [] }
        #expect(forwardingParentCount(of: expense) == 10)
        let logs = trips.map { ChangeLog($0) }
        expense.amount = 1
        #expect(logs.map(\.changes.count) == Array(repeating: 0, count: 30) + Array(repeating: 1, count: 10))
    }

    @Test func aTwoObjectCycleEmitsOncePerObject() {
        let a = FwdNode("a")
        let b = FwdNode("b")
        a.next = b
        b.next = a
        let logs = (ChangeLog(a), ChangeLog(b))
        a.name = "A"
        #expect(logs.0.paths == [[]])
        #expect(logs.1.paths == [[\FwdNode.next]])
    }

    @Test func aThreeObjectLoopEmitsOncePerObjectByTheShortestRoute() {
        let (a, b, c) = (FwdNode("a"), FwdNode("b"), FwdNode("c"))
        a.next = b
        b.next = c
        c.next = a
        let logs = (ChangeLog(a), ChangeLog(b), ChangeLog(c))
        a.name = "A"
        #expect(logs.0.paths == [[]])
        #expect(logs.2.paths == [[\FwdNode.next]])
        #expect(logs.1.paths == [[\FwdNode.next, \FwdNode.next]])
    }

    @Test func aChangeEnteringALoopFromOutsideEnds() {
        let (a, b, c, outsider) = (FwdNode("a"), FwdNode("b"), FwdNode("c"), FwdNode("x"))
        a.next = b
        b.next = c
        c.next = a
        outsider._$modelState.addForwardingParent(a, via: \FwdNode.next)
        let logs = [a, b, c, outsider].map { ChangeLog($0) }
        outsider.name = "X"
        #expect(logs.map(\.paths) == [
            [[\FwdNode.next]], [[\FwdNode.next, \FwdNode.next, \FwdNode.next]],
            [[\FwdNode.next, \FwdNode.next]], [[]],
        ])
    }

    @Test func anObjectForwardingToItselfEmitsOnce() {
        let a = FwdNode("a")
        a.next = a
        let log = ChangeLog(a)
        a.name = "A"
        #expect(log.paths == [[]])
    }

    @Test func aDiamondReachesTheTopOnce() {
        let owner = FwdOwner(name: "Ana")
        let (lisbon, porto) = (FwdTrip(name: "Lisbon"), FwdTrip(name: "Porto"))
        let shared = FwdExpense(title: "Pass")
        lisbon.expenses = [shared]
        porto.expenses = [shared]
        owner.trips = [lisbon, porto]
        let logs = (ChangeLog(owner), ChangeLog(lisbon), ChangeLog(porto))
        shared.amount = 3
        #expect(logs.0.changes.count == 1)
        #expect(logs.1.changes.count == 1)
        #expect(logs.2.changes.count == 1)
    }

    @Test func parentsAreHeldWeakly() {
        let trip = FwdTrip(name: "Lisbon")
        let expense = FwdExpense(title: "Taxi")
        trip.expenses = [expense]
        weak var weakOwner: FwdOwner?
        do {
            let owner = FwdOwner(name: "Ana")
            owner.trips = [trip]
            weakOwner = owner
            _ = ChangeLog(owner)
        }
        #expect(weakOwner == nil)
        let tripLog = ChangeLog(trip)
        expense.amount = 2
        trip.name = "Porto"
        #expect(tripLog.changes.count == 2)
        #expect(forwardingParentCount(of: trip) == 0, "the dead link is forgotten")
    }

    @Test func aGraphWithSubscribersAndLinksIsFreed() async {
        weak var weakOwner: FwdOwner?
        weak var weakTrip: FwdTrip?
        weak var weakExpense: FwdExpense?
        // The subscriptions outlive the graph; they count rather than keep
        // events, since an event holds the changed object.
        var counts = [0, 0, 0]
        var subscriptions: [ModelChangeSubscription] = []
        var values: [AsyncStream<ModelChange>] = []
        do {
            let (owner, trip, expense) = graph()
            (weakOwner, weakTrip, weakExpense) = (owner, trip, expense)
            subscriptions = [
                owner.objectWillChange.sink { _ in counts[0] += 1 },
                trip.objectWillChange.sink { _ in counts[1] += 1 },
                expense.objectWillChange.sink { [weak expense] _ in _ = expense?.amount; counts[2] += 1 },
            ]
            expense.amount = 1
            // Made after the change: a buffered event would hold the expense.
            values = [owner.objectWillChange.values, expense.objectWillChange.values]
        }
        #expect(weakOwner == nil)
        #expect(weakTrip == nil)
        #expect(weakExpense == nil)
        #expect(counts == [1, 1, 1])
        for stream in values {
            for await _ in stream { Issue.record("nothing changed after the sequence was made") }
        }
        subscriptions.forEach { $0.cancel() }
    }

    @Test func aFreedLoopIsFreed() {
        weak var weakA: FwdNode?
        weak var weakB: FwdNode?
        do {
            let (a, b) = (FwdNode("a"), FwdNode("b"))
            // A manager chain that loops holds strongly both ways; here only
            // one way is strong (a → b, b's link back is weak), as with
            // relationships whose storage the context holds.
            a.next = b
            b._$modelState.addForwardingParent(a, via: \FwdNode.next)
            a._$modelState.addForwardingParent(b, via: \FwdNode.next)
            (weakA, weakB) = (a, b)
            a.name = "A"
        }
        #expect(weakA == nil)
        #expect(weakB == nil)
    }

    @Test func observersOfARelationshipHearOfMemberChanges() {
        let (owner, trip, expense) = graph()
        let tripFired = Flag()
        let ownerFired = Flag()
        withObservationTracking { _ = trip.expenses } onChange: { tripFired.set() }
        withObservationTracking { _ = owner.trips } onChange: { ownerFired.set() }
        expense.amount = 5
        #expect(tripFired.value)
        #expect(ownerFired.value)
    }

    @Test func observersOfARelationshipHearOfInPlaceMemberChanges() {
        let (_, trip, expense) = graph()
        let fired = Flag()
        withObservationTracking { _ = trip.expenses } onChange: { fired.set() }
        expense.tags.append("x")
        #expect(fired.value)
    }

    @Test func aHolderLinkedTwiceHearsOnceAndBothRelationshipsAreObserved() {
        let (_, trip, expense) = graph()
        // As if the trip also held the expense through a second forwarding
        // relationship; `name` stands in for it.
        expense._$modelState.addForwardingParent(trip, via: \FwdTrip.name)
        let tripLog = ChangeLog(trip)
        let (expensesFired, nameFired) = (Flag(), Flag())
        withObservationTracking { _ = trip.expenses } onChange: { expensesFired.set() }
        withObservationTracking { _ = trip.name } onChange: { nameFired.set() }
        expense.amount = 5
        #expect(tripLog.paths == [[\FwdTrip.expenses]])
        #expect(expensesFired.value)
        #expect(nameFired.value)
    }

    @Test func observersOfAnotherPropertyHearNothing() {
        let (_, trip, expense) = graph()
        let fired = Flag()
        withObservationTracking { _ = trip.name } onChange: { fired.set() }
        expense.amount = 5
        #expect(!fired.value)
    }

    @Test func observersHearNothingAfterTheMemberLeft() {
        let (_, trip, expense) = graph()
        trip.expenses = []
        let fired = Flag()
        withObservationTracking { _ = trip.expenses } onChange: { fired.set() }
        expense.amount = 5
        #expect(!fired.value)
    }
}
