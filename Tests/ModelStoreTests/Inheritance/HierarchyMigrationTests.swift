import Foundation
import Testing
@testable import ModelStore
@testable import ModelStoreDynamic

/// The names of the vehicles' classes and names, as a polymorphic fetch gives them.
private func fleet<Vehicle: PersistentModel>(_ context: ModelContext, _ type: Vehicle.Type, name: KeyPath<Vehicle, String>)
    throws -> [String]
{
    try context.fetch(FetchDescriptor<Vehicle>()).map { "\(Swift.type(of: $0)) \($0[keyPath: name])" }.sorted()
}

/// A V2 store: a plain vehicle and a car, both in a garage whose favourite is the car.
private func fleetV2Store() throws -> (URL, StoreFile) {
    let url = try TemporaryDirectory().file()
    let context = ModelContext(try open(url, FleetV2.models))
    let garage = FleetV2.Garage(name: "North")
    let bike = FleetV2.Vehicle(name: "Bike")
    let mini = FleetV2.Car(name: "Mini", doors: 3, plate: "AB-1")
    context.insert(garage)
    context.insert(bike)
    context.insert(mini)
    bike.garage = garage
    mini.garage = garage
    garage.favourite = mini
    try context.save()
    return (url, StoreFile(url: url))
}

@Suite("Class inheritance: migrations")
struct HierarchyMigrationTests {
    @Test("A plain entity becomes a hierarchy's root: the entity column is added, its rows are the root's, links stay")
    func plainEntityBecomesRoot() throws {
        let url = try TemporaryDirectory().file()
        do {
            let context = ModelContext(try open(url, FleetV1.models))
            let garage = FleetV1.Garage(name: "North")
            let bike = FleetV1.Vehicle(name: "Bike")
            context.insert(garage)
            context.insert(bike)
            bike.garage = garage
            garage.favourite = bike
            try context.save()
        }
        let file = StoreFile(url: url)
        let container = try open(url, FleetV2.models)
        #expect(try file.rows("SELECT _entity, name, doors, plate FROM Vehicle") == [[.text("Vehicle"), .text("Bike"), .null, .null]])
        #expect(try file.storedSchema().entity(named: "Car")?.superentityName == "Vehicle")
        let context = ModelContext(container)
        let garage = try #require(try context.fetch(FetchDescriptor<FleetV2.Garage>()).first)
        #expect(garage.favourite?.name == "Bike")
        #expect(garage.vehicles.map(\.name) == ["Bike"])
        context.insert(FleetV2.Car(name: "Mini", doors: 3))
        try context.save()
        #expect(try fleet(ModelContext(container), FleetV2.Vehicle.self, name: \.name) == ["Car Mini", "Vehicle Bike"])
        // The tools that read a store without the app's classes see the hierarchy.
        let dynamic = try DynamicStore(path: file.path)
        #expect(try dynamic.count("Vehicle") == 2)
        #expect(try dynamic.count("Car") == 1)
        #expect(try file.rows("PRAGMA foreign_key_check").isEmpty)
    }

    @Test("A new subclass, a subclass attribute with a default (its rows only), a renamed one, a subclass relationship")
    func addSubclassAndProperties() throws {
        let (url, file) = try fleetV2Store()
        let container = try open(url, FleetV3.models)
        #expect(try file.rows("SELECT _entity, name, doors, registration, seats, owner, payload FROM Vehicle ORDER BY _pk") == [
            [.text("Vehicle"), .text("Bike"), .null, .null, .null, .null, .null],
            [.text("Car"), .text("Mini"), .integer(3), .text("AB-1"), .integer(5), .null, .null],
        ])
        #expect(try file.rows("SELECT name FROM pragma_table_info('Vehicle') WHERE name = 'plate'").isEmpty)
        let context = ModelContext(container)
        let mini = try #require(try context.fetch(FetchDescriptor<FleetV3.Car>()).first)
        #expect(mini.registration == "AB-1" && mini.seats == 5 && mini.doors == 3 && mini.garage?.name == "North")
        let ada = FleetV3.Person(name: "Ada")
        context.insert(ada)
        ada.cars = [mini]
        context.insert(FleetV3.Truck(name: "Lorry", payload: 7))
        try context.save()

        let reader = ModelContext(container)
        #expect(try fleet(reader, FleetV3.Vehicle.self, name: \.name) == ["Car Mini", "Truck Lorry", "Vehicle Bike"])
        #expect(try reader.fetch(FetchDescriptor<FleetV3.Car>()).first?.owner?.name == "Ada")
        #expect(try reader.fetch(FetchDescriptor<FleetV3.Garage>()).first?.favourite?.name == "Mini")
        #expect(try DynamicStore(path: file.path).count("Truck") == 1)
        #expect(try file.rows("PRAGMA foreign_key_check").isEmpty)
    }

    @Test("Removing a subclass with rows, or a subclass attribute with values, is refused and leaves the store as it was")
    func removalsRefused() throws {
        let (url, file) = try v3Store()
        let before = try file.everything()
        #expect {
            try open(url, FleetV4.models)
        } throws: { error in
            guard case ModelStoreError.destructiveMigration(_, let changes) = error else { return false }
            return changes.count == 2 && changes.contains { $0.contains("entity Truck is no longer in the schema and 1 row") }
                && changes.contains { $0.contains("attribute Car.registration is no longer in the schema") }
        }
        #expect(try file.everything() == before)
    }

    @Test("Allowed, removing a subclass deletes its rows and the links to them; other rows and links stay")
    func removeSubclass() throws {
        let (url, file) = try v3Store()
        let container = try open(url, FleetV4.models, allowsDataLoss: true)
        #expect(try file.rows("SELECT _entity, name FROM Vehicle ORDER BY _pk") == [[.text("Vehicle"), .text("Bike")], [.text("Car"), .text("Mini")]])
        #expect(try file.rows("SELECT name FROM pragma_table_info('Vehicle') WHERE name IN ('payload', 'registration')").isEmpty)
        #expect(try file.rows("PRAGMA foreign_key_check").isEmpty)
        let context = ModelContext(container)
        let garage = try #require(try context.fetch(FetchDescriptor<FleetV4.Garage>()).first)
        #expect(garage.favourite == nil)
        #expect(garage.vehicles.map(\.name).sorted() == ["Bike", "Mini"])
        #expect(try fleet(context, FleetV4.Vehicle.self, name: \.name) == ["Car Mini", "Vehicle Bike"])
        #expect(try context.fetch(FetchDescriptor<FleetV4.Car>()).first?.owner?.name == "Ada")
        #expect(try DynamicStore(path: file.path).count("Vehicle") == 2)
    }

    @Test("A non-optional subclass attribute without a default over rows of that subclass is refused, naming the fix")
    func newRequiredAttributeRefused() throws {
        let (url, file) = try fleetV2Store()
        let before = try file.everything()
        #expect {
            try open(url, FleetV2Seats.models)
        } throws: { error in
            guard case ModelStoreError.noMigrationPath(_, let reason) = error else { return false }
            return reason.contains("attribute Car.seats is new and non-optional without a default value")
                && reason.contains("1 Car row need") && reason.contains("give it a default value")
        }
        #expect(try file.everything() == before)

        // Without cars, rows of the other classes keep NULL there.
        try file.execute("UPDATE Garage SET favourite = NULL; DELETE FROM Vehicle WHERE _entity = 'Car'")
        try open(url, FleetV2Seats.models)
        #expect(try file.rows("SELECT name, seats FROM Vehicle") == [[.text("Bike"), .null]])
    }

    @Test("An entity that moves to another place in a hierarchy is refused up front, naming it")
    func superentityChangeRefused() throws {
        let url = try TemporaryDirectory().file()
        let vehicle = Schema.Entity(name: "Vehicle", attributes: [attribute("name", .string)])
        let car = Schema.Entity(
            name: "Car", attributes: [attribute("name", .string), attribute("doors", .int)], superentityName: "Vehicle")
        try open(url, entities: [vehicle, car])
        let file = StoreFile(url: url)
        try file.execute("INSERT INTO Vehicle (_entity, name, doors) VALUES ('Car', 'Mini', 3)")
        let before = try file.everything()
        var plainCar = car
        plainCar.superentityName = nil
        #expect(Schema(entities: [vehicle, plainCar]).differences(from: Schema(entities: [vehicle, car])) == [
            .superentityChanged(entity: "Car", from: "Vehicle", to: nil)
        ])
        #expect {
            try open(url, entities: [vehicle, plainCar], version: Schema.Version(2, 0, 0), allowsDataLoss: true)
        } throws: { error in
            guard case ModelStoreError.noMigrationPath(_, let reason) = error else { return false }
            return reason.contains("entity Car inherits from no entity instead of Vehicle")
        }
        #expect(try file.everything() == before)
    }

    @Test("A subclass renamed through originalName keeps its rows, which take its new name")
    func renameSubclass() throws {
        let url = try TemporaryDirectory().file()
        let vehicle = Schema.Entity(name: "Vehicle", attributes: [attribute("name", .string)])
        let car = Schema.Entity(
            name: "Car", attributes: [attribute("name", .string), attribute("doors", .int)], superentityName: "Vehicle")
        try open(url, entities: [vehicle, car])
        let file = StoreFile(url: url)
        try file.execute("INSERT INTO Vehicle (_entity, name, doors) VALUES ('Vehicle', 'Bike', NULL), ('Car', 'Mini', 3)")
        var auto = car
        auto.name = "Auto"
        auto.originalName = "Car"
        try open(url, entities: [vehicle, auto], version: Schema.Version(2, 0, 0))
        #expect(try file.rows("SELECT _entity, name, doors FROM Vehicle ORDER BY _pk") == [
            [.text("Vehicle"), .text("Bike"), .null], [.text("Auto"), .text("Mini"), .integer(3)],
        ])
        #expect(try DynamicStore(path: file.path).count("Auto") == 1)
    }

    @Test("A subclass's to-one with an inverse to-many is written, ordered and nullified in its root's table")
    func subclassToOneLinks() throws {
        let url = try TemporaryDirectory().file()
        let container = try open(url, FleetV3.models)
        let context = ModelContext(container)
        let ada = FleetV3.Person(name: "Ada")
        let mini = FleetV3.Car(name: "Mini", doors: 3)
        let golf = FleetV3.Car(name: "Golf", doors: 5)
        context.insert(ada)
        context.insert(mini)
        context.insert(golf)
        ada.cars = [golf, mini]
        try context.save()
        #expect(try ModelContext(container).fetch(FetchDescriptor<FleetV3.Person>()).first?.cars.map(\.name) == ["Golf", "Mini"])
        context.delete(ada)
        try context.save()
        let file = StoreFile(url: url)
        #expect(try file.rows("SELECT owner FROM Vehicle") == [[.null], [.null]])
    }

    @Test("A failure at any step of a hierarchy's migration leaves the store as it was")
    func failureLeavesStore() throws {
        let (url, file) = try fleetV2Store()
        let before = try file.everything()
        var step = 0
        while true {
            var configuration = migrationConfiguration(url)
            configuration.migrationOptions.failsBeforeStep = step
            do {
                _ = try ModelContainer(for: Schema(FleetV3.models), configurations: [configuration])
                break
            } catch {
                #expect(try file.everything() == before, "failure before step \(step)")
            }
            step += 1
        }
        #expect(step >= 3)
        #expect(try file.rows("SELECT seats FROM Vehicle ORDER BY _pk") == [[.null], [.integer(5)]])
    }

    @Test("A custom stage over a hierarchy: both contexts fetch polymorphically, and what didMigrate writes is kept")
    func customStage() throws {
        let (url, file) = try fleetV2Store()
        FleetPlan.log = FleetStageLog()
        let container = try ModelContainer(
            for: Schema(versionedSchema: FleetV3.self), migrationPlan: FleetPlan.self, configurations: [migrationConfiguration(url)])
        #expect(FleetPlan.log.willMigrate == ["Vehicle Bike", "Car Mini"])
        #expect(FleetPlan.log.didMigrate == ["Vehicle Bike", "Car Mini"])
        let context = ModelContext(container)
        #expect(try fleet(context, FleetV3.Vehicle.self, name: \.name) == ["Car Mini", "Truck Lorry", "Vehicle Bike"])
        let mini = try #require(try context.fetch(FetchDescriptor<FleetV3.Car>()).first)
        #expect(mini.seats == 3 && mini.registration == "AB-1")
        #expect(try context.fetch(FetchDescriptor<FleetV3.Truck>()).map(\.payload) == [7])
        #expect(try file.storedSchema().version == Schema.Version(3, 0, 0))
    }

    /// A V3 store: a vehicle, a car owned by Ada, and a truck that is its garage's favourite.
    private func v3Store() throws -> (URL, StoreFile) {
        let url = try TemporaryDirectory().file()
        let context = ModelContext(try open(url, FleetV3.models))
        let garage = FleetV3.Garage(name: "North")
        let bike = FleetV3.Vehicle(name: "Bike")
        let mini = FleetV3.Car(name: "Mini", doors: 3)
        let lorry = FleetV3.Truck(name: "Lorry", payload: 7)
        let ada = FleetV3.Person(name: "Ada")
        for model in [garage, bike, mini, lorry, ada] as [any PersistentModel] { context.insert(model) }
        mini.registration = "AB-1"
        mini.owner = ada
        garage.vehicles = [bike, mini, lorry]
        garage.favourite = lorry
        try context.save()
        return (url, StoreFile(url: url))
    }
}
