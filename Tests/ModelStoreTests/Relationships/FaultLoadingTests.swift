import Foundation
import Testing
@testable import ModelStore

/// How a relationship fault reads its rows: the query each context keeps per
/// relationship and kind of holders, the link back to the holder, and the
/// array the property is given.
@Suite("Fault loading")
struct FaultLoadingTests {
    typealias Flight = Graph.Flight
    typealias Airport = Graph.Airport

    /// Saves airports "A", "B" and "C" and flights between them: "AB1",
    /// "AB2" (A to B), "BA1" (B to A), "CA1" (C to A).
    private func saveRoutes(_ container: ModelContainer) throws {
        let context = ModelContext(container)
        let airports = Dictionary(uniqueKeysWithValues: ["A", "B", "C"].map { ($0, Airport(code: $0)) })
        for airport in airports.values { context.insert(airport) }
        for number in ["AB1", "AB2", "BA1", "CA1"] {
            let flight = Flight(number: number)
            context.insert(flight)
            flight.origin = airports[String(number.first!)]
            flight.destination = airports[String(number.dropFirst().first!)]
        }
        try context.save()
    }

    /// A store with the routes saved, and a new context on it (the store is
    /// returned too: its folder lives as long as it does).
    private func routes() throws -> (store: TestStore, context: ModelContext) {
        let store = try TestStore()
        let container = try store.graphContainer()
        try saveRoutes(container)
        return (store, ModelContext(container))
    }

    private func airport(_ code: String, in context: ModelContext) throws -> Airport {
        try #require(try context.fetch(FetchDescriptor<Airport>(predicate: #Predicate { $0.code == code })).first)
    }

    @Test("Two to-manys of one entity fault in their own rows, one holder at a time or many")
    func queriesKeptPerRelationshipAndHolders() throws {
        let (store, context) = try routes()
        defer { withExtendedLifetime(store) {} }
        let a = try airport("A", in: context)
        // One context, both relationships to Flight, each fault after the
        // other's query was built: each must read its own column.
        #expect(a.departures.map(\.number).sorted() == ["AB1", "AB2"])
        #expect(a.arrivals.map(\.number).sorted() == ["BA1", "CA1"])
        let b = try airport("B", in: context)
        #expect(b.arrivals.map(\.number).sorted() == ["AB1", "AB2"])
        #expect(b.departures.map(\.number) == ["BA1"])
        // A prefetch for some holders (their keys bound as a list) after
        // faults of one holder each, in the same context.
        var others = FetchDescriptor<Airport>(predicate: #Predicate { $0.code == "C" })
        others.relationshipKeyPathsForPrefetching = [\.departures, \.arrivals]
        let c = try #require(try context.fetch(others).first)
        #expect(c.departures.map(\.number) == ["CA1"])
        #expect(c.arrivals.isEmpty)
        #expect(context.lastFaultError == nil)
    }

    @Test("A fault's objects link back to the holder that loaded them")
    func faultedObjectsLinkToHolder() throws {
        let (store, context) = try routes()
        defer { withExtendedLifetime(store) {} }
        let a = try airport("A", in: context)
        let departures = a.departures
        #expect(departures.count == 2)
        #expect(departures.allSatisfy { $0.origin === a })
        // The other end, not the holder, is a fault of its own or a
        // registered object: B was not fetched, so it loads on access.
        #expect(departures.allSatisfy { $0.destination?.code == "B" })
    }

    @Test("A holder of few read after a holder of many gets an array sized to its objects")
    func arraySizedToObjects() throws {
        let store = try TestStore()
        let container = try store.graphContainer()
        let writer = ModelContext(container)
        let many = Graph.Trip(name: "many")
        let few = Graph.Trip(name: "few")
        writer.insert(many)
        writer.insert(few)
        many.stops = (0..<300).map { Graph.Stop(title: "many.\($0)") }
        few.stops = [Graph.Stop(title: "few.0")]
        try writer.save()

        let context = ModelContext(container)
        let trips = try context.fetch(FetchDescriptor<Graph.Trip>(sortBy: [SortDescriptor(\.name, order: .reverse)]))
        #expect(trips.map(\.name) == ["many", "few"])
        #expect(trips[0].stops.map(\.title) == (0..<300).map { "many.\($0)" })
        let fewStops = trips[1].stops
        #expect(fewStops.map(\.title) == ["few.0"])
        // The fault after the big one starts with room for as many; what it
        // leaves unused must not stay with the property for its lifetime.
        #expect(fewStops.capacity < 64, "capacity \(fewStops.capacity)")
    }
}
