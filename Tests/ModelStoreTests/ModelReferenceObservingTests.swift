import Foundation
import Testing
@testable import ModelStore

@Suite("Model references: observing")
struct ModelReferenceObservingTests {
    @Test func aCallbackHearsTheNewValueAfterEachChange() throws {
        let (_, trip, _) = try ModelReferenceTests.savedTrip()
        let amount = trip.reference(\.budget.amount)
        var seen: [Double] = []
        var storedWhenCalled: [Double] = []
        let token = amount.observe { value in
            seen.append(value)
            storedWhenCalled.append(trip.budget.amount)
        }
        trip.budget.amount = 900                    // through the model, in place
        amount.value = 1_000                        // through the reference
        trip.budget = TripBudget(amount: 1_100, currency: "JPY")   // the whole property
        #expect(seen == [900, 1_000, 1_100])
        #expect(storedWhenCalled == seen)           // called after the value is stored
        #expect(!token.isCancelled)
    }

    @Test func otherPropertiesAndEqualValuesAreNotDelivered() throws {
        let (_, trip, _) = try ModelReferenceTests.savedTrip()
        var amounts: [Double] = []
        let token = trip.reference(\.budget.amount).observe { amounts.append($0) }
        var thirdTags: [String?] = []
        let tagToken = trip.reference(\.tags)[2].observe { thirdTags.append($0) }
        trip.name = "Nara"
        trip.budget.currency = "EUR"                // budget changes, amount does not
        trip.tags[0] = "shrines"                    // tags change, tags[2] does not
        trip.tags[2] = "bus"
        #expect(amounts.isEmpty)
        #expect(thirdTags == ["bus"])
        trip.tags = []                              // tags[2] is out of range now
        #expect(thirdTags == ["bus", nil])
        token.cancel()
        tagToken.cancel()
    }

    @Test func aValueThatIsNotEquatableIsDeliveredOnEachChangeOfItsPropertyOnly() throws {
        let (_, trip, _) = try ModelReferenceTests.savedTrip()
        var seen: [[String]] = []
        let token = trip.reference(\.sketch)[\.lines].observe { seen.append($0) }
        trip.name = "Nara"                          // another property: not delivered
        trip.sketch = TripSketch(lines: ["a"])
        trip.sketch.lines.append("b")
        #expect(seen == [["a"], ["a", "b"]])
        token.cancel()
    }

    @Test func cancellingOrReleasingTheTokenStopsTheCallback() throws {
        let (_, trip, _) = try ModelReferenceTests.savedTrip()
        let name = trip.reference(\.name)
        var first: [String] = []
        var second: [String] = []
        let token = name.observe { first.append($0) }
        do {
            let released = name.observe { second.append($0) }
            withExtendedLifetime(released) { trip.name = "Nara" }
        }
        token.cancel()
        trip.name = "Kobe"
        #expect(first == ["Nara"])
        #expect(second == ["Nara"])
        #expect(token.isCancelled)
        // With no subscriber left, writes take the fast path again.
        #expect(trip._$modelState.changeRelay == nil)
    }

    @Test func changesTheContextWritesBackAreDelivered() throws {
        let (context, trip, _) = try ModelReferenceTests.savedTrip()
        var seen: [String] = []
        let token = trip.reference(\.budget.currency).observe { seen.append($0) }
        trip.budget.currency = "EUR"
        context.rollback()
        #expect(seen == ["EUR", "JPY"])
        #expect(trip.budget.currency == "JPY")
        token.cancel()
    }

    @Test func theSequenceYieldsEachNewValueInOrder() async throws {
        let (_, trip, _) = try ModelReferenceTests.savedTrip()
        let nights = trip.reference(\.legs)[0][\.nights]
        var iterator = nights.values.makeAsyncIterator()
        nights.value = 5
        trip.legs[0].nights = 6
        trip.legs.removeAll()
        #expect(await iterator.next() == .some(5))
        #expect(await iterator.next() == .some(6))
        #expect(await iterator.next() == .some(nil))
    }

    @Test @MainActor func aWaitingIteratorResumesWithTheNextValue() async throws {
        let (_, trip, _) = try ModelReferenceTests.savedTrip()
        let currency = trip.reference(\.budget.currency)
        let started = Gate()
        let reader = Task { @MainActor in
            var iterator = currency.values.makeAsyncIterator()
            started.open()
            var received: [String] = []
            while received.count < 2, let value = await iterator.next(isolation: #isolation) { received.append(value) }
            return received
        }
        // The task runs on the main actor: when the test resumes after the
        // gate opened, the task has gone on into `next()` and waits there.
        await started.wait()
        currency.value = "EUR"
        currency.value = "USD"
        #expect(await reader.value == ["EUR", "USD"])
    }

    @Test @MainActor func cancellingTheIteratingTaskEndsTheSequence() async throws {
        let (_, trip, _) = try ModelReferenceTests.savedTrip()
        let name = trip.reference(\.name)
        let started = Gate()
        let reader = Task { @MainActor in
            var iterator = name.values.makeAsyncIterator()
            started.open()
            return await iterator.next(isolation: #isolation)
        }
        // Whether the task is waiting in `next()` or not started yet, the
        // cancellation ends the sequence.
        await started.wait()
        reader.cancel()
        #expect(await reader.value == nil)
        // The iterator was released with the task: nothing observes any more.
        trip.name = "Nara"
        #expect(trip._$modelState.changeRelay == nil)
    }
}

/// Opens once; `wait()` returns once it is open. Main-actor confined.
@MainActor
final class Gate {
    private var isOpen = false
    private var waiter: CheckedContinuation<Void, Never>?

    func open() {
        isOpen = true
        waiter?.resume()
        waiter = nil
    }

    func wait() async {
        if isOpen { return }
        await withCheckedContinuation { waiter = $0 }
    }
}
