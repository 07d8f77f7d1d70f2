import Foundation
import Testing
@testable import ModelStore

@Suite("The identity map's row registry")
struct RowRegistryTests {
    /// Keys that collide in a small table (multiples of a power of two share
    /// their low bits; the multiplicative hash keeps the high ones) mixed
    /// with dense and negative keys, so that probe runs wrap and cross.
    private static let keys: [Int64] =
        Array(1...300) + (1...200).map { Int64($0) << 20 } + (1...100).map { 4096 + Int64($0) * 8 } + [-1, -5, .min, .max]

    @Test func findsEveryRegisteredObjectAfterGrowing() {
        let registry = RowRegistry(modelType: Trip.self)
        let trips = Self.keys.map { _ in makeTrip() }
        for (key, trip) in zip(Self.keys, trips) { registry.register(trip, rowID: key) }
        #expect(registry.count == Self.keys.count)
        for (key, trip) in zip(Self.keys, trips) {
            #expect(registry[key] === trip, "key \(key)")
        }
        #expect(registry[0] == nil)
        #expect(registry[301] == nil)
        #expect(Set(registry.models.map(ObjectIdentifier.init)) == Set(trips.map(ObjectIdentifier.init)))
    }

    @Test("Reserving sizes the table in groups of eight, not powers of two, and a full reserved table finds every key")
    func reservedTableOfAnySize() {
        let registry = RowRegistry(modelType: Trip.self)
        registry.reserveCapacity(100_000)
        #expect(registry.slotCount == 133_336)
        let small = RowRegistry(modelType: Trip.self)
        small.reserveCapacity(Self.keys.count)
        let slots = small.slotCount
        #expect(slots % 8 == 0 && slots * 3 >= Self.keys.count * 4 && slots < Self.keys.count * 2)
        let trips = Self.keys.map { _ in makeTrip() }
        for (key, trip) in zip(Self.keys, trips) { small.register(trip, rowID: key) }
        #expect(small.slotCount == slots, "the reserved table did not grow")
        for (key, trip) in zip(Self.keys, trips) {
            #expect(small[key] === trip, "key \(key)")
        }
        #expect(small[0] == nil)
    }

    @Test func aRegistryWithoutAKnownTypeStillReturnsItsObjects() {
        let registry = RowRegistry(modelType: nil)
        let trip = makeTrip()
        registry.register(trip, rowID: 1)
        #expect(registry[1] === trip)
        #expect(registry.models.count == 1)
    }

    @Test func removingKeepsTheRestOfEveryProbeRunReachable() {
        let registry = RowRegistry(modelType: Trip.self)
        let trips = Self.keys.map { _ in makeTrip() }
        for (key, trip) in zip(Self.keys, trips) { registry.register(trip, rowID: key) }
        // Remove every other key, then check that all the others are found.
        for key in Self.keys.enumerated().filter({ $0.offset % 2 == 0 }).map(\.element) { registry.remove(key) }
        for (offset, (key, trip)) in zip(Self.keys, trips).enumerated() {
            if offset % 2 == 0 {
                #expect(registry[key] == nil, "removed key \(key)")
            } else {
                #expect(registry[key] === trip, "kept key \(key)")
            }
        }
        #expect(registry.count == Self.keys.count / 2)
    }

    @Test func removedSlotsAreReusedAndTheTableStaysConsistentThroughChurn() {
        let registry = RowRegistry(modelType: Trip.self)
        var live: [Int64: Trip] = [:]
        // Rounds of registering new keys and removing old ones leave
        // tombstones across probe runs; each round checks every key.
        var next: Int64 = 1
        for round in 0..<6 {
            for _ in 0..<400 {
                let trip = makeTrip()
                registry.register(trip, rowID: next)
                live[next] = trip
                next += round % 2 == 0 ? 1 : 8
            }
            for key in live.keys.sorted().enumerated().filter({ $0.offset % 3 != 0 }).map(\.element) {
                registry.remove(key)
                live[key] = nil
            }
            #expect(registry.count == live.count)
            for key in 1..<next {
                #expect(registry[key] === live[key], "round \(round), key \(key)")
            }
        }
        for key in live.keys { registry.remove(key) }
        #expect(registry.count == 0)
        let trip = makeTrip()
        registry.register(trip, rowID: 1)
        #expect(registry[1] === trip)
        #expect(registry.count == 1)
    }

    @Test func removalOnFreeingKeepsANewerLiveObjectsEntry() throws {
        let registry = RowRegistry(modelType: Trip.self)
        var older: Trip? = makeTrip("older")
        let newer = makeTrip("newer")
        registry.register(try #require(older), rowID: 7)
        // Another object takes the row while the first is still alive; when
        // the first one is freed, the newer entry must stay.
        registry.register(newer, rowID: 7)
        older = nil
        registry.removeIfFreed(7)
        #expect(registry[7] === newer)
        #expect(registry.count == 1)
        // A live object's entry is not removed by the check either.
        registry.removeIfFreed(7)
        #expect(registry[7] === newer)
        withExtendedLifetime(older) {}
    }

    @Test func anEntryWhoseObjectIsFreedIsRemoved() throws {
        let registry = RowRegistry(modelType: Trip.self)
        var trip: Trip? = makeTrip()
        registry.register(try #require(trip), rowID: 3)
        trip = nil
        // The registry has no owner here, so nothing removed the entry when
        // the object went; it reads as absent, and the check removes it.
        #expect(registry[3] == nil)
        registry.removeIfFreed(3)
        #expect(registry.count == 0)
        withExtendedLifetime(trip) {}
    }

    @Test func aFreedObjectLeavesItsContextsRegistryAndAnotherTakesTheRow() throws {
        let store = try TestStore()
        let container = try store.containerWithSavedTrips(3)
        let context = ModelContext(container)
        let table = try context.table(for: Trip.self)
        var kept = try context.fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)]))
        let freedRow = try #require(kept.last?._$modelState.rowID)
        kept.removeLast()
        #expect(context.registry(for: table).count == 2)
        #expect(context.registry(for: table)[freedRow] == nil)
        let again = try context.fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)]))
        #expect(again.prefix(2).elementsEqual(kept, by: ===))
        #expect(context.registry(for: table)[freedRow] === again.last)
    }
}
