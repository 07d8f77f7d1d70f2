import Foundation
import Testing
@testable import ModelStore

/// Both ends of a relationship stay in step in memory, for every kind.
@Suite("Inverse maintenance")
struct InverseTests {
    typealias Trip = Graph.Trip
    typealias Stop = Graph.Stop

    @Test("Setting a to-one adds the object to the inverse to-many")
    func toOneSetsToMany() {
        let trip = Trip(name: "Lisbon")
        let stop = Stop(title: "Belém")
        stop.trip = trip
        #expect(trip.stops.map(\.title) == ["Belém"])
    }

    @Test("Removing from a to-many clears the inverse to-one")
    func removeClearsToOne() {
        let trip = Trip(name: "Lisbon")
        let stop = Stop(title: "Belém", trip: trip)
        trip.stops.removeAll { $0 === stop }
        #expect(stop.trip == nil)
    }

    @Test("Moving an object to another parent updates all three objects")
    func moveUpdatesThree() {
        let lisbon = Trip(name: "Lisbon")
        let porto = Trip(name: "Porto")
        let stop = Stop(title: "Ribeira", trip: lisbon)
        porto.stops.append(stop)
        #expect(stop.trip === porto)
        #expect(lisbon.stops.isEmpty)
        #expect(porto.stops.map(\.title) == ["Ribeira"])
        stop.trip = lisbon
        #expect(porto.stops.isEmpty && lisbon.stops.count == 1)
    }

    @Test("Assigning a whole array updates every inverse")
    func assignArray() {
        let trip = Trip(name: "Lisbon")
        let a = Stop(title: "A"), b = Stop(title: "B"), c = Stop(title: "C")
        trip.stops = [a, b]
        #expect(a.trip === trip && b.trip === trip)
        trip.stops = [b, c]
        #expect(a.trip == nil && b.trip === trip && c.trip === trip)
    }

    @Test("Many-to-many keeps both arrays in step")
    func manyToMany() {
        let lisbon = Trip(name: "Lisbon"), porto = Trip(name: "Porto")
        let food = Graph.Tag(name: "food"), sea = Graph.Tag(name: "sea")
        lisbon.tags = [food, sea]
        porto.tags.append(food)
        #expect(food.trips.map(\.name) == ["Lisbon", "Porto"])
        #expect(sea.trips.map(\.name) == ["Lisbon"])
        food.trips.removeAll { $0 === lisbon }
        #expect(lisbon.tags.map(\.name) == ["sea"])
    }

    @Test("One-to-one: setting one side sets the other and clears the old partner")
    func oneToOne() {
        let trip = Trip(name: "Lisbon")
        let hotel = Graph.Lodging(name: "Hotel"), flat = Graph.Lodging(name: "Flat")
        trip.lodging = hotel
        #expect(hotel.trip === trip)
        flat.trip = trip
        #expect(trip.lodging === flat)
        #expect(hotel.trip == nil)
    }

    @Test("Self-referential: manager and reports")
    func selfReferential() {
        let boss = Graph.Person(name: "Boss"), ann = Graph.Person(name: "Ann"), bob = Graph.Person(name: "Bob")
        ann.manager = boss
        boss.reports.append(bob)
        #expect(boss.reports.map(\.name) == ["Ann", "Bob"])
        #expect(bob.manager === boss)
        bob.manager = ann
        #expect(boss.reports.map(\.name) == ["Ann"] && ann.reports.map(\.name) == ["Bob"])
    }

    @Test("Two relationships to the same entity, each with its own inverse")
    func twoRelationshipsToOneEntity() {
        let lis = Graph.Airport(code: "LIS"), opo = Graph.Airport(code: "OPO")
        let flight = Graph.Flight(number: "TP1")
        flight.origin = lis
        flight.destination = opo
        #expect(lis.departures.map(\.number) == ["TP1"] && lis.arrivals.isEmpty)
        #expect(opo.arrivals.map(\.number) == ["TP1"] && opo.departures.isEmpty)
    }

    @Test("A to-many without inverse leaves its members alone")
    func noInverse() {
        let trip = Trip(name: "Lisbon")
        let expense = Graph.Expense(amount: 3)
        trip.expenses.append(expense)
        #expect(trip.expenses.count == 1)
    }

    @Test("Inverses are resolved as declared or inferred")
    func resolution() throws {
        let schema = Schema(Graph.models)
        let trip = try #require(schema.entity(named: "Trip"))
        #expect(trip.relationship(named: "stops")?.inverseName == "trip")
        #expect(trip.relationship(named: "stops")?.storage == .inverseForeignKey)
        #expect(schema.entity(named: "Stop")?.relationship(named: "trip")?.storage
            == .foreignKey(column: "trip", orderColumn: "_trip_order"))
        #expect(trip.relationship(named: "owner")?.inverseName == nil)
        #expect(trip.relationship(named: "tags")?.storage == .joinTable(name: "Tag.trips", isSource: false))
        #expect(trip.relationship(named: "expenses")?.storage == .joinTable(name: "Trip.expenses", isSource: true))
        // Inferred: Team.members ↔ Teammate.team, declared on neither side.
        #expect(schema.entity(named: "Team")?.relationship(named: "members")?.inverseName == "team")
        #expect(schema.entity(named: "Person")?.relationship(named: "manager")?.inverseName == "reports")
    }

    @Test("An inverse that does not point back is an error naming both sides")
    func badInverse() throws {
        let schema = Schema(entities: [
            Schema.Entity(name: "A", attributes: [], relationships: [
                Schema.Relationship(name: "b", destination: "B", isToMany: false, isOptional: true, inverseName: "x")
            ]),
            Schema.Entity(name: "B", attributes: []),
        ])
        #expect(throws: ModelStoreError.invalidSchema(
            reason: "the inverse of A.b is B.x, which is not a relationship to A")) {
            try schema.validate()
        }
    }
}
