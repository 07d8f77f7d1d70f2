import Foundation
import Testing
@testable import ModelStore

/// Objects that outlive the context that fetched them still read what a live
/// context would (see ModelContext+Succession.swift), and everything is freed
/// once the app lets go of it.
@Suite("Objects outliving their context")
struct ObjectLifetimeTests {
    typealias Trip = Graph.Trip
    typealias Stop = Graph.Stop
    typealias Person = Graph.Person

    /// Paris: three stops in order, two tags (one shared with Rome), a
    /// lodging, and Bob as owner, whose manager Ann also manages Cy; a
    /// ticket for a flight, with Cy as passenger.
    private func saveTrips(_ container: ModelContainer) throws {
        let context = ModelContext(container)
        let ann = Person(name: "Ann")
        let bob = Person(name: "Bob")
        let cy = Person(name: "Cy")
        context.insert(ann)
        bob.manager = ann
        cy.manager = ann
        let paris = Trip(name: "Paris")
        context.insert(paris)
        paris.stops = [Stop(title: "Louvre"), Stop(title: "Orsay"), Stop(title: "Marais")]
        let food = Graph.Tag(name: "food")
        paris.tags = [Graph.Tag(name: "art"), food]
        paris.lodging = Graph.Lodging(name: "Hotel")
        paris.owner = bob
        let rome = Trip(name: "Rome")
        context.insert(rome)
        rome.tags = [food]
        let ticket = Graph.Ticket(code: "AF1", flight: Graph.Flight(number: "AF1"))
        context.insert(ticket)
        ticket.passenger = cy
        try context.save()
    }

    /// The shape the issue is about: a function that makes a context, fetches
    /// and returns the object; the context goes when the function returns.
    private func trip(named name: String, in container: ModelContainer) throws -> Trip? {
        let context = ModelContext(container)
        return try context.fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.name == name })).first
    }

    /// The context that loads for an object whose context went.
    private func successor(of model: any PersistentModel) -> ModelContext? {
        model._$modelState.owner as? ModelContext
    }

    @Test("A returned object reads every kind of relationship as a live context would", arguments: StoreKind.allCases)
    func everyKindLoads(kind: StoreKind) throws {
        let store = try TestStore(kind)
        let container = try store.graphContainer()
        try saveTrips(container)
        let paris = try #require(try trip(named: "Paris", in: container))
        #expect(paris.modelContext == nil)
        #expect(paris.stops.map(\.title) == ["Louvre", "Orsay", "Marais"], "an ordered to-many")
        #expect(paris.owner?.name == "Bob", "an optional to-one without inverse")
        #expect(paris.lodging?.name == "Hotel", "a to-one whose key is in the other row")
        #expect(paris.tags.map(\.name) == ["art", "food"], "a many-to-many")
        #expect(paris.tags[1].trips.map(\.name) == ["Paris", "Rome"], "and back")
        #expect(paris.owner?.manager?.name == "Ann", "self-referential")
        #expect(paris.owner?.manager?.reports.map(\.name) == ["Bob", "Cy"])
        // Within the objects alive, one row is one object.
        #expect(paris.stops[0].trip === paris)
        #expect(paris.tags[1].trips[0] === paris)
        #expect(paris.lodging?.trip === paris)
        #expect(paris.owner?.manager?.reports[0] === paris.owner)
        let ticket = try #require(
            try ModelContext(container).fetch(FetchDescriptor<Graph.Ticket>()).first, "its context goes at once")
        #expect(ticket.modelContext == nil)
        #expect(ticket.flight.number == "AF1", "a non-optional to-one")
        #expect(ticket.passenger.name == "Cy", "an implicitly unwrapped to-one")
        #expect(ticket.extras == [], "an optional to-many")
    }

    @Test("Relationships loaded or prefetched before the context went read the same objects after")
    func loadedBeforeTheContextWent() throws {
        let store = try TestStore()
        let container = try store.graphContainer()
        try saveTrips(container)
        let paris: Trip
        let held: [Stop]
        let prefetchedOnly: Trip
        do {
            let context = ModelContext(container)
            paris = try #require(try context.fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.name == "Paris" })).first)
            held = paris.stops
            #expect(paris.owner?.name == "Bob")
            #expect(held[0].trip === paris)
            var descriptor = FetchDescriptor<Trip>(predicate: #Predicate { $0.name == "Rome" })
            descriptor.relationshipKeyPathsForPrefetching = [\.tags, \.stops]
            prefetchedOnly = try #require(try context.fetch(descriptor).first)
        }
        #expect(paris.modelContext == nil)
        #expect(paris.stops.map(\.title) == ["Louvre", "Orsay", "Marais"])
        #expect(zip(paris.stops, held).allSatisfy { $0 === $1 }, "the objects the app holds")
        #expect(held[2].trip === paris)
        #expect(paris.owner?.name == "Bob")
        #expect(prefetchedOnly.tags.map(\.name) == ["food"])
        #expect(prefetchedOnly.stops.isEmpty)
        #expect(prefetchedOnly.tags[0].trips.map(\.name) == ["Paris", "Rome"])
    }

    @Test("Repeated reads give the same answer, and rows deleted elsewhere are left out when read again")
    func repeatedReads() throws {
        let store = try TestStore()
        let container = try store.graphContainer()
        try saveTrips(container)
        let paris = try #require(try trip(named: "Paris", in: container))
        #expect(paris.stops.map(\.title) == ["Louvre", "Orsay", "Marais"])
        // Another context moves a stop: the loaded list stays what it was, as
        // in a live context that loaded it.
        let other = ModelContext(container)
        let orsay = try #require(try other.fetch(FetchDescriptor<Stop>(predicate: #Predicate { $0.title == "Orsay" })).first)
        let rome = try #require(try other.fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.name == "Rome" })).first)
        orsay.trip = rome
        try other.save()
        #expect(paris.stops.map(\.title) == ["Louvre", "Orsay", "Marais"])
        other.delete(orsay)
        try other.save()
        #expect(paris.stops.map(\.title) == ["Louvre", "Marais"])
    }

    @Test("Objects the app let go of are freed, their context and its successor too")
    func everythingIsFreed() throws {
        let store = try TestStore()
        let container = try store.graphContainer()
        try saveTrips(container)
        weak var weakContext: ModelContext?
        weak var weakTrip: Trip?
        weak var weakStop: Stop?
        weak var weakTag: Graph.Tag?
        weak var weakOwner: Person?
        do {
            let context = ModelContext(container)
            weakContext = context
            var descriptor = FetchDescriptor<Trip>(predicate: #Predicate { $0.name == "Paris" })
            descriptor.relationshipKeyPathsForPrefetching = [\.tags, \.lodging]
            let paris = try #require(try context.fetch(descriptor).first)
            weakTrip = paris
            weakStop = paris.stops.first
            weakTag = paris.tags.first
            weakOwner = paris.owner?.manager?.reports.first
            #expect(weakStop?.trip === paris && weakTag?.trips.first === paris)
        }
        #expect(weakContext == nil)
        #expect(weakTrip == nil)
        #expect(weakStop == nil)
        #expect(weakTag == nil)
        #expect(weakOwner == nil)
        // An object that outlived its context, read through its successor.
        weak var weakSuccessor: ModelContext?
        do {
            let paris = try #require(try trip(named: "Paris", in: container))
            weakSuccessor = successor(of: paris)
            weakTrip = paris
            let stops = paris.stops
            weakStop = stops[0]
            #expect(stops[0].trip === paris)
            weakTag = paris.tags[1]
            #expect(paris.tags[1].trips.first === paris)
            weakOwner = paris.owner?.manager
            #expect(paris.owner?.manager?.reports.count == 2)
            #expect(weakSuccessor != nil)
        }
        #expect(weakTrip == nil)
        #expect(weakStop == nil)
        #expect(weakTag == nil)
        #expect(weakOwner == nil)
        #expect(weakSuccessor == nil)
    }

    @Test("Objects a save deleted (a cascade) that the app still held are freed once it lets go, and no successor keeps the store open")
    func deletedObjectsAreFreed() throws {
        let store = try TestStore()
        let container = try store.graphContainer()
        try saveTrips(container)
        weak var weakTrip: Trip?
        weak var weakStop: Stop?
        weak var weakContext: ModelContext?
        var keptObjects: [AnyObject] = []
        do {
            let context = ModelContext(container)
            weakContext = context
            let paris = try #require(try context.fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.name == "Paris" })).first)
            let stops = paris.stops
            #expect(stops.first?.trip === paris)
            context.delete(paris)  // cascades to its stops
            try context.save()
            weakTrip = paris
            weakStop = stops.first
            // The app still holds the deleted objects when the context goes.
            keptObjects = [paris] + stops
        }
        #expect(weakContext == nil)
        #expect(weakTrip != nil && !keptObjects.isEmpty)
        keptObjects.removeAll()
        #expect(weakTrip == nil, "the deleted trip and the stops its cascade deleted must not keep each other alive")
        #expect(weakStop == nil)
    }

    @Test("A self-referential ring reads round after its context went, and is freed after")
    func ring() throws {
        let store = try TestStore()
        let container = try store.graphContainer()
        let writer = ModelContext(container)
        let nodes = ["a", "b", "c"].map { Graph.Node(label: $0) }
        nodes.forEach(writer.insert)
        for index in nodes.indices { nodes[index].next = nodes[(index + 1) % nodes.count] }
        try writer.save()
        weak var weakNode: Graph.Node?
        weak var weakNext: Graph.Node?
        do {
            let context = ModelContext(container)
            let fetched = try context.fetch(FetchDescriptor<Graph.Node>(sortBy: [SortDescriptor(\.label)]))
            #expect(fetched.map { $0.next?.label } == ["b", "c", "a"])
            #expect(fetched.map { $0.previous?.label } == ["c", "a", "b"])
            (weakNode, weakNext) = (fetched[0], fetched[1])
        }
        #expect(weakNode == nil && weakNext == nil)
        do {
            let a = try #require(
                try ModelContext(container).fetch(FetchDescriptor<Graph.Node>(predicate: #Predicate { $0.label == "a" })).first)
            #expect(a.next?.next?.next === a)
            #expect(a.previous?.previous?.label == "b")
            weakNode = a
            weakNext = a.next
        }
        #expect(weakNode == nil && weakNext == nil)
    }

    @Test("A context dropped with unsaved changes discards them and frees what it held")
    func pendingChangesAreDiscarded() throws {
        let store = try TestStore()
        let container = try store.graphContainer()
        try saveTrips(container)
        weak var weakContext: ModelContext?
        weak var weakNewTrip: Trip?
        weak var weakNewStop: Stop?
        weak var weakRome: Trip?
        let paris: Trip
        let oslo: Trip
        do {
            let context = ModelContext(container)
            weakContext = context
            paris = try #require(try context.fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.name == "Paris" })).first)
            paris.name = "Paname"
            paris.stops.removeFirst()
            // New objects that hold each other, and a saved one they hold.
            let newTrip = Trip(name: "Lyon")
            context.insert(newTrip)
            newTrip.stops = [Stop(title: "Fourvière")]
            newTrip.owner = paris.owner
            (weakNewTrip, weakNewStop) = (newTrip, newTrip.stops.first)
            oslo = Trip(name: "Oslo")
            context.insert(oslo)
            oslo.stops = [Stop(title: "Fjord")]
            let rome = try #require(try context.fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.name == "Rome" })).first)
            weakRome = rome
            context.delete(rome)
            #expect(context.hasChanges)
        }
        #expect(weakContext == nil)
        #expect(weakNewTrip == nil)
        #expect(weakNewStop == nil)
        #expect(weakRome == nil)
        // As rollback() does: saved values back, the insertion undone.
        #expect(paris.name == "Paris")
        #expect(paris.stops.map(\.title) == ["Louvre", "Orsay", "Marais"])
        #expect(!paris.hasChanges)
        #expect(oslo.modelContext == nil)
        #expect(!oslo.hasChanges)
        #expect(oslo.name == "Oslo")
        #expect(oslo.stops.isEmpty, "a discarded insertion is related to nothing")
        let check = ModelContext(container)
        #expect(try check.fetchCount(FetchDescriptor<Trip>()) == 2)
        #expect(try check.fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.name == "Paris" })).first?.stops.count == 3)
    }

    @Test("Objects read through a successor outlive it: a successor of their own loads for them")
    func successorsChain() throws {
        let store = try TestStore()
        let container = try store.graphContainer()
        try saveTrips(container)
        weak var first: ModelContext?
        weak var second: ModelContext?
        var orsay: Stop?
        do {
            let paris = try #require(try trip(named: "Paris", in: container))
            first = successor(of: paris)
            orsay = paris.stops[1]
        }
        #expect(first == nil, "it went with the last object of the context it succeeded")
        let stop = try #require(orsay)
        second = successor(of: stop)
        #expect(second != nil)
        #expect(stop.trip?.name == "Paris")
        #expect(stop.trip?.stops[1] === stop)
        orsay = nil
        _ = consume stop
        #expect(second == nil)
    }

    @Test("Changes of related objects read after the context went are forwarded as in a live context")
    func forwardingAfterTheContextWent() throws {
        let store = try TestStore()
        let container = try store.graphContainer()
        try saveExpenses(container)
        let paris = try #require(try trip(named: "Paris", in: container))
        let expense = try #require(paris.expenses.first)
        var changes: [ModelChange] = []
        let subscription = paris.objectWillChange.sink { changes.append($0) }
        expense.amount = 5
        #expect(changes.map(\.relationshipPath) == [[\Trip.expenses]])
        subscription.cancel()
    }

    @Test("Attributes a partial fetch left out load after the context went")
    func unfetchedAttributes() throws {
        let store = try TestStore()
        let container = try store.containerWithSavedTrips(2)
        let trips: [ModelStoreTests.Trip]
        do {
            var descriptor = FetchDescriptor<ModelStoreTests.Trip>(sortBy: [SortDescriptor(\.name)])
            descriptor.propertiesToFetch = [\.name]
            trips = try ModelContext(container).fetch(descriptor)
        }
        #expect(trips.map(\.destination) == ["Portugal", "Portugal"])
        #expect(trips.allSatisfy { $0.modelContext == nil })
    }

    @Test("Changes to an object whose context went stay in memory; a live context saves them", .opensStoreFile)
    func changesAfterTheContextWent() throws {
        let store = try TestStore()
        let container = try store.graphContainer()
        try saveTrips(container)
        let paris = try #require(try trip(named: "Paris", in: container))
        paris.name = "Paname"
        #expect(paris.name == "Paname")
        #expect(!paris.hasChanges, "nobody can save it")
        #expect(paris.modelContext == nil)
        // A relationship written keeps the value written.
        let eiffel = Stop(title: "Eiffel")
        paris.stops.append(eiffel)
        #expect(paris.stops.map(\.title) == ["Louvre", "Orsay", "Marais", "Eiffel"])
        #expect(eiffel.trip === paris)
        #expect(eiffel.modelContext == nil, "nothing is inserted")
        paris.owner = nil
        #expect(paris.owner == nil)
        // The store is as it was; a live context fetches the row and saves.
        let context = ModelContext(container)
        let live = try #require(try context.model(for: paris.persistentModelID, as: Trip.self))
        #expect(live !== paris)
        #expect(live.name == "Paris" && live.stops.count == 3 && live.owner?.name == "Bob")
        live.name = "Paname"
        try context.save()
        #expect(try trip(named: "Paname", in: container)?.stops.count == 3)
        // Break the cycle the app made between two objects of its own.
        paris.stops.removeLast()
    }

    // MARK: Loads that fail

    /// Runs raw SQL on the store's file, as an operator with the sqlite3 shell would.
    private func rawSQL(_ store: TestStore, _ sql: String) throws {
        let connection = try Connection(location: store.url.path, mode: .create)
        try connection.execute(sql)
    }

    private func saveExpenses(_ container: ModelContainer) throws {
        let context = ModelContext(container)
        let trip = Trip(name: "Paris")
        context.insert(trip)
        trip.expenses = [Graph.Expense(amount: 1), Graph.Expense(amount: 2)]
        try context.save()
    }

    @Test("A relationship that cannot be loaded reads empty, is reported, is thrown by loadedValue, and loads once it can", .opensStoreFile)
    func failedRelationshipLoad() throws {
        let store = try TestStore()
        let container = try store.graphContainer()
        try saveExpenses(container)
        try rawSQL(store, #"UPDATE "Expense" SET "amount" = 'lots'"#)
        let context = ModelContext(container)
        let paris = try #require(try context.fetch(FetchDescriptor<Trip>()).first)
        #expect(paris.expenses.isEmpty, "a getter cannot throw")
        let reported = try #require(context.lastFaultError as? ModelStoreError)
        guard case .invalidValue(let entity, let property, _, _, _) = reported else {
            Issue.record("unexpected \(reported)")
            return
        }
        #expect(entity == "Expense" && property == "amount")
        #expect(throws: ModelStoreError.self) { try paris.loadedValue(of: \.expenses) }
        // An object whose context went reports the same way.
        let orphan = try #require(try trip(named: "Paris", in: container))
        #expect(throws: ModelStoreError.self) { try orphan.loadedValue(of: \.expenses) }
        // Still unloaded: the next read tries again.
        try rawSQL(store, #"UPDATE "Expense" SET "amount" = 3"#)
        #expect(paris.expenses.map(\.amount) == [3, 3])
        #expect(try orphan.loadedValue(of: \.expenses).map(\.amount) == [3, 3])
        #expect(try paris.loadedValue(of: \.name) == "Paris")
    }

    @Test("model(for:) that cannot read the row says so in lastFaultError", .opensStoreFile)
    func failedModelLookup() throws {
        let store = try TestStore()
        let container = try store.graphContainer()
        try saveExpenses(container)
        let identifier = try #require(try ModelContext(container).fetch(FetchDescriptor<Graph.Expense>()).first)
            .persistentModelID
        try rawSQL(store, #"UPDATE "Expense" SET "amount" = 'lots'"#)
        let context = ModelContext(container)
        #expect(context.model(for: identifier) == nil)
        #expect(context.lastFaultError != nil)
        #expect(throws: ModelStoreError.self) { try context.model(for: identifier, as: Graph.Expense.self) }
    }

    @Test("A write after a failed load keeps the value written", .opensStoreFile)
    func writeAfterFailedLoad() throws {
        let store = try TestStore()
        let container = try store.graphContainer()
        try saveExpenses(container)
        try rawSQL(store, #"UPDATE "Expense" SET "amount" = 'lots'"#)
        let context = ModelContext(container)
        let paris = try #require(try context.fetch(FetchDescriptor<Trip>()).first)
        paris.expenses = [Graph.Expense(amount: 9)]
        #expect(context.lastFaultError != nil)
        try rawSQL(store, #"UPDATE "Expense" SET "amount" = 3"#)
        #expect(paris.expenses.map(\.amount) == [9], "not the stored rows, read again over the write")
    }

    @Test("A to-one that two rows claim is reported, not read as nil", .opensStoreFile, arguments: [false, true])
    func toOneClaimedTwice(prefetching: Bool) throws {
        let store = try TestStore()
        let container = try store.graphContainer()
        let writer = ModelContext(container)
        let paris = Trip(name: "Paris")
        writer.insert(paris)
        paris.lodging = Graph.Lodging(name: "Hotel")
        writer.insert(Graph.Lodging(name: "Hostel"))
        try writer.save()
        try rawSQL(store, #"UPDATE "Lodging" SET "trip" = (SELECT "_pk" FROM "Trip")"#)
        let context = ModelContext(container)
        var descriptor = FetchDescriptor<Trip>()
        if prefetching { descriptor.relationshipKeyPathsForPrefetching = [\.lodging] }
        let trip = try #require(try context.fetch(descriptor).first)
        #expect(trip.lodging == nil)
        #expect(context.lastFaultError != nil)
        #expect(throws: ModelStoreError.self) { try trip.loadedValue(of: \.lodging) }
        try rawSQL(store, #"UPDATE "Lodging" SET "trip" = NULL WHERE "name" = 'Hostel'"#)
        #expect(trip.lodging?.name == "Hotel")
    }

    @Test("A fetch that fails on a late row gives back the identity-map counts it took for the objects it made before", .opensStoreFile)
    func failedFetchFreesItsObjects() throws {
        let store = try TestStore()
        let container = try store.container()
        let writer = ModelContext(container)
        for index in 0..<500 {
            let row = AllTypes()
            row.string = "row \(index)"
            writer.insert(row)
        }
        try writer.save()
        // The last row in key order cannot be read: the fetch makes 489
        // objects (an entity without relationships registers them once all
        // rows are read) and then fails.
        try rawSQL(store, #"UPDATE "AllTypes" SET "double" = 'lots' WHERE "_pk" = (SELECT max("_pk") FROM "AllTypes")"#)
        let context = ModelContext(container)
        // Ten objects registered already: the failing fetch reuses them,
        // and must give back only what it took for the ones it made.
        var firstTen = FetchDescriptor<AllTypes>(sortBy: [SortDescriptor(\.string)])
        firstTen.fetchLimit = 10
        let kept = try context.fetch(firstTen)
        #expect(kept.count == 10)
        #expect(throws: ModelStoreError.self) { try context.fetch(FetchDescriptor<AllTypes>()) }
        // Each new object's identity-map entry is prepared as the object is
        // made (an unowned count, which keeps the object's memory allocated
        // after it is freed); the failed fetch must give back every one.
        let table = try #require(context.store.table(for: AllTypes.self))
        let registry = try #require(context.existingRegistry(for: table))
        #expect(registry.preparedEntries == 0)
        #expect(registry.count == 10, "the objects registered before, and no other")
        context._checkIdentityMap()
        for object in kept { #expect(context.registeredModel(for: object.persistentModelID) as AllTypes? === object) }
        // The same context fetches once the row can be read.
        try rawSQL(store, #"UPDATE "AllTypes" SET "double" = 1.5"#)
        #expect(try context.fetch(FetchDescriptor<AllTypes>()).count == 500)
        #expect(registry.preparedEntries == 0)
    }

    @Test("An attribute a partial fetch left out that cannot be read is reported and read again later", .opensStoreFile)
    func failedAttributeLoad() throws {
        let store = try TestStore()
        let container = try store.container()
        let writer = ModelContext(container)
        let saved = AllTypes()
        saved.double = 1.5
        writer.insert(saved)
        try writer.save()
        try rawSQL(store, #"UPDATE "AllTypes" SET "double" = 'lots'"#)
        let context = ModelContext(container)
        var descriptor = FetchDescriptor<AllTypes>()
        descriptor.propertiesToFetch = [\.bool]
        let object = try #require(try context.fetch(descriptor).first)
        #expect(object.double == 0, "the placeholder: a getter cannot throw")
        #expect(context.lastFaultError != nil)
        #expect(throws: ModelStoreError.self) { try object.loadedValue(of: \.double) }
        try rawSQL(store, #"UPDATE "AllTypes" SET "double" = 2.5"#)
        #expect(object.double == 2.5, "tried again")
    }
}
