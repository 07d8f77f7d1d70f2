import Foundation
import Testing
@testable import ModelStore

@Suite("Per-object state: pending lists, committed values, links")
struct OrderedModelsTests {
    @Test func changedObjectsKeepTheirCommittedValueThroughRemovalsAndCompaction() {
        var list = OrderedModels(.changed)
        let trips = (0..<40).map { makeTrip("T\($0)") }
        for (index, trip) in trips.enumerated() {
            list.append(trip, state: trip._$modelState, committed: CommittedValue(ordinal: 1, value: "was \(index)"))
        }
        // Removing more than half compacts the list: positions move, and each
        // object must keep its own value.
        for trip in trips[..<30] { list.remove(trip) }
        #expect(list.count == 10)
        for (index, trip) in trips.enumerated() {
            let committed = list.committedValue(of: trip, state: trip._$modelState)
            if index < 30 {
                #expect(committed == nil)
            } else {
                #expect(committed?.ordinal == 1)
                #expect(committed?.value as? String == "was \(index)")
            }
        }
        // Appending again replaces the value in place.
        list.append(trips[35], state: trips[35]._$modelState, committed: CommittedValue(ordinal: 2, value: 7))
        #expect(list.count == 10)
        #expect(list.committedValue(of: trips[35], state: trips[35]._$modelState)?.ordinal == 2)
        // An object changed without a row has no committed value.
        let unsaved = makeTrip("U")
        list.append(unsaved, state: unsaved._$modelState, committed: .none)
        #expect(list.committedValue(of: unsaved, state: unsaved._$modelState) == nil)
        list.removeAll()
        #expect(list.committedValue(of: trips[35], state: trips[35]._$modelState) == nil)
    }

    @Test func objectsLeavingTheirContextKeepTheirEntityAndIdentifier() throws {
        let store = try TestStore()
        let container = try store.container()
        let context = ModelContext(container)
        let kept = makeTrip("Kept")
        let deleted = makeTrip("Deleted")
        context.insert(kept)
        context.insert(deleted)
        try context.save()
        let deletedID = deleted.persistentModelID
        context.delete(deleted)
        try context.save()
        // The deleted object left the context and still names its row.
        #expect(deleted.modelContext == nil)
        #expect(deleted.persistentModelID == deletedID)
        #expect(deleted.persistentModelID.entityName == "Trip")
        // Objects of two entities in one context each keep their own entity,
        // inserted and fetched alike.
        let note = Note(text: "n")
        context.insert(note)
        try context.save()
        #expect(note.modelContext === context)
        #expect(kept.modelContext === context)
        #expect(note.persistentModelID.entityName == "Note")
        let reader = ModelContext(container)
        let fetchedNote = try #require(try reader.fetch(FetchDescriptor<Note>()).first)
        let fetchedTrip = try #require(try reader.fetch(FetchDescriptor<Trip>()).first)
        #expect(fetchedNote.persistentModelID == note.persistentModelID)
        #expect(fetchedTrip.persistentModelID == kept.persistentModelID)
        #expect(fetchedNote.modelContext === reader && fetchedTrip.modelContext === reader)
    }
}
