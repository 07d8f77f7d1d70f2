import Foundation
import Testing
@testable import ModelStore

/// Queries of a subclass that name the properties it inherits.
@Suite("Class inheritance: queries")
struct InheritanceQueryTests {
    @Test("A subclass's table holds its inherited properties' key paths rooted at the subclass")
    func inheritedKeyPathsAreRootedAtTheSubclass() {
        #expect(Car._$persistentProperties[0].keyPath == \Car.name as AnyKeyPath)
        #expect(Sedan._$persistentProperties[3].keyPath == \Sedan.doors as AnyKeyPath)
        #expect(Vehicle._$persistentProperties[0].keyPath == \Vehicle.name as AnyKeyPath)
    }

    @Test("A subclass fetch filters and sorts by inherited properties", arguments: StoreKind.backends)
    func predicateAndSortOnInheritedProperties(kind: StoreKind) throws {
        let store = try TestStore(kind)
        let container = try ModelContainer(
            for: Schema([Vehicle.self, Car.self, Sedan.self, Motorcycle.self, Garage.self]),
            configurations: store.configuration)
        let context = ModelContext(container)
        context.insert(Car(name: "Golf", doors: 4))
        context.insert(Car(name: "Beetle", doors: 2))
        context.insert(Sedan(name: "Passat", trunkLitres: 500))
        context.insert(Motorcycle(name: "Golf", displacement: 125))
        try context.save()

        let fresh = ModelContext(container)
        let named = try fresh.fetch(FetchDescriptor<Car>(predicate: #Predicate { $0.name == "Golf" }))
        #expect(named.map(\.name) == ["Golf"])
        #expect(named.allSatisfy { type(of: $0) == Car.self })
        let sorted = try fresh.fetch(FetchDescriptor<Car>(sortBy: [SortDescriptor(\.name, order: .reverse)]))
        #expect(sorted.map(\.name) == ["Passat", "Golf", "Beetle"])
        let sedans = try fresh.fetch(
            FetchDescriptor<Sedan>(predicate: #Predicate { $0.doors == 4 && $0.year == 2000 }, sortBy: [SortDescriptor(\.name)]))
        #expect(sedans.map(\.name) == ["Passat"])
    }

    @Test("fetchIdentifiers of a base class names each row's own entity, equal to its object's persistentModelID", arguments: StoreKind.backends)
    func identifiersNameTheRowsOwnEntity(kind: StoreKind) throws {
        let store = try TestStore(kind)
        let container = try ModelContainer(
            for: Schema([Vehicle.self, Car.self, Sedan.self, Motorcycle.self, Garage.self]),
            configurations: store.configuration)
        let context = ModelContext(container)
        context.insert(Vehicle(name: "Cart"))
        context.insert(Car(name: "Golf", doors: 4))
        context.insert(Sedan(name: "Passat", trunkLitres: 500))
        context.insert(Motorcycle(name: "Vespa", displacement: 125))
        try context.save()

        let fresh = ModelContext(container)
        let descriptor = FetchDescriptor<Vehicle>(sortBy: [SortDescriptor(\.name)])
        let objects = try fresh.fetch(descriptor)
        // Sorted by name: Cart, Golf, Passat, Vespa.
        #expect(objects.map(\.persistentModelID.entityName) == ["Vehicle", "Car", "Sedan", "Motorcycle"])
        #expect(try fresh.fetchIdentifiers(descriptor) == objects.map(\.persistentModelID))
        #expect(Array(try fresh.fetchIdentifiers(descriptor, batchSize: 2)) == objects.map(\.persistentModelID))
        let cars = try fresh.fetch(FetchDescriptor<Car>(sortBy: [SortDescriptor(\.name)]))
        #expect(try fresh.fetchIdentifiers(FetchDescriptor<Car>(sortBy: [SortDescriptor(\.name)])) == cars.map(\.persistentModelID))
    }
}
