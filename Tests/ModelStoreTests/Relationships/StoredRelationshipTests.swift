import Foundation
import Testing
@testable import ModelStore

/// Relationships saved, reloaded in a fresh context, loaded lazily and prefetched.
@Suite("Stored relationships")
struct StoredRelationshipTests {
    typealias Trip = Graph.Trip
    typealias Stop = Graph.Stop

    /// Saves a trip with three stops, two tags, a lodging and an owner.
    private func savedTrip(_ container: ModelContainer) throws {
        let context = ModelContext(container)
        let trip = Trip(name: "Lisbon")
        context.insert(trip)
        trip.stops = [Stop(title: "C"), Stop(title: "A"), Stop(title: "B")]
        trip.tags = [Graph.Tag(name: "sea"), Graph.Tag(name: "food")]
        trip.lodging = Graph.Lodging(name: "Hotel")
        trip.owner = Graph.Person(name: "Ann")
        try context.save()
    }

    /// A context's objects load their relationships through it, so tests
    /// keep the context for as long as they use the objects.
    private func fetchTrips(_ context: ModelContext, prefetching: [PartialKeyPath<Trip>] = []) throws -> [Trip] {
        var descriptor = FetchDescriptor<Trip>()
        descriptor.relationshipKeyPathsForPrefetching = prefetching
        return try context.fetch(descriptor)
    }

    @Test("Inserting a parent inserts what it reaches; everything round-trips", arguments: StoreKind.allCases)
    func roundTrip(kind: StoreKind) throws {
        let store = try TestStore(kind)
        let container = try store.graphContainer()
        try savedTrip(container)
        let context = ModelContext(container)
        let trips = try fetchTrips(context)
        let trip = try #require(trips.first)
        #expect(trip.stops.map(\.title) == ["C", "A", "B"])
        #expect(trip.tags.map(\.name) == ["sea", "food"])
        #expect(trip.lodging?.name == "Hotel")
        #expect(trip.owner?.name == "Ann")
        #expect(trip.stops.allSatisfy { $0.trip === trip })
        #expect(trip.tags.allSatisfy { $0.trips.first === trip })
    }

    @Test("To-many order survives reordering, saving and reloading, on both sides of a many-to-many")
    func order() throws {
        let store = try TestStore()
        let container = try store.graphContainer()
        try savedTrip(container)
        do {
            let context = ModelContext(container)
            let trips = try fetchTrips(context)
            let trip = try #require(trips.first)
            trip.stops.reverse()
            trip.tags.swapAt(0, 1)
            let extra = Trip(name: "Porto")
            context.insert(extra)
            extra.tags = trip.tags.reversed()
            try context.save()
        }
        let context = ModelContext(container)
            let trips = try fetchTrips(context)
        let lisbon = try #require(trips.first { $0.name == "Lisbon" })
        #expect(lisbon.stops.map(\.title) == ["B", "A", "C"])
        #expect(lisbon.tags.map(\.name) == ["food", "sea"])
        let food = try #require(try context.fetch(FetchDescriptor<Graph.Tag>()).first { $0.name == "food" })
        #expect(food.trips.map(\.name) == ["Lisbon", "Porto"])
    }

    @Test("Moving a stop between saved trips is saved for all three objects")
    func moveSaved() throws {
        let store = try TestStore()
        let container = try store.graphContainer()
        try savedTrip(container)
        do {
            let context = ModelContext(container)
            let trips = try fetchTrips(context)
            let porto = Trip(name: "Porto")
            context.insert(porto)
            porto.stops.append(trips[0].stops[1])
            try context.save()
        }
        let context = ModelContext(container)
        let trips = try fetchTrips(context)
        #expect(trips.first { $0.name == "Lisbon" }?.stops.map(\.title) == ["C", "B"])
        #expect(trips.first { $0.name == "Porto" }?.stops.map(\.title) == ["A"])
    }

    @Test("Fetching loads no relationship; each to-many costs one query; a to-one already registered costs none")
    func faulting() throws {
        let store = try TestStore()
        let container = try store.graphContainer()
        try savedTrip(container)
        let context = ModelContext(container)
        let counter = try StatementCounter(context)
        let trips = try context.fetch(FetchDescriptor<Trip>())
        #expect(counter.count == 1)
        counter.reset()
        let stops = trips[0].stops
        #expect(stops.count == 3)
        #expect(counter.count == 1)
        counter.reset()
        // The stops' to-one is the registered trip: no query.
        #expect(stops.allSatisfy { $0.trip === trips[0] })
        _ = trips[0].stops
        #expect(counter.count == 0)
        // A to-one whose object is not registered: one query.
        _ = trips[0].owner?.name
        #expect(counter.count == 1)
    }

    @Test("Prefetching loads each named relationship for the whole result in one query")
    func prefetching() throws {
        let store = try TestStore()
        let container = try store.graphContainer()
        for _ in 0..<5 { try savedTrip(container) }
        let context = ModelContext(container)
        let counter = try StatementCounter(context)
        var descriptor = FetchDescriptor<Trip>()
        descriptor.relationshipKeyPathsForPrefetching = [\.stops, \.tags, \.owner, \.lodging]
        let trips = try context.fetch(descriptor)
        #expect(trips.count == 5)
        #expect(counter.count == 5)
        counter.reset()
        for trip in trips {
            #expect(trip.stops.map(\.title) == ["C", "A", "B"])
            #expect(trip.tags.map(\.name) == ["sea", "food"])
            #expect(trip.owner?.name == "Ann")
            #expect(trip.lodging?.name == "Hotel")
        }
        #expect(counter.count == 0)
    }

    @Test("Prefetched objects deleted before the relationship is first read are not in it")
    func prefetchedThenDeleted() throws {
        let store = try TestStore()
        let container = try store.graphContainer()
        try savedTrip(container)
        let context = ModelContext(container)
        var descriptor = FetchDescriptor<Trip>()
        descriptor.relationshipKeyPathsForPrefetching = [\.stops]
        let trip = try #require(try context.fetch(descriptor).first)
        let stop = try #require(try context.fetch(FetchDescriptor<Stop>()).first { $0.title == "A" })
        context.delete(stop)
        try context.save()
        #expect(trip.stops.map(\.title) == ["C", "B"])
    }

    @Test("Prefetched relationships do not keep a graph alive after its context goes")
    func prefetchedGraphIsFreed() throws {
        let store = try TestStore()
        let container = try store.graphContainer()
        try savedTrip(container)
        weak var weakTrip: Trip?
        weak var weakStop: Stop?
        do {
            let context = ModelContext(container)
            var descriptor = FetchDescriptor<Trip>()
            descriptor.relationshipKeyPathsForPrefetching = [\.stops]
            let trip = try #require(try context.fetch(descriptor).first)
            weakTrip = trip
            weakStop = try context.fetch(FetchDescriptor<Stop>()).first
            #expect(weakStop?.trip === trip)
        }
        #expect(weakTrip == nil)
        #expect(weakStop == nil)
    }

    @Test("A prefetch key path that is not a relationship is an error naming it")
    func prefetchAttribute() throws {
        let store = try TestStore()
        let context = ModelContext(try store.graphContainer())
        context.insert(Trip(name: "Lisbon"))
        try context.save()
        var descriptor = FetchDescriptor<Trip>()
        descriptor.relationshipKeyPathsForPrefetching = [\.name]
        #expect(throws: ModelStoreError.self) { try context.fetch(descriptor) }
    }

    @Test("An optional to-one whose row was deleted elsewhere reads nil")
    func deletedElsewhere() throws {
        let store = try TestStore()
        let container = try store.graphContainer()
        try savedTrip(container)
        let reader = ModelContext(container)
        let stops = try reader.fetch(FetchDescriptor<Stop>())
        // Another context deletes the trip (cascading to its stops in the store).
        let writer = ModelContext(container)
        for trip in try writer.fetch(FetchDescriptor<Trip>()) { writer.delete(trip) }
        try writer.save()
        #expect(stops[0].trip == nil)
        #expect(reader.lastFaultError == nil)
    }

    @Test("Non-optional to-one and optional to-many")
    func requiredToOne() throws {
        let store = try TestStore()
        let container = try store.graphContainer()
        do {
            let context = ModelContext(container)
            let ticket = Graph.Ticket(code: "A1", flight: Graph.Flight(number: "TP1"))
            ticket.extras?.append(Graph.Expense(amount: 5))
            ticket.passenger = Graph.Person(name: "Ann")
            context.insert(ticket)
            try context.save()
        }
        let context = ModelContext(container)
        let ticket = try #require(try context.fetch(FetchDescriptor<Graph.Ticket>()).first)
        #expect(ticket.flight.number == "TP1")
        #expect(ticket.extras?.map(\.amount) == [5])
        #expect(ticket.passenger.name == "Ann")
    }

    @Test("A graph built before any insert is inserted whole with its root")
    func detachedGraph() throws {
        let store = try TestStore()
        let container = try store.graphContainer()
        let trip = Trip(name: "Lisbon")
        trip.stops = [Stop(title: "A"), Stop(title: "B")]
        trip.tags = [Graph.Tag(name: "sea")]
        trip.lodging = Graph.Lodging(name: "Hotel")
        let context = ModelContext(container)
        context.insert(trip)
        #expect(context.insertedModelsArray.count == 5)
        try context.save()
        let reader = ModelContext(container)
        let reloaded = try #require(try reader.fetch(FetchDescriptor<Trip>()).first)
        #expect(reloaded.stops.map(\.title) == ["A", "B"])
        #expect(reloaded.tags.first?.trips.first === reloaded)
        #expect(reloaded.lodging?.trip === reloaded)
    }

    @Test("Relating a new object to a saved one inserts it")
    func relatingInserts() throws {
        let store = try TestStore()
        let container = try store.graphContainer()
        try savedTrip(container)
        let context = ModelContext(container)
        let trip = try #require(try fetchTrips(context).first)
        let stop = Stop(title: "D")
        stop.trip = trip
        #expect(stop.modelContext === context)
        try context.save()
        let reader = ModelContext(container)
        #expect(try fetchTrips(reader).first?.stops.map(\.title) == ["C", "A", "B", "D"])
    }

    @Test("Saving a parent and a child inserted in either order, cycles included")
    func insertOrder() throws {
        let store = try TestStore()
        let container = try store.graphContainer()
        do {
            let context = ModelContext(container)
            let a = Graph.Node(label: "a"), b = Graph.Node(label: "b"), c = Graph.Node(label: "c")
            context.insert(c)
            a.next = b
            b.next = c
            c.next = a
            try context.save()
        }
        let context = ModelContext(container)
        let nodes = try context.fetch(FetchDescriptor<Graph.Node>())
        let a = try #require(nodes.first { $0.label == "a" })
        #expect(a.next?.next?.next === a)
        #expect(a.previous?.label == "c")
    }

    @Test("Objects of a released graph are freed")
    func noLeaks() throws {
        let store = try TestStore()
        let container = try store.graphContainer()
        try savedTrip(container)
        weak var weakTrip: Trip?
        weak var weakStop: Stop?
        do {
            let context = ModelContext(container)
            let trips = try fetchTrips(context, prefetching: [\.stops, \.tags])
            #expect(trips.count == 1)
            let trip = try #require(trips.first)
            weakTrip = trip
            let firstStop = trip.stops.first
            #expect(firstStop != nil)
            weakStop = firstStop
            #expect(weakStop?.trip === weakTrip)
        }
        // Parents and children refer to each other; the context lets them go.
        #expect(weakTrip == nil)
        #expect(weakStop == nil)
    }

    @Test("Changed relationships are listed with the changed properties")
    func changedNames() throws {
        let store = try TestStore()
        let container = try store.graphContainer()
        try savedTrip(container)
        let context = ModelContext(container)
        let trip = try #require(try fetchTrips(context).first)
        trip.stops.removeLast()
        trip.name = "Lisboa"
        #expect(context.changedPropertyNames(of: trip) == ["name", "stops"])
    }

    @Test("An upsert of a unique value keeps the existing row's relationships")
    func upsertKeepsLinks() throws {
        let store = try TestStore()
        let container = try store.graphContainer()
        do {
            let context = ModelContext(container)
            let flight = Graph.Flight(number: "TP1")
            flight.origin = Graph.Airport(code: "LIS")
            context.insert(flight)
            try context.save()
            context.insert(Graph.Airport(code: "LIS"))
            try context.save()
        }
        let reader = ModelContext(container)
        let airports = try reader.fetch(FetchDescriptor<Graph.Airport>())
        #expect(airports.count == 1)
        #expect(airports.first?.departures.map(\.number) == ["TP1"])
    }

    @Test("Rollback restores relationships and drops the new related objects")
    func rollback() throws {
        let store = try TestStore()
        let container = try store.graphContainer()
        try savedTrip(container)
        let context = ModelContext(container)
        let trip = try #require(try fetchTrips(context).first)
        let stop = Stop(title: "D")
        trip.stops.append(stop)
        trip.stops.removeFirst()
        context.rollback()
        #expect(trip.stops.map(\.title) == ["C", "A", "B"])
        #expect(stop.modelContext == nil)
        #expect(!context.hasChanges)
    }

    @Test("Observers of a to-many are told when it changes, also through the inverse")
    func observation() throws {
        let trip = Trip(name: "Lisbon")
        let flag = Flag()
        withObservationTracking {
            _ = trip.stops
        } onChange: {
            flag.set()
        }
        _ = Stop(title: "A", trip: trip)
        #expect(flag.value)
    }

    @Test("A hand-edited row whose non-optional to-one is NULL is an error naming the property, not a crash", .opensStoreFile)
    func nullRequiredToOne() throws {
        let store = try TestStore()
        let container = try store.graphContainer()
        do {
            let context = ModelContext(container)
            context.insert(Graph.Ticket(code: "A1", flight: Graph.Flight(number: "TP1")))
            try context.save()
        }
        let operator_ = try Connection(location: store.url.path, mode: .readWrite)
        try operator_.execute(#"UPDATE "Ticket" SET "flight" = NULL"#)
        let context = ModelContext(container)
        #expect(throws: ModelStoreError.invalidValue(
            entity: "Ticket", property: "flight", row: 1,
            reason: "a non-optional relationship has no related object", path: store.url.path)) {
            try context.fetch(FetchDescriptor<Graph.Ticket>())
        }
    }

    @Test("An operator cannot leave a dangling reference: SQLite refuses it", .opensStoreFile)
    func foreignKeysEnforced() throws {
        let store = try TestStore()
        let container = try store.graphContainer()
        try savedTrip(container)
        let operator_ = try Connection(location: store.url.path, mode: .readWrite)
        #expect(throws: SQLiteError.self) {
            try operator_.execute(#"UPDATE "Stop" SET "trip" = 999"#)
        }
    }
}
