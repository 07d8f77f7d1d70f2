import Foundation
import Testing
@testable import ModelStore

/// Focused tests for the bugs the model-based test found, each in the
/// shortest form the shrinker gave.
@Suite("Model-based findings")
struct ModelBasedRegressionTests {
    @Test("A change made to a deleted object is undone by rollback, and its saved value stays known")
    func changeOfDeletedObjectRollsBack() throws {
        let store = try TestStore()
        let container = try store.containerWithSavedTrips(1)
        let context = ModelContext(container)
        let trip = try #require(try context.fetch(FetchDescriptor<Trip>()).first)
        context.delete(trip)
        trip.destination = "Spain"
        #expect(context.committedValue(of: trip, \.destination) == "Portugal")
        context.rollback()
        #expect(trip.destination == "Portugal")
        #expect(!trip.isDeleted && !trip.hasChanges && !context.hasChanges)
    }

    @Test("An inserted object deleted again before the save leaves the relationships that hold it, in memory and in the store")
    func deletedInsertLeavesRelationships() throws {
        let store = try TestStore()
        let container = try store.graphContainer()
        let context = ModelContext(container)
        let trip = Graph.Trip(name: "Lisbon")
        let tag = Graph.Tag(name: "sea")
        context.insert(trip)
        context.insert(tag)
        tag.trips.append(trip)
        context.delete(trip)
        #expect(context.insertedModelsArray.count == 1 && context.deletedModelsArray.isEmpty)
        try context.save()
        #expect(tag.trips.isEmpty)
        #expect(!context.hasChanges)
        let stored = try #require(try ModelContext(container).fetch(FetchDescriptor<Graph.Tag>()).first)
        #expect(stored.trips.isEmpty)
    }

    @Test("An inserted object deleted again cascades at the save, to saved and new objects alike")
    func deletedInsertCascades() throws {
        let store = try TestStore()
        let container = try store.graphContainer()
        let context = ModelContext(container)
        let saved = Graph.Stop(title: "Belém")
        context.insert(saved)
        try context.save()
        let trip = Graph.Trip(name: "Lisbon")
        context.insert(trip)
        let new = Graph.Stop(title: "Alfama")
        trip.stops = [saved, new]
        context.delete(trip)
        try context.save()
        #expect(saved.isDeleted && new.isDeleted)
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Graph.Stop>()) == 0)
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Graph.Trip>()) == 0)
    }

    @Test("A cascade that reaches a new object follows that object's cascades to saved objects")
    func cascadeThroughNewObject() throws {
        let store = try TestStore()
        let container = try store.graphContainer()
        let context = ModelContext(container)
        let first = Graph.Node(label: "first"), last = Graph.Node(label: "last")
        context.insert(first)
        context.insert(last)
        try context.save()
        let middle = Graph.Node(label: "middle")
        first.next = middle
        middle.next = last
        context.delete(first)
        try context.save()
        #expect(middle.isDeleted && last.isDeleted)
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Graph.Node>()) == 0)
    }

    @Test("A new object that a cascade deletes in the same save does not block a .deny rule, as a saved one does not")
    func denyIgnoresNewObjectsDeletedByCascade() throws {
        let store = try TestStore()
        let container = try store.container(modelBasedTypes)
        let context = ModelContext(container)
        let owner = MBOwner(
            serial: 1, name: "Ann", rank: 0, score: 0, since: .now, nickname: nil, address: nil, level: .low)
        let tag = MBTag(serial: 2, label: "sea", weight: 0, level: .low)
        context.insert(owner)
        context.insert(tag)
        try context.save()
        let item = MBItem(
            serial: 3, title: "Boat", quantity: 1, price: nil, due: nil, kind: nil, box: MBAddress(street: "", number: 0))
        owner.items.append(item)
        item.tag = tag
        // The tag denies its deletion while it holds items; its only item
        // goes with the owner (cascade).
        context.delete(tag)
        context.delete(owner)
        try context.save()
        #expect(item.isDeleted)
        let reader = ModelContext(container)
        #expect(try reader.fetchCount(FetchDescriptor<MBTag>()) == 0)
        #expect(try reader.fetchCount(FetchDescriptor<MBItem>()) == 0)
        // A new item that stays still blocks.
        let kept = MBTag(serial: 4, label: "kept", weight: 0, level: .low)
        context.insert(kept)
        try context.save()
        kept.items.append(
            MBItem(serial: 5, title: "Oar", quantity: 1, price: nil, due: nil, kind: nil, box: MBAddress(street: "", number: 0)))
        context.delete(kept)
        #expect(throws: ModelStoreError.deleteDenied(object: "MBTag:2", relationship: "items", blockers: ["new MBItem"])) {
            try context.save()
        }
    }
}
