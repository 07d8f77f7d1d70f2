import Foundation
@testable import ModelStore

// Versions of a fleet's schema whose class hierarchy changes, nested in
// their versions as SwiftData apps write them (the classes share entity
// names). V1 has no hierarchy; V2 makes Vehicle a root by adding Car; V3
// adds a subclass (Truck), a subclass attribute with a default, renames one,
// and adds a subclass relationship (Car.owner); V4 removes Truck and an
// attribute of Car.

enum FleetV1: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(1, 0, 0) }
    static var models: [any PersistentModel.Type] { [Vehicle.self, Garage.self] }

    @Model class Vehicle {
        var name: String
        var garage: Garage?
        init(name: String) { self.name = name }
    }

    @Model final class Garage {
        var name: String
        @Relationship(inverse: \Vehicle.garage) var vehicles: [Vehicle] = []
        var favourite: Vehicle?
        init(name: String) { self.name = name }
    }
}

enum FleetV2: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(2, 0, 0) }
    static var models: [any PersistentModel.Type] { [Vehicle.self, Car.self, Garage.self] }

    @Model class Vehicle {
        var name: String
        var garage: Garage?
        init(name: String) { self.name = name }
    }

    @Model final class Car: Vehicle {
        var doors: Int
        var plate: String?
        init(name: String, doors: Int, plate: String? = nil) {
            self.doors = doors
            self.plate = plate
            super.init(name: name)
        }
    }

    @Model final class Garage {
        var name: String
        @Relationship(inverse: \Vehicle.garage) var vehicles: [Vehicle] = []
        var favourite: Vehicle?
        init(name: String) { self.name = name }
    }
}

enum FleetV3: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(3, 0, 0) }
    static var models: [any PersistentModel.Type] { [Vehicle.self, Car.self, Truck.self, Garage.self, Person.self] }

    @Model class Vehicle {
        var name: String
        var garage: Garage?
        init(name: String) { self.name = name }
    }

    @Model final class Car: Vehicle {
        var doors: Int
        @Attribute(originalName: "plate") var registration: String?
        var seats: Int = 5
        var owner: Person?
        init(name: String, doors: Int) {
            self.doors = doors
            super.init(name: name)
        }
    }

    @Model final class Truck: Vehicle {
        var payload: Int
        init(name: String, payload: Int) {
            self.payload = payload
            super.init(name: name)
        }
    }

    @Model final class Garage {
        var name: String
        @Relationship(inverse: \Vehicle.garage) var vehicles: [Vehicle] = []
        var favourite: Vehicle?
        init(name: String) { self.name = name }
    }

    @Model final class Person {
        var name: String
        @Relationship(inverse: \Car.owner) var cars: [Car] = []
        init(name: String) { self.name = name }
    }
}

enum FleetV4: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(4, 0, 0) }
    static var models: [any PersistentModel.Type] { [Vehicle.self, Car.self, Garage.self, Person.self] }

    @Model class Vehicle {
        var name: String
        var garage: Garage?
        init(name: String) { self.name = name }
    }

    @Model final class Car: Vehicle {
        var doors: Int
        var seats: Int = 5
        var owner: Person?
        init(name: String, doors: Int) {
            self.doors = doors
            super.init(name: name)
        }
    }

    @Model final class Garage {
        var name: String
        @Relationship(inverse: \Vehicle.garage) var vehicles: [Vehicle] = []
        var favourite: Vehicle?
        init(name: String) { self.name = name }
    }

    @Model final class Person {
        var name: String
        @Relationship(inverse: \Car.owner) var cars: [Car] = []
        init(name: String) { self.name = name }
    }
}

/// V2 with a non-optional attribute of Car that has no default: refused
/// over a store that holds cars.
enum FleetV2Seats: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(2, 1, 0) }
    static var models: [any PersistentModel.Type] { [Vehicle.self, Car.self, Garage.self] }

    @Model class Vehicle {
        var name: String
        var garage: Garage?
        init(name: String) { self.name = name }
    }

    @Model final class Car: Vehicle {
        var doors: Int
        var plate: String?
        var seats: Int
        init(name: String, doors: Int, seats: Int) {
            self.doors = doors
            self.seats = seats
            super.init(name: name)
        }
    }

    @Model final class Garage {
        var name: String
        @Relationship(inverse: \Vehicle.garage) var vehicles: [Vehicle] = []
        var favourite: Vehicle?
        init(name: String) { self.name = name }
    }
}

/// What the custom stage of `FleetPlan` saw and did, for the test to check.
final class FleetStageLog {
    var willMigrate: [String] = []
    var didMigrate: [String] = []
}

/// V2 → V3 through a custom stage whose contexts fetch the hierarchy
/// polymorphically: willMigrate reads every vehicle as its class, didMigrate
/// gives each car as many seats as it has doors and adds a truck.
enum FleetPlan: SchemaMigrationPlan {
    nonisolated(unsafe) static var log = FleetStageLog()
    static var schemas: [any VersionedSchema.Type] { [FleetV2.self, FleetV3.self] }
    static var stages: [MigrationStage] {
        [
            .custom(
                fromVersion: FleetV2.self, toVersion: FleetV3.self,
                willMigrate: { context in
                    let vehicles = try context.fetch(FetchDescriptor<FleetV2.Vehicle>(sortBy: [SortDescriptor(\.name)]))
                    log.willMigrate = vehicles.map { "\(type(of: $0)) \($0.name)" }
                },
                didMigrate: { context in
                    for vehicle in try context.fetch(FetchDescriptor<FleetV3.Vehicle>(sortBy: [SortDescriptor(\.name)])) {
                        log.didMigrate.append("\(type(of: vehicle)) \(vehicle.name)")
                        if let car = vehicle as? FleetV3.Car { car.seats = car.doors }
                        if vehicle.name == "Bike" { context.insert(FleetV3.Truck(name: "Lorry", payload: 7)) }
                    }
                })
        ]
    }
}
