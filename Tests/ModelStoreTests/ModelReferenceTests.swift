import Foundation
import Observation
import Synchronization
import Testing
@testable import ModelStore

@Suite("Model references: reads, writes, narrowing")
struct ModelReferenceTests {
    /// A context holding one saved, clean trip with a budget, tags and legs.
    static func savedTrip() throws -> (ModelContext, PlannedTrip, TestStore) {
        let store = try TestStore()
        let container = try store.container([PlannedTrip.self])
        let writer = ModelContext(container)
        let trip = PlannedTrip(name: "Kyoto")
        trip.budget = TripBudget(amount: 800, currency: "JPY")
        trip.tags = ["temples", "food", "rail"]
        trip.legs = [TripLeg(city: "Osaka", nights: 2), TripLeg(city: "Kyoto", nights: 3)]
        writer.insert(trip)
        try writer.save()
        let context = ModelContext(container)
        let fetched = try #require(try context.fetch(FetchDescriptor<PlannedTrip>()).first)
        return (context, fetched, store)
    }

    @Test func aNestedKeyPathReadsAndWritesThroughTheModelDirtyingOnlyItsProperty() throws {
        let (context, trip, store) = try Self.savedTrip()
        let amount = trip.reference(\.budget.amount)
        #expect(amount.value == 800)
        amount.value = 1_200
        #expect(trip.budget == TripBudget(amount: 1_200, currency: "JPY"))
        #expect(context.changedKeyPaths(of: trip) == [\PlannedTrip.budget])
        #expect(context.changedPropertyNames(of: trip) == ["budget"])
        #expect(context.committedValue(of: trip, \.budget) == TripBudget(amount: 800, currency: "JPY"))
        try context.save()
        let reread = try #require(try ModelContext(store.container([PlannedTrip.self])).fetch(FetchDescriptor<PlannedTrip>()).first)
        #expect(reread.budget.amount == 1_200)
    }

    @Test func narrowingByKeyPathReachesTheSameValue() throws {
        let (context, trip, _) = try Self.savedTrip()
        let budget = trip.reference(\.budget)
        let currency = budget[\.currency]
        #expect(currency.value == "JPY")
        #expect("\(currency)" == "ModelReference(PlannedTrip.budget.currency)")
        currency.value = "EUR"
        #expect(trip.budget.currency == "EUR")
        #expect(budget.value == TripBudget(amount: 800, currency: "EUR"))
        #expect(context.changedKeyPaths(of: trip) == [\PlannedTrip.budget])
        #expect(trip.reference(\.budget.currency).value == "EUR")
    }

    @Test func writingAnEqualValueChangesNothing() throws {
        let (context, trip, _) = try Self.savedTrip()
        trip.reference(\.budget.amount).value = 800
        trip.reference(\.budget)[\.currency].value = "JPY"
        trip.reference(\.tags)[1].value = "food"
        trip.reference(\.legs)[0][\.nights].value = 2
        #expect(context.changedKeyPaths(of: trip).isEmpty)
        #expect(!context.hasChanges)
    }

    @Test func anArrayElementReadsAndWritesThroughTheArray() throws {
        let (context, trip, _) = try Self.savedTrip()
        let third = trip.reference(\.tags)[2]
        #expect(third.value == "rail")
        #expect("\(third)" == "ModelReference(PlannedTrip.tags[2])")
        third.value = "onsen"
        #expect(trip.tags == ["temples", "food", "onsen"])
        #expect(context.changedKeyPaths(of: trip) == [\PlannedTrip.tags])
    }

    @Test func anElementOutOfRangeReadsNilAndAWriteToItWritesNothing() throws {
        let (context, trip, _) = try Self.savedTrip()
        let third = trip.reference(\.tags)[2]
        trip.tags = ["temples"]
        try context.save()
        #expect(third.value == nil)
        third.value = "onsen"
        third.value = nil
        #expect(trip.tags == ["temples"])
        #expect(!context.hasChanges)
        #expect(throws: ModelReferenceError.elementOutOfRange(entity: "PlannedTrip", path: "PlannedTrip.tags[2]")) {
            try third.set("onsen")
        }
        trip.tags = ["a", "b", "c"]
        #expect(third.value == "c")
        try third.set("d")
        #expect(trip.tags == ["a", "b", "d"])
    }

    @Test func aFieldOfAnArrayElementNarrowsThroughTheOptionalElement() throws {
        let (context, trip, _) = try Self.savedTrip()
        let nights = trip.reference(\.legs)[1][\.nights]
        #expect(nights.value == 3)
        #expect("\(nights)" == "ModelReference(PlannedTrip.legs[1].nights)")
        nights.value = 4
        #expect(trip.legs == [TripLeg(city: "Osaka", nights: 2), TripLeg(city: "Kyoto", nights: 4)])
        #expect(context.changedKeyPaths(of: trip) == [\PlannedTrip.legs])
        trip.legs.removeLast()
        #expect(nights.value == nil)
        #expect(throws: ModelReferenceError.self) { try nights.set(5) }
        #expect(trip.legs == [TripLeg(city: "Osaka", nights: 2)])
    }

    @Test func aWriteThroughAReferenceIsSeenByObservationAndObjectWillChange() throws {
        let (_, trip, _) = try Self.savedTrip()
        let observed = ObservedFlag()
        withObservationTracking {
            _ = trip.budget
        } onChange: {
            observed.set()
        }
        var events: [AnyKeyPath] = []
        let subscription = trip.objectWillChange.sink { events.append($0.keyPath) }
        trip.reference(\.budget)[\.amount].value = 5
        trip.reference(\.budget.currency).value = "USD"
        #expect(observed.isSet)
        #expect(events == [\PlannedTrip.budget, \PlannedTrip.budget])
        subscription.cancel()
    }

    @Test func aReferenceOnADeletedObjectFollowsTheObject() throws {
        let (context, trip, _) = try Self.savedTrip()
        let amount = trip.reference(\.budget.amount)
        context.delete(trip)
        #expect(amount.value == 800)
        try context.save()
        // The deletion is saved: the object keeps its values in memory and
        // belongs to no context, so a write changes only the object.
        #expect(amount.value == 800)
        amount.value = 900
        #expect(trip.budget.amount == 900)
        #expect(!trip.hasChanges)
        #expect(!context.hasChanges)
    }

    @Test func aReferenceOutlivesTheContextAsTheObjectDoes() throws {
        let store = try TestStore()
        let container = try store.container([PlannedTrip.self])
        let writer = ModelContext(container)
        let saved = PlannedTrip(name: "Porto")
        saved.tags = ["wine"]
        writer.insert(saved)
        try writer.save()
        func firstTag() throws -> ModelReference<PlannedTrip, String?> {
            let trip = try #require(try ModelContext(container).fetch(FetchDescriptor<PlannedTrip>()).first)
            return trip.reference(\.tags)[0]
        }
        let tag = try firstTag()
        #expect(tag.model.modelContext == nil)
        #expect(tag.value == "wine")
        var seen: [String?] = []
        let token = tag.observe { seen.append($0) }
        tag.value = "port"
        #expect(seen == ["port"])
        #expect(!tag.model.hasChanges)
        let stored = try #require(try ModelContext(container).fetch(FetchDescriptor<PlannedTrip>()).first)
        #expect(stored.tags == ["wine"])
        token.cancel()
    }
}

/// Set by an Observation `onChange`, which must be `Sendable`.
final class ObservedFlag: Sendable {
    private let flag = Atomic<Bool>(false)
    var isSet: Bool { flag.load(ordering: .relaxed) }
    func set() { flag.store(true, ordering: .relaxed) }
}
