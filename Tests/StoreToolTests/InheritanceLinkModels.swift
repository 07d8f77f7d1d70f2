import ModelStore

// A class hierarchy whose subclass has to-ones with to-many inverses: every
// Machine and Truck row is in table Machine, so the columns of Truck.owner
// and Truck.depot (and their order columns) are there too.

@Model class Machine {
    var label: String
    init(label: String) { self.label = label }
}

@Model final class Truck: Machine {
    var owner: Driver?
    var depot: Depot?
    override init(label: String) { super.init(label: label) }
}

@Model final class Driver {
    var name: String
    @Relationship(inverse: \Truck.owner) var trucks: [Truck] = []
    init(name: String) { self.name = name }
}

@Model final class Depot {
    var name: String
    @Relationship(deleteRule: .cascade, inverse: \Truck.depot) var trucks: [Truck] = []
    init(name: String) { self.name = name }
}
