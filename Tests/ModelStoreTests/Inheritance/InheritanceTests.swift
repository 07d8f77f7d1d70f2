import Foundation
import Observation
import Testing
@testable import ModelStore

@Suite("Class inheritance")
struct InheritanceTests {
    @Test("A subclass's properties follow its superclass's, in one ordinal space per hierarchy branch")
    func propertyTables() {
        #expect(Vehicle._$persistentProperties.map(\.name) == ["name", "year", "garage"])
        #expect(Car._$persistentProperties.map(\.name) == ["name", "year", "garage", "doors", "plate"])
        #expect(Car._$persistentProperties.map(\.ordinal) == [0, 1, 2, 3, 4])
        #expect(Sedan._$persistentProperties.map(\.name) == ["name", "year", "garage", "doors", "plate", "trunkLitres"])
        #expect(Sedan._$persistentProperties.map(\.ordinal) == [0, 1, 2, 3, 4, 5])
        // A sibling reuses the ordinals after the shared superclass.
        #expect(Motorcycle._$persistentProperties.map(\.ordinal) == [0, 1, 2, 3])
        // Through the protocol, with the static type a superclass's metatype.
        let type: any PersistentModel.Type = Sedan.self
        #expect(type._$persistentProperties.count == 6)
        #expect(type.entityName == "Sedan")
    }

    @Test("The library keeps one property table per class, a subclass's its own, found by key path")
    func keptPropertyTables() throws {
        func storage(_ table: [PropertyMetadata]) -> UnsafeRawPointer? {
            table.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) }
        }
        // Kept: the same array, not a new one built by the generated code
        // (both alive at once, so that two built ones could not share memory).
        let first = PropertyTable.of(Car.self)
        let second = PropertyTable.of(Car.self)
        #expect(storage(first) == storage(second))
        let vehicle: any PersistentModel.Type = Vehicle.self
        let sedan: any PersistentModel.Type = Sedan.self
        #expect(PropertyTable.of(vehicle).map(\.name) == Vehicle._$persistentProperties.map(\.name))
        #expect(PropertyTable.of(sedan).map(\.name) == Sedan._$persistentProperties.map(\.name))
        // A subclass's key path to an inherited property is its own key path.
        #expect(PropertyTable.property(of: sedan, keyPath: \Sedan.name)?.ordinal == 0)
        #expect(PropertyTable.property(of: sedan, keyPath: \Sedan.trunkLitres)?.ordinal == 5)
        #expect(PropertyTable.property(of: vehicle, keyPath: \Sedan.trunkLitres) == nil)
    }

    @Test("Inherited and own properties of a subclass object read, write and notify observers")
    func subclassObjectIsTracked() {
        let car = Car(name: "Beetle", doors: 2)
        #expect(car.name == "Beetle" && car.doors == 2 && car.year == 2000 && car.plate == nil)
        let doorsChanged = Flag()
        let nameChanged = Flag()
        withObservationTracking { _ = car.doors } onChange: { doorsChanged.set() }
        withObservationTracking { _ = car.name } onChange: { nameChanged.set() }
        car.doors += 2
        car.name = "Golf"
        #expect(car.doors == 4 && car.name == "Golf")
        #expect(doorsChanged.value)
        #expect(nameChanged.value)
        let sedan: Vehicle = Sedan(name: "Passat", trunkLitres: 500)
        #expect((sedan as? Car)?.doors == 4)
        #expect((sedan as? Sedan)?.trunkLitres == 500)
    }

    @Test("A subclass's entity names its superentity, and the schema brings the superclass in first")
    func schemaHierarchy() throws {
        let schema = Schema([Sedan.self, Motorcycle.self])
        #expect(schema.entities.map(\.name) == ["Vehicle", "Car", "Sedan", "Motorcycle", "Garage"])
        let car = try #require(schema.entity(named: "Car"))
        let vehicle = try #require(schema.entity(named: "Vehicle"))
        #expect(car.superentityName == "Vehicle")
        #expect(vehicle.superentityName == nil)
        #expect(schema.superentity(of: car) == vehicle)
        #expect(schema.subentities(of: vehicle).map(\.name) == ["Car", "Motorcycle"])
        #expect(schema.entityWithSubentities(car).map(\.name) == ["Car", "Sedan"])
        // A subentity holds the inherited attributes first, as Core Data's does.
        #expect(car.attributes.map(\.name) == ["name", "year", "doors", "plate"])
        try schema.validate()
    }

    @Test("The schema record keeps the superentity, and a root entity's record is unchanged")
    func recordKeepsHierarchy() throws {
        let schema = Schema([Car.self])
        let data = try schema.recordData()
        let read = try Schema(recordData: data)
        #expect(read.entity(named: "Car")?.superentityName == "Vehicle")
        #expect(read == schema)
        let root = try #require(String(data: try Schema([Vehicle.self]).recordData(), encoding: .utf8))
        #expect(!root.contains("superentityName"))
        #expect(Schema([Vehicle.self]).fingerprint != Schema([Car.self]).fingerprint)
    }

    @Test("A superentity missing from the schema, or one that does not match, is refused")
    func invalidHierarchies() throws {
        var schema = Schema([Car.self])
        schema.entities.removeAll { $0.name == "Vehicle" }
        #expect {
            try schema.validate()
        } throws: { error in
            "\(error)".contains("Car inherits from Vehicle, which is not in the schema")
        }
        var mismatched = Schema([Car.self])
        mismatched.entities[1].attributes.removeFirst()
        #expect {
            try mismatched.validate()
        } throws: { error in
            "\(error)".contains("Car does not start with the properties of its superentity Vehicle")
        }
    }
}

@Suite("Class inheritance: predicates")
struct InheritancePredicateTests {
    @Test("Foundation's #Predicate accepts `is` and `as?` on @Model subclasses, and evaluates them in memory")
    func typeCheckAndCastPredicates() throws {
        let car: Vehicle = Car(name: "Golf", doors: 4)
        let motorcycle: Vehicle = Motorcycle(name: "Vespa", displacement: 125)
        let isCar = #Predicate<Vehicle> { $0 is Car }
        #expect(try isCar.evaluate(car))
        #expect(try !isCar.evaluate(motorcycle))
        let fourDoors = #Predicate<Vehicle> { vehicle in
            if let car = vehicle as? Car {
                car.doors == 4
            } else {
                false
            }
        }
        #expect(try fourDoors.evaluate(car))
        #expect(try !fourDoors.evaluate(motorcycle))
        // A subclass's predicate reaches the inherited properties.
        let named = #Predicate<Car> { $0.name == "Golf" && $0.doors > 2 }
        #expect(try named.evaluate(Car(name: "Golf", doors: 4)))
    }
}
