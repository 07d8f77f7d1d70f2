import Foundation
import ModelStore

// A small class hierarchy, as SwiftData's inheritance article has it:
// Vehicle ← Car ← Sedan, and Vehicle ← Motorcycle.

@Model class Vehicle {
    var name: String
    var year: Int = 2000
    var garage: Garage?

    init(name: String, year: Int = 2000) {
        self.name = name
        self.year = year
    }
}

@Model class Car: Vehicle {
    var doors: Int
    var plate: String?

    init(name: String, doors: Int, plate: String? = nil) {
        self.doors = doors
        self.plate = plate
        super.init(name: name)
    }
}

@Model final class Sedan: Car {
    var trunkLitres: Int

    init(name: String, trunkLitres: Int) {
        self.trunkLitres = trunkLitres
        super.init(name: name, doors: 4)
    }
}

@Model final class Motorcycle: Vehicle {
    var displacement: Int

    init(name: String, displacement: Int) {
        self.displacement = displacement
        super.init(name: name)
    }
}

/// Holds vehicles of any class: relationships whose destination is the base class.
@Model final class Garage {
    var name: String
    @Relationship(deleteRule: .cascade, inverse: \Vehicle.garage) var vehicles: [Vehicle] = []
    var favourite: Vehicle?

    init(name: String) { self.name = name }
}
