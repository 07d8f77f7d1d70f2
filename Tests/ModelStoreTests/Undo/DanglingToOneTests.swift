import Foundation
import Testing
@testable import ModelStore

/// Deleting an object that a to-one without inverse points to, when the
/// relationship leads to a superclass of the deleted object's class: the
/// save clears the reference (in the store and in memory), as for a
/// relationship to the class itself, and undoing the delete restores it.
@Suite("Deleting what a to-one without inverse to a superclass points to")
struct DanglingToOneTests {
    /// A SQLite file, or PostgreSQL in the PostgreSQL pass of the suites.
    private func container(_ store: TestStore) throws -> ModelContainer {
        try ModelContainer(
            for: Schema([Vehicle.self, Car.self, Sedan.self, Motorcycle.self, Garage.self]),
            configurations: store.configuration)
    }

    @Test func aToOneToASuperclassIsClearedInTheStoreAndInMemory() throws {
        let store = try TestStore(.file)
        let container = try container(store)
        let context = ModelContext(container)
        let garage = Garage(name: "Bikes")
        let ducati = Motorcycle(name: "Ducati", displacement: 900)
        context.insert(garage)
        context.insert(ducati)
        garage.favourite = ducati
        try context.save()

        context.delete(ducati)
        try context.save()
        #expect(garage.favourite == nil)
        let stored = try #require(try ModelContext(container).fetch(FetchDescriptor<Garage>()).first)
        #expect(stored.favourite == nil)
    }

    @Test func aToOneToASuperclassNotLoadedIsClearedInTheStore() throws {
        let store = try TestStore(.file)
        let container = try container(store)
        do {
            let context = ModelContext(container)
            let garage = Garage(name: "Bikes")
            let ducati = Motorcycle(name: "Ducati", displacement: 900)
            context.insert(garage)
            context.insert(ducati)
            garage.favourite = ducati
            try context.save()
        }
        let context = ModelContext(container)
        let ducati = try #require(try context.fetch(FetchDescriptor<Motorcycle>()).first)
        context.delete(ducati)
        try context.save()
        let stored = try #require(try ModelContext(container).fetch(FetchDescriptor<Garage>()).first)
        #expect(stored.favourite == nil)
    }

    @Test func undoingTheDeleteRestoresTheReference() throws {
        let store = try TestStore(.file)
        let container = try container(store)
        let context = ModelContext(container)
        let garage = Garage(name: "Bikes")
        let ducati = Motorcycle(name: "Ducati", displacement: 900)
        context.insert(garage)
        context.insert(ducati)
        garage.favourite = ducati
        try context.save()
        let undoManager = UndoManager()
        undoManager.groupsByEvent = false
        context.undoManager = undoManager

        undoManager.beginUndoGrouping()
        context.delete(ducati)
        undoManager.endUndoGrouping()
        try context.save()
        #expect(garage.favourite == nil)

        undoManager.undo()
        #expect(garage.favourite === ducati)
        try context.save()
        let stored = try #require(try ModelContext(container).fetch(FetchDescriptor<Garage>()).first)
        #expect(stored.favourite?.name == "Ducati")
        #expect(stored.favourite is Motorcycle)
    }
}
