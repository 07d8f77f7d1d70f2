import Foundation
import Testing
@testable import ModelStore

/// A subclass of `Vehicle` that no schema of these tests lists.
@Model final class UnlistedVan: Vehicle {
    var seats: Int

    init(name: String, seats: Int) {
        self.seats = seats
        super.init(name: name)
    }
}

/// `is` and `as?` in predicates over a class hierarchy, run twice on the same
/// data: compiled to SQL, and with `Predicate.evaluate` over all the objects
/// (the oracle). Both must select the same objects, and `fetchCount` must
/// agree.
@Suite("Class inheritance: is and as? in predicates")
struct InheritanceCastQueryTests {
    /// A SQLite file, or PostgreSQL in the PostgreSQL pass of the suites.
    let store: TestStore
    let container: ModelContainer

    init() throws {
        store = try TestStore(.file)
        container = try ModelContainer(
            for: Schema([Vehicle.self, Car.self, Sedan.self, Motorcycle.self, Garage.self]),
            configurations: store.configuration)
        try Self.seed(ModelContext(container))
    }

    /// Garages North (Cart, Golf, Passat; favourite Golf), South (Vespa,
    /// Beetle; favourite Vespa), East (Mini; favourite Passat), Bikes
    /// (Ducati; favourite Ducati) and Empty; Camry and Trailer in none.
    static func seed(_ context: ModelContext) throws {
        func vehicle<V: Vehicle>(_ object: V, year: Int, in garage: Garage?) -> V {
            object.year = year
            context.insert(object)
            object.garage = garage
            return object
        }
        let (north, south, east, bikes) = (Garage(name: "North"), Garage(name: "South"), Garage(name: "East"), Garage(name: "Bikes"))
        for garage in [north, south, east, bikes, Garage(name: "Empty")] { context.insert(garage) }
        _ = vehicle(Vehicle(name: "Cart"), year: 1980, in: north)
        let golf = vehicle(Car(name: "Golf", doors: 4), year: 2010, in: north)
        let passat = vehicle(Sedan(name: "Passat", trunkLitres: 500), year: 2015, in: north)
        let vespa = vehicle(Motorcycle(name: "Vespa", displacement: 125), year: 1990, in: south)
        _ = vehicle(Car(name: "Beetle", doors: 2, plate: "B-1"), year: 1970, in: south)
        _ = vehicle(Car(name: "Mini", doors: 2), year: 2001, in: east)
        let ducati = vehicle(Motorcycle(name: "Ducati", displacement: 900), year: 2018, in: bikes)
        _ = vehicle(Sedan(name: "Camry", trunkLitres: 450), year: 2020, in: nil)
        _ = vehicle(Vehicle(name: "Trailer"), year: 2000, in: nil)
        north.favourite = golf
        south.favourite = vespa
        east.favourite = passat
        bikes.favourite = ducati
        try context.save()
    }

    /// Fetches through SQL in a fresh context and compares with the
    /// in-memory answer; `fetchCount` must count the same objects.
    func expectAgreement<T: PersistentModel>(
        _ predicate: Predicate<T>, _ label: String, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let context = ModelContext(container)
        let counter = try StatementCounter(context)
        let viaSQL = try context.fetch(FetchDescriptor(predicate: predicate))
        #expect(counter.statements.first?.contains(" WHERE ") == true, "\(label): not filtered in SQL", sourceLocation: sourceLocation)
        let all = try context.fetch(FetchDescriptor<T>())
        let inMemory = try all.filter { try predicate.evaluate($0) }
        #expect(viaSQL.map(\.persistentModelID) == inMemory.map(\.persistentModelID), "\(label)", sourceLocation: sourceLocation)
        #expect(try context.fetchCount(FetchDescriptor(predicate: predicate)) == inMemory.count, "\(label): fetchCount", sourceLocation: sourceLocation)
        #expect(!inMemory.isEmpty && inMemory.count < all.count, "\(label) should select a proper subset", sourceLocation: sourceLocation)
    }

    @Test("is and as? on the fetched type")
    func castsOnTheFetchedType() throws {
        try expectAgreement(#Predicate<Vehicle> { $0 is Car }, "is Car (with its subclass Sedan)")
        try expectAgreement(#Predicate<Vehicle> { $0 is Sedan }, "is Sedan")
        try expectAgreement(#Predicate<Vehicle> { $0 is Motorcycle }, "is Motorcycle")
        try expectAgreement(#Predicate<Vehicle> { !($0 is Car) }, "negated is")
        try expectAgreement(#Predicate<Vehicle> { ($0 as? Car)?.doors ?? 0 > 2 }, "as? with ??")
        try expectAgreement(#Predicate<Vehicle> { if let car = $0 as? Car { car.doors == 4 } else { false } }, "if let as?")
        try expectAgreement(
            #Predicate<Vehicle> { if let car = $0 as? Car { car.doors == 2 } else { $0.year < 1985 } }, "if let as? with an else condition")
        try expectAgreement(#Predicate<Vehicle> { ($0 as? Car)?.plate == nil }, "as? reads nil for other classes")
        try expectAgreement(#Predicate<Vehicle> { ($0 as? Car)?.plate != nil }, "as? of an optional attribute")
        try expectAgreement(#Predicate<Vehicle> { ($0 as? Car)?.doors == nil }, "as? == nil")
        try expectAgreement(#Predicate<Vehicle> { ($0 as? Sedan)?.trunkLitres ?? 0 >= 500 }, "as? the deepest class")
    }

    @Test("is and as? combined with other conditions")
    func castsCombined() throws {
        try expectAgreement(#Predicate<Vehicle> { $0 is Car && $0.year > 2005 }, "is && attribute")
        try expectAgreement(#Predicate<Vehicle> { $0 is Motorcycle || $0.name == "Cart" }, "is || attribute")
        try expectAgreement(#Predicate<Vehicle> { $0 is Car || $0 is Motorcycle }, "is || is")
        try expectAgreement(#Predicate<Vehicle> { !($0 is Sedan) && ($0 as? Car)?.doors == 2 }, "not is && as?")
        try expectAgreement(#Predicate<Vehicle> { ($0 is Car ? $0.year : 0) > 2012 }, "is in a ternary")
    }

    @Test("A three-level hierarchy: is and as? on a fetch of the middle class")
    func threeLevels() throws {
        try expectAgreement(#Predicate<Car> { $0 is Sedan }, "Car is Sedan")
        try expectAgreement(#Predicate<Car> { !($0 is Sedan) }, "Car is not Sedan")
        try expectAgreement(#Predicate<Car> { ($0 as? Sedan)?.trunkLitres == 450 }, "Car as? Sedan")
        try expectAgreement(#Predicate<Car> { $0 is Sedan || $0.doors == 2 && $0.plate == nil }, "is among other conditions")
    }

    @Test("is and as? through a to-one relationship")
    func castsThroughToOne() throws {
        try expectAgreement(#Predicate<Garage> { $0.favourite is Car }, "to-one is")
        try expectAgreement(#Predicate<Garage> { !($0.favourite is Car) }, "negated to-one is: a nil favourite is no Car")
        try expectAgreement(#Predicate<Garage> { ($0.favourite as? Car)?.doors == 4 }, "to-one as?")
        try expectAgreement(#Predicate<Vehicle> { $0.garage?.favourite is Sedan }, "two to-ones, then is")
        try expectAgreement(#Predicate<Vehicle> { ($0 as? Car)?.garage?.name == "North" }, "as?, then a to-one")
        try expectAgreement(#Predicate<Vehicle> { ($0 as? Car)?.garage?.favourite is Car }, "as?, to-ones, is")
    }

    @Test("is and as? inside a to-many relationship's questions")
    func castsInsideToMany() throws {
        try expectAgreement(#Predicate<Garage> { $0.vehicles.contains { $0 is Sedan } }, "contains is")
        try expectAgreement(#Predicate<Garage> { $0.vehicles.contains { $0 is Car } }, "contains is, with a subclass")
        try expectAgreement(#Predicate<Garage> { !$0.vehicles.contains { $0 is Car } }, "not contains is")
        try expectAgreement(#Predicate<Garage> { $0.vehicles.contains { ($0 as? Car)?.doors == 2 } }, "contains as?")
        try expectAgreement(#Predicate<Garage> { $0.vehicles.allSatisfy { $0 is Motorcycle } }, "allSatisfy is")
        try expectAgreement(#Predicate<Garage> { $0.vehicles.filter { $0 is Car }.count == 1 }, "filter is, count")
    }

    @Test("An identifier of a subclass's object matches the same row reached as its superclass")
    func identifiersAcrossTheHierarchy() throws {
        let context = ModelContext(container)
        let passat = try #require(try context.fetch(FetchDescriptor<Sedan>(predicate: #Predicate { $0.name == "Passat" })).first)
        let passatID = passat.persistentModelID
        try expectAgreement(#Predicate<Vehicle> { $0.persistentModelID == passatID }, "a Sedan's identifier in a Vehicle fetch")
        try expectAgreement(#Predicate<Garage> { $0.favourite?.persistentModelID == passatID }, "a Sedan's identifier through a to-one")
        try expectAgreement(#Predicate<Garage> { $0.favourite?.persistentModelID != passatID }, "!= a Sedan's identifier")
    }

    @Test("A cast that cannot fail (to the type itself or a superclass) tests only that there is an object")
    func upcasts() throws {
        try expectAgreement(Self.favourite(is: Vehicle.self), "a to-one is its own class unless nil")
        try expectAgreement(Self.yearAsVehicle(Sedan.self), "as! to a superclass")
        try expectAgreement(Self.yearAsVehicle(Vehicle.self), "as! to the class itself")
    }

    @Test("delete(model:where:) with is and as? deletes what the predicate selects")
    func deleteWithCasts() throws {
        let context = ModelContext(container)
        // `favourite` has no inverse: a save that would leave it naming a deleted object fails.
        for garage in try context.fetch(FetchDescriptor<Garage>()) { garage.favourite = nil }
        try context.delete(model: Vehicle.self, where: #Predicate { $0 is Motorcycle || ($0 as? Car)?.doors == 2 })
        try context.save()
        let names = try ModelContext(container).fetch(FetchDescriptor<Vehicle>(sortBy: [SortDescriptor(\.name)])).map(\.name)
        #expect(names == ["Camry", "Cart", "Golf", "Passat", "Trailer"])
        let deleting = ModelContext(container)
        try deleting.delete(model: Car.self, where: #Predicate { !($0 is Sedan) })
        try deleting.save()
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Vehicle>()) == 4)
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Car>(predicate: #Predicate { $0 is Sedan })) == 2)
    }

    @Test("Casts SQL cannot answer as Swift does are refused with unsupportedQuery")
    func unsupportedCasts() throws {
        let context = ModelContext(container)
        func expectRefused<T: PersistentModel>(_ predicate: Predicate<T>, mentioning part: String, sourceLocation: SourceLocation = #_sourceLocation) {
            #expect(sourceLocation: sourceLocation) {
                _ = try context.fetch(FetchDescriptor(predicate: predicate))
            } throws: { error in
                guard case ModelStoreError.unsupportedQuery(_, _, let reason) = error else { return false }
                return reason.contains(part)
            }
        }
        expectRefused(#Predicate<Vehicle> { ($0 as! Car).doors == 4 }, mentioning: "use as?")
        expectRefused(Self.favourite(is: Garage.self), mentioning: "not in the class hierarchy of Vehicle")
        expectRefused(Self.favourite(is: UnlistedVan.self), mentioning: "UnlistedVan is not an entity of the store's schema")
        expectRefused(Self.name(is: String.self), mentioning: "model objects only")
        #expect(throws: ModelStoreError.self) { try context.fetchCount(FetchDescriptor(predicate: Self.favourite(is: Garage.self))) }
    }

    // Generic, so that the compiler cannot tell (and warn) that a test always
    // succeeds or always fails.

    static func favourite<T>(is type: T.Type) -> Predicate<Garage> { #Predicate<Garage> { $0.favourite is T } }

    static func name<T>(is type: T.Type) -> Predicate<Vehicle> { #Predicate<Vehicle> { $0.name is T } }

    static func yearAsVehicle<T: PersistentModel>(_ type: T.Type) -> Predicate<T> {
        #Predicate<T> { ($0 as! Vehicle).year > 2016 }
    }
}
