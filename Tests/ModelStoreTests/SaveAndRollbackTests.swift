import Foundation
import Testing
@testable import ModelStore

@Suite("Save, rollback and transactions")
struct SaveAndRollbackTests {
    @Test func rollbackRestoresInsertsChangesAndDeletes() throws {
        let store = try TestStore()
        let container = try store.container()
        let writer = ModelContext(container)
        writer.insert(makeTrip("Kept"))
        writer.insert(makeTrip("Deleted"))
        try writer.save()

        let context = ModelContext(container)
        let trips = try context.fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)]))
        let (deleted, kept) = (trips[0], trips[1])
        kept.destination = "Spain"
        kept.tags.append("x")
        context.delete(deleted)
        let inserted = makeTrip("Inserted")
        context.insert(inserted)
        #expect(deleted.isDeleted)
        #expect(context.deletedModelsArray.count == 1)
        #expect(context.insertedModelsArray.count == 1)

        context.rollback()
        #expect(!context.hasChanges)
        #expect(kept.destination == "Portugal")
        #expect(kept.tags == [])
        #expect(context.changedKeyPaths(of: kept).isEmpty)
        #expect(!deleted.isDeleted)
        #expect(inserted.modelContext == nil)
        #expect(try context.fetch(FetchDescriptor<Trip>()).count == 2)
        try context.save()
        let names = try ModelContext(container).fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)])).map(\.name)
        #expect(names == ["Deleted", "Kept"])
    }

    @Test func rollbackNotifiesObservers() throws {
        let store = try TestStore()
        let context = ModelContext(try store.container())
        let trip = makeTrip()
        context.insert(trip)
        try context.save()
        trip.destination = "Spain"
        let fired = Flag()
        withObservationTracking { _ = trip.destination } onChange: { fired.set() }
        context.rollback()
        #expect(fired.value)
        #expect(trip.destination == "Portugal")
    }

    /// A save that fails at its second statement must leave the file and
    /// the context exactly as they were, and succeed once the cause is fixed.
    @Test(arguments: StoreKind.allCases)
    func failedSaveChangesNothing(kind: StoreKind) throws {
        let store = try TestStore(kind)
        let container = try store.container()
        let context = ModelContext(container)
        let lisbon = makeTrip("Lisbon")
        let porto = makeTrip("Porto")
        context.insert(lisbon)
        context.insert(porto)
        try context.save()

        let madrid = makeTrip("Madrid")
        context.insert(madrid)
        lisbon.destination = "Elsewhere"
        porto.name = "Lisbon"  // violates the unique constraint on update
        let temporaryID = madrid.persistentModelID
        #expect {
            try context.save()
        } throws: { error in
            guard case ModelStoreError.saveFailed(let entity, let row, let underlying) = error else { return false }
            return entity == "Trip" && row == porto.persistentModelID.rowID
                && underlying.primaryCode == SQLiteError.constraint
        }
        // The file is unchanged.
        let fresh = try ModelContext(container).fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)]))
        #expect(fresh.map(\.name) == ["Lisbon", "Porto"])
        #expect(fresh.map(\.destination) == ["Portugal", "Portugal"])
        // The context still holds every pending change.
        #expect(madrid.persistentModelID == temporaryID)
        #expect(madrid.persistentModelID.isTemporary)
        #expect(context.insertedModelsArray.count == 1)
        #expect(context.changedKeyPaths(of: lisbon) == [\Trip.destination])
        #expect(context.changedKeyPaths(of: porto) == [\Trip.name])
        #expect(context.committedValue(of: porto, \.name) == "Porto")
        // Fix the cause and save again.
        porto.name = "Porto"
        try context.save()
        let saved = try ModelContext(container).fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)]))
        #expect(saved.map(\.name) == ["Lisbon", "Madrid", "Porto"])
        #expect(saved.first?.destination == "Elsewhere")
        #expect(!madrid.persistentModelID.isTemporary)
    }

    @Test func uniqueInsertUpdatesTheExistingRow() throws {
        let store = try TestStore()
        let container = try store.container()
        let context = ModelContext(container)
        let original = makeTrip("Lisbon")
        context.insert(original)
        try context.save()
        let originalID = original.persistentModelID

        let duplicate = makeTrip("Lisbon", destination: "Still Portugal")
        duplicate.tags = ["new"]
        context.insert(duplicate)
        try context.save()

        // One row, one object: the registered object took the new values.
        let trips = try context.fetch(FetchDescriptor<Trip>())
        #expect(trips.count == 1)
        #expect(trips.first === original)
        #expect(original.destination == "Still Portugal")
        #expect(original.tags == ["new"])
        #expect(duplicate.persistentModelID == originalID)
        #expect(duplicate.modelContext == nil)
        #expect(!context.hasChanges)

        let reloaded = try ModelContext(container).fetch(FetchDescriptor<Trip>())
        #expect(reloaded.count == 1)
        #expect(reloaded.first?.destination == "Still Portugal")
        #expect(reloaded.first?.persistentModelID == originalID)
    }

    @Test func uniqueInsertIntoAnUnregisteredRowAdoptsIt() throws {
        let store = try TestStore()
        let container = try store.container()
        let writer = ModelContext(container)
        let saved = makeTrip("Lisbon")
        writer.insert(saved)
        try writer.save()
        let rowID = saved.persistentModelID

        let context = ModelContext(container)
        let duplicate = makeTrip("Lisbon", destination: "Updated")
        context.insert(duplicate)
        try context.save()
        #expect(duplicate.persistentModelID == rowID)
        #expect(try context.fetch(FetchDescriptor<Trip>()).first === duplicate)
    }

    @Test func upsertOntoAnObjectWithUnsavedChangesKeepsMemoryAndFileInStep() throws {
        let store = try TestStore()
        let container = try store.container()
        let context = ModelContext(container)
        let original = makeTrip("Lisbon")
        context.insert(original)
        try context.save()
        original.notes = "dirty"
        let duplicate = makeTrip("Lisbon")
        duplicate.notes = "from upsert"
        context.insert(duplicate)
        try context.save()
        let onDisk = try #require(try ModelContext(container).fetch(FetchDescriptor<Trip>()).first)
        #expect(original.notes == onDisk.notes)
        #expect(onDisk.notes == "from upsert")
    }

    @Test func deleteOrRenameThenInsertTheSameUniqueValueMakesANewRow() throws {
        let store = try TestStore()
        let container = try store.container()
        let context = ModelContext(container)
        let deleted = makeTrip("Lisbon")
        let renamed = makeTrip("Porto")
        context.insert(deleted)
        context.insert(renamed)
        try context.save()

        context.delete(deleted)
        let newLisbon = makeTrip("Lisbon", destination: "New")
        context.insert(newLisbon)
        renamed.name = "Oporto"
        let newPorto = makeTrip("Porto", destination: "New")
        context.insert(newPorto)
        try context.save()

        #expect(newLisbon.persistentModelID != deleted.persistentModelID)
        #expect(newLisbon.modelContext === context)
        #expect(newPorto.persistentModelID != renamed.persistentModelID)
        let names = try ModelContext(container).fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)])).map {
            "\($0.name)/\($0.destination)"
        }
        #expect(names == ["Lisbon/New", "Oporto/Portugal", "Porto/New"])
    }

    @Test func deleteRemovesTheRow() throws {
        let store = try TestStore()
        let container = try store.container()
        let context = ModelContext(container)
        let trip = makeTrip()
        context.insert(trip)
        try context.save()
        context.delete(trip)
        #expect(try context.fetch(FetchDescriptor<Trip>()).isEmpty, "pending deletes are excluded from fetches")
        #expect(try context.fetchCount(FetchDescriptor<Trip>()) == 0)
        try context.save()
        #expect(trip.isDeleted)
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Trip>()) == 0)
    }

    @Test func deletingAnUnsavedObjectForgetsIt() throws {
        let store = try TestStore()
        let context = ModelContext(try store.container())
        let trip = makeTrip()
        context.insert(trip)
        context.delete(trip)
        #expect(!context.hasChanges)
        #expect(trip.modelContext == nil)
    }

    @Test func transactionSavesOrRollsBack() throws {
        let store = try TestStore()
        let container = try store.container()
        let context = ModelContext(container)
        try context.transaction {
            context.insert(makeTrip("A"))
        }
        #expect(!context.hasChanges)
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Trip>()) == 1)

        struct Abort: Error {}
        #expect(throws: Abort.self) {
            try context.transaction {
                context.insert(makeTrip("B"))
                throw Abort()
            }
        }
        #expect(!context.hasChanges)
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Trip>()) == 1)
    }

    @Test func modelNotInTheSchemaFailsAtSave() throws {
        let store = try TestStore()
        let context = ModelContext(try store.container([Trip.self]))
        context.insert(Note(text: "n"))
        #expect(throws: ModelStoreError.entityNotInSchema(entity: "Note")) {
            try context.save()
        }
        #expect(throws: ModelStoreError.entityNotInSchema(entity: "Note")) {
            try context.fetch(FetchDescriptor<Note>())
        }
    }

    @Test @MainActor func mainContextAutosaves() async throws {
        let store = try TestStore()
        let container = try store.container()
        let context = container.mainContext
        #expect(context === container.mainContext)
        #expect(context.autosaveEnabled)
        context.insert(makeTrip())
        #expect(context.hasChanges)
        // The autosave runs on the main actor's next turn.
        for _ in 0..<100 where context.hasChanges { await Task.yield() }
        #expect(!context.hasChanges)
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Trip>()) == 1)
    }
}
