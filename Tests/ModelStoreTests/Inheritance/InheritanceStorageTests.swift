import Foundation
import Testing
@testable import ModelStore

/// Storing a class hierarchy: one table named after the root, with every
/// subclass's columns and `_entity` holding each row's entity.
@Suite("Class inheritance: storage")
struct InheritanceStorageTests {
    private static var models: [any PersistentModel.Type] { [Vehicle.self, Car.self, Sedan.self, Motorcycle.self, Garage.self] }

    private func container(_ url: URL) throws -> ModelContainer {
        try ModelContainer(for: Schema(Self.models), configurations: ModelConfiguration(url: url))
    }

    /// A store with a Vehicle, a Car, a Sedan and a Motorcycle, saved.
    private func filledStore() throws -> (TemporaryDirectory, ModelContainer) {
        let directory = try TemporaryDirectory()
        let container = try container(directory.file())
        let context = ModelContext(container)
        context.insert(Vehicle(name: "Cart", year: 1990))
        context.insert(Car(name: "Golf", doors: 4, plate: "AB-1"))
        context.insert(Sedan(name: "Passat", trunkLitres: 500))
        context.insert(Motorcycle(name: "Vespa", displacement: 125))
        try context.save()
        return (directory, container)
    }

    @Test("One table per hierarchy, named after the root, with every subclass's columns and the entity column")
    func oneTable() throws {
        let (directory, _) = try filledStore()
        let connection = try Connection(location: directory.file().path, mode: .readOnly)
        let tables = try connection.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE '\\_%' ESCAPE '\\' AND name NOT LIKE 'sqlite%' ORDER BY name")
        var names: [String] = []
        while try tables.step() { names.append(tables.string(at: 0)) }
        #expect(names == ["Garage", "Vehicle"])
        let rows = try connection.prepare("SELECT _entity, name, doors, trunkLitres, displacement FROM Vehicle ORDER BY _pk")
        var read: [String] = []
        while try rows.step() {
            read.append((0..<5).map { rows.isNull(at: Int32($0)) ? "-" : rows.string(at: Int32($0)) }.joined(separator: " "))
        }
        #expect(read == ["Vehicle Cart - - -", "Car Golf 4 - -", "Sedan Passat 4 500 -", "Motorcycle Vespa - - 125"])
    }

    @Test("A fetch of the base class returns each row as its own class; a subclass's fetch its rows and its subclasses'")
    func polymorphicFetch() throws {
        let (_, container) = try filledStore()
        let context = ModelContext(container)
        let vehicles = try context.fetch(FetchDescriptor<Vehicle>(sortBy: [SortDescriptor(\.name)]))
        #expect(vehicles.map { "\(type(of: $0))" } == ["Vehicle", "Car", "Sedan", "Motorcycle"])
        #expect((vehicles[1] as? Car)?.plate == "AB-1")
        #expect((vehicles[2] as? Sedan)?.trunkLitres == 500 && (vehicles[2] as? Sedan)?.doors == 4)
        #expect((vehicles[3] as? Motorcycle)?.displacement == 125)
        let cars = try context.fetch(FetchDescriptor<Car>()).sorted { $0.name < $1.name }
        #expect(cars.map(\.name) == ["Golf", "Passat"])
        // One object per row, whichever class fetched it.
        #expect(cars[0] === vehicles[1] && cars[1] === vehicles[2])
        #expect(try context.fetch(FetchDescriptor<Sedan>()).first === vehicles[2])
        #expect(try context.fetchCount(FetchDescriptor<Vehicle>()) == 4)
        #expect(try context.fetchCount(FetchDescriptor<Car>()) == 2)
        #expect(try context.fetchCount(FetchDescriptor<Motorcycle>()) == 1)
        let plated = try context.fetch(FetchDescriptor<Car>(predicate: #Predicate { $0.plate != nil && $0.doors == 4 }))
        #expect(plated.map(\.name) == ["Golf"])
        #expect(try context.fetchIdentifiers(FetchDescriptor<Car>()).count == 2)
    }

    @Test("A row has one identifier, naming its own entity, whichever class fetched it; model(for:) finds it")
    func identifiers() throws {
        let (_, container) = try filledStore()
        let context = ModelContext(container)
        let car = try #require(try context.fetch(FetchDescriptor<Car>(predicate: #Predicate { $0.plate == "AB-1" })).first)
        let asVehicle = try #require(try context.fetch(FetchDescriptor<Vehicle>(predicate: #Predicate { $0.name == "Golf" })).first)
        #expect(car.persistentModelID == asVehicle.persistentModelID)
        #expect(car.persistentModelID.entityName == "Car")
        let other = ModelContext(container)
        let found = try #require(other.model(for: car.persistentModelID) as? Car)
        #expect(found.doors == 4)
        // Through the root's name too: the row's entity decides the class.
        let sedan = try #require(try context.fetch(FetchDescriptor<Sedan>()).first)
        let third = ModelContext(container)
        #expect(try third.model(for: sedan.persistentModelID, as: Vehicle.self) is Sedan)
    }

    @Test("Updates and deletes reach the hierarchy's table by key")
    func updateAndDelete() throws {
        let (directory, container) = try filledStore()
        let context = ModelContext(container)
        let car = try #require(try context.fetch(FetchDescriptor<Car>(predicate: #Predicate { $0.plate == "AB-1" })).first)
        car.doors = 2
        car.year = 2020
        try context.save()
        let reread = ModelContext(try self.container(directory.file()))
        let again = try #require(try reread.fetch(FetchDescriptor<Car>(predicate: #Predicate { $0.plate == "AB-1" })).first)
        #expect(again.doors == 2 && again.year == 2020)
        reread.delete(again)
        try reread.save()
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Vehicle>()) == 3)
    }

    @Test("delete(model:includeSubclasses: false) deletes only the base class's own rows")
    func deleteWithoutSubclasses() throws {
        let (_, container) = try filledStore()
        let context = ModelContext(container)
        try context.delete(model: Car.self, includeSubclasses: false)
        try context.save()
        #expect(try ModelContext(container).fetch(FetchDescriptor<Vehicle>()).map(\.name).sorted() == ["Cart", "Passat", "Vespa"])
        try context.delete(model: Vehicle.self)
        try context.save()
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Vehicle>()) == 0)
    }

    @Test("A NULL in a subclass's non-optional column is an error naming entity, row and property")
    func nullInSubclassColumn() throws {
        let (directory, container) = try filledStore()
        let connection = try Connection(location: directory.file().path, mode: .readWrite)
        try connection.execute("UPDATE Vehicle SET doors = NULL WHERE name = 'Golf'")
        #expect {
            _ = try ModelContext(container).fetch(FetchDescriptor<Vehicle>())
        } throws: { error in
            "\(error)".contains("Car") && "\(error)".contains("doors") && "\(error)".contains("row 2")
        }
    }

    @Test("A row naming an unknown entity is an error naming the row")
    func unknownEntityInRow() throws {
        let (directory, container) = try filledStore()
        let connection = try Connection(location: directory.file().path, mode: .readWrite)
        try connection.execute("UPDATE Vehicle SET _entity = 'Truck' WHERE name = 'Vespa'")
        #expect {
            _ = try ModelContext(container).fetch(FetchDescriptor<Vehicle>())
        } throws: { error in
            "\(error)".contains("Truck") && "\(error)".contains("row 4")
        }
    }

    @Test("Relationships to the base class hold objects of any subclass, to-one and to-many, and cascade")
    func relationshipsToBaseClass() throws {
        let directory = try TemporaryDirectory()
        let container = try container(directory.file())
        let context = ModelContext(container)
        let garage = Garage(name: "Home")
        context.insert(garage)
        let car = Car(name: "Golf", doors: 4)
        let bike = Motorcycle(name: "Vespa", displacement: 125)
        garage.vehicles = [car, bike]
        garage.favourite = bike
        try context.save()
        let other = ModelContext(container)
        let reread = try #require(try other.fetch(FetchDescriptor<Garage>()).first)
        #expect(reread.vehicles.map { "\(type(of: $0))" } == ["Car", "Motorcycle"])
        #expect(reread.favourite is Motorcycle)
        #expect((reread.favourite as? Motorcycle)?.displacement == 125)
        #expect(reread.vehicles[0].garage === reread)
        other.delete(reread)
        try other.save()
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Vehicle>()) == 0)
    }

    @Test("Sibling subclasses may not declare a property of the same name: it would be one column")
    func siblingColumnClash() throws {
        var schema = Schema(Self.models)
        let index = try #require(schema.entities.firstIndex { $0.name == "Motorcycle" })
        schema.entities[index].attributes.append(
            Schema.Attribute(name: "doors", kind: .int, swiftType: "Int", isOptional: false))
        #expect {
            try schema.validate()
        } throws: { error in
            "\(error)".contains("Motorcycle.doors and Car.doors")
        }
    }
}
