import Foundation
import Testing
@testable import ModelStore

/// How a prefetch finds the rows of its holders: the query's shape, holders
/// that share a key, holders that are not faults, rows nobody holds.
@Suite("Prefetching")
struct PrefetchTests {
    typealias Trip = Graph.Trip
    typealias Stop = Graph.Stop

    /// Saves trips named "T0"… with `stops[i]` stops each ("T0.0"…), all
    /// owned by one person; the first trip is tagged "sea" and "food".
    private func save(_ container: ModelContainer, stops: [Int]) throws {
        let context = ModelContext(container)
        let owner = Graph.Person(name: "Ann")
        for (i, count) in stops.enumerated() {
            let trip = Trip(name: "T\(i)")
            context.insert(trip)
            trip.owner = owner
            trip.stops = (0..<count).map { Stop(title: "T\(i).\($0)") }
            if i == 0 { trip.tags = [Graph.Tag(name: "sea"), Graph.Tag(name: "food")] }
        }
        try context.save()
    }

    private func sortedByName(_ trips: [Trip]) -> [Trip] { trips.sorted { $0.name < $1.name } }

    @Test("After a fetch of every row, a to-many's prefetch names no keys; after a filtered fetch it does")
    func queryShape() throws {
        let store = try TestStore()
        let container = try store.graphContainer()
        try save(container, stops: [3, 0, 2])
        let context = ModelContext(container)
        let counter = try StatementCounter(context)
        var descriptor = FetchDescriptor<Trip>()
        descriptor.relationshipKeyPathsForPrefetching = [\.stops, \.owner, \.tags]
        let trips = sortedByName(try context.fetch(descriptor))
        let stopsQuery = try #require(counter.statements.first { $0.contains("FROM \"Stop\"") })
        #expect(!stopsQuery.contains("json_each") && stopsQuery.contains("IS NOT NULL"), "\(stopsQuery)")
        let tagsQuery = try #require(counter.statements.first { $0.contains("FROM \"Tag\"") })
        #expect(!tagsQuery.contains("json_each"), "a join table's links are read whole too: \(tagsQuery)")
        let ownerQuery = try #require(counter.statements.first { $0.contains("FROM \"Person\"") })
        #expect(ownerQuery.contains("json_each"), "a to-one in the holder's row is found by key: \(ownerQuery)")
        counter.reset()
        #expect(trips.map { $0.stops.map(\.title) } == [["T0.0", "T0.1", "T0.2"], [], ["T2.0", "T2.1"]])
        #expect(trips.allSatisfy { $0.owner?.name == "Ann" })
        #expect(trips.map { $0.tags.map(\.name) } == [["sea", "food"], [], []])
        #expect(counter.count == 0, "a trip without stops resolves without a query: \(counter.statements)")

        let filtered = ModelContext(container)
        let filteredCounter = try StatementCounter(filtered)
        var some = FetchDescriptor<Trip>(predicate: #Predicate { $0.name != "T1" })
        some.relationshipKeyPathsForPrefetching = [\.stops]
        let found = sortedByName(try filtered.fetch(some))
        let keyedQuery = try #require(filteredCounter.statements.first { $0.contains("FROM \"Stop\"") })
        #expect(keyedQuery.contains("json_each"), "\(keyedQuery)")
        #expect(found.map { $0.stops.map(\.title) } == [["T0.0", "T0.1", "T0.2"], ["T2.0", "T2.1"]])
    }

    @Test("A prefetch for a whole table leaves loaded relationships and their unsaved changes alone")
    func loadedHoldersKeepTheirValue() throws {
        let store = try TestStore()
        let container = try store.graphContainer()
        try save(container, stops: [2, 1, 1, 1])
        let context = ModelContext(container)
        let first = try #require(try context.fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.name == "T0" })).first)
        first.stops.append(Stop(title: "unsaved"))
        let unsavedTrip = Trip(name: "T9")
        context.insert(unsavedTrip)
        var descriptor = FetchDescriptor<Trip>()
        descriptor.relationshipKeyPathsForPrefetching = [\.stops]
        let trips = sortedByName(try context.fetch(descriptor))
        #expect(trips.map(\.name) == ["T0", "T1", "T2", "T3", "T9"])
        #expect(trips[0] === first)
        #expect(trips.map { $0.stops.map(\.title) } == [["T0.0", "T0.1", "unsaved"], ["T1.0"], ["T2.0"], ["T3.0"], []])
    }

    @Test("When most results are loaded already, the prefetch names the few keys it needs")
    func fewFaults() throws {
        let store = try TestStore()
        let container = try store.graphContainer()
        try save(container, stops: [1, 1, 1, 1])
        let context = ModelContext(container)
        let loaded = try context.fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.name != "T3" }))
        #expect(loaded.allSatisfy { $0.stops.count == 1 })
        let counter = try StatementCounter(context)
        var descriptor = FetchDescriptor<Trip>()
        descriptor.relationshipKeyPathsForPrefetching = [\.stops]
        let trips = sortedByName(try context.fetch(descriptor))
        let stopsQuery = try #require(counter.statements.first { $0.contains("FROM \"Stop\"") })
        #expect(stopsQuery.contains("json_each"), "\(stopsQuery)")
        #expect(trips[3].stops.map(\.title) == ["T3.0"])
    }

    @Test("Objects that hold the same to-one all receive it from one prefetch")
    func sharedToOne() throws {
        let store = try TestStore()
        let container = try store.graphContainer()
        try save(container, stops: [3, 2])
        let context = ModelContext(container)
        var descriptor = FetchDescriptor<Stop>()
        descriptor.relationshipKeyPathsForPrefetching = [\.trip]
        let stops = try context.fetch(descriptor)
        let counter = try StatementCounter(context)
        #expect(stops.count == 5)
        for stop in stops {
            #expect(stop.trip?.name == "T" + stop.title.prefix(2).dropFirst())
        }
        let firstTrips = stops.filter { $0.title.hasPrefix("T0") }.map { $0.trip }
        #expect(firstTrips.allSatisfy { $0 === firstTrips[0] })
        #expect(counter.count == 0)
    }

    @Test("Rows read one after another that refer to different registered objects each get their own")
    func alternatingRegisteredToOnes() throws {
        let store = try TestStore()
        let container = try store.graphContainer()
        do {
            let context = ModelContext(container)
            let x = Trip(name: "X")
            let y = Trip(name: "Y")
            context.insert(x)
            context.insert(y)
            x.stops = [Stop(title: "a"), Stop(title: "c")]
            y.stops = [Stop(title: "b"), Stop(title: "d"), Stop(title: "e")]
            try context.save()
        }
        let context = ModelContext(container)
        let trips = sortedByName(try context.fetch(FetchDescriptor<Trip>()))
        let counter = try StatementCounter(context)
        // Rows by title: the trips alternate, then repeat.
        let stops = try context.fetch(FetchDescriptor<Stop>(sortBy: [SortDescriptor(\.title)]))
        #expect(stops.map(\.title) == ["a", "b", "c", "d", "e"])
        #expect(stops.map { $0.trip === trips[0] } == [true, false, true, false, false])
        #expect(stops.map { $0.trip === trips[1] } == [false, true, false, true, true])
        #expect(counter.count == 1, "the registered trips are found without a query: \(counter.statements)")
    }

    @Test("Every related-rows query has a form for one, many and all holders, except a to-one's for all")
    func relatedRowsForms() throws {
        let schema = Schema(Graph.models)
        let trip = try #require(schema.entity(named: "Trip"))
        let stops = try #require(trip.relationship(named: "stops"))
        let inverse = schema.entity(named: "Stop")?.relationship(named: "trip")
        let owner = try #require(trip.relationship(named: "owner"))
        let tags = try #require(trip.relationship(named: "tags"))
        let tagsInverse = schema.entity(named: "Tag")?.relationship(named: "trips")
        for holders in [RelationshipSQL.Holders.one, .many, .all] {
            #expect(RelationshipSQL.relatedRows(stops, inverse: inverse, destinationColumns: "t._pk", destinationTable: "T", holders: holders) != nil)
            #expect(RelationshipSQL.relatedRows(tags, inverse: tagsInverse, destinationColumns: "t._pk", destinationTable: "T", holders: holders) != nil)
        }
        #expect(RelationshipSQL.relatedRows(owner, inverse: nil, destinationColumns: "t._pk", destinationTable: "T", holders: .many) != nil)
        #expect(RelationshipSQL.relatedRows(owner, inverse: nil, destinationColumns: "t._pk", destinationTable: "T", holders: .all) == nil)
    }

    @Test("A to-many held as its inverse's foreign key selects that key once and reads the holder from it")
    func inverseForeignKeySelectedOnce() throws {
        let store = try TestStore()
        let context = ModelContext(try store.graphContainer())
        let trips = try #require(context.store.table(for: Trip.self))
        let stopTable = try #require(context.store.table(for: Stop.self))
        let stops = try #require(trips.relationships?.all.first { $0.schema.name == "stops" })
        let inverse = try #require(stops.inverse)
        for holders in [RelationshipSQL.Holders.one, .many, .all] {
            let query = try context.relatedRowsQuery(stops, destination: stopTable, holders: holders)
            let (sql, holderColumn) = (query.sql, query.holderColumn)
            let selected = try #require(sql.range(of: " FROM ").map { sql[..<$0.lowerBound] })
            #expect(selected.components(separatedBy: "\"trip\"").count == 2, "\(sql)")
            #expect(holderColumn == Int32(inverse.ordinal + 1))
        }
    }

    @Test("Loaded objects become a to-many's value only when every one is of its class, in order")
    func toManyConversion() {
        let stops = [Stop(title: "a"), Stop(title: "b")]
        let mixed: [any PersistentModel] = [stops[0], Graph.Tag(name: "sea"), stops[1]]
        #expect([Stop]._value(holding: stops)?.map(\.title) == ["a", "b"])
        #expect([Stop]._value(holding: [])?.isEmpty == true)
        #expect([Stop]._value(holding: mixed) == nil)
        #expect([Stop]?._value(holding: stops)??.count == 2)
    }

    @Test("A prefetch's array of the element class becomes a to-many's value as it is, without a copy")
    func prefetchedArrayIsTakenAsItIs() throws {
        let stops = [Stop(title: "a"), Stop(title: "b")]
        let related = RelatedObjects(stops)
        let value = try #require(related.value(as: [Stop].self))
        let sameObjects = value.elementsEqual(stops) { $0 === $1 }
        #expect(sameObjects)
        let sameStorage = value.withUnsafeBufferPointer { taken in
            stops.withUnsafeBufferPointer { original in taken.baseAddress == original.baseAddress }
        }
        // The SafeReferences trait gives up the O(1) reinterpretation.
        #expect(sameStorage == ClassArrays.reinterpretsInPlace, "the prefetched array itself, not a copy")
        #expect(related.value(as: [Stop]?.self)??.count == 2)
        #expect(related.models.map { ($0 as? Stop)?.title } == ["a", "b"])
        // Another element class does not fit; neither do two objects for a to-one.
        #expect(related.value(as: [Graph.Tag].self) == nil)
        #expect(related.value(as: Stop?.self) == nil)
    }

    @Test("Prefetched objects become to-one values: one object, or nil for none when optional")
    func prefetchedToOne() {
        let stop = Stop(title: "a")
        #expect(RelatedObjects([stop]).value(as: Stop.self) === stop)
        #expect(RelatedObjects([stop]).value(as: Stop?.self)?.map { $0 === stop } == true)
        #expect(RelatedObjects([Stop]()).value(as: Stop?.self) == .some(nil))
        #expect(RelatedObjects([Stop]()).value(as: Stop.self) == nil)
        #expect(RelatedObjects([stop]).value(as: Graph.Tag?.self) == nil)
    }

    @Test("A holder's second run of prefetched rows is appended, staying one class's array when it can")
    func prefetchedRunsAppend() {
        let stops = [Stop(title: "a"), Stop(title: "b"), Stop(title: "c")]
        let appended = RelatedObjects(Array(stops[0..<2])).appending(RelatedObjects([stops[2]]))
        guard case .objects = appended else {
            Issue.record("runs of one class stay an array of it")
            return
        }
        #expect(appended.value(as: [Stop].self)?.map(\.title) == ["a", "b", "c"])
        let mixed = appended.appending(.models([Graph.Tag(name: "sea")]))
        #expect(mixed.models.count == 4)
        #expect(mixed.value(as: [Stop].self) == nil)
        #expect(RelatedObjects.empty.appending(RelatedObjects(stops)).value(as: [Stop].self)?.count == 3)
    }

    @Test("Prefetched objects link back to their own holder, also in a relationship of an entity with itself")
    func backLinks() throws {
        let store = try TestStore()
        let container = try store.graphContainer()
        try save(container, stops: [3, 2, 0, 1])
        do {
            let context = ModelContext(container)
            let mia = Graph.Person(name: "Mia")
            let bob = Graph.Person(name: "Bob")
            context.insert(mia)
            context.insert(bob)
            mia.reports = [Graph.Person(name: "Cy"), Graph.Person(name: "Di")]
            bob.reports = [Graph.Person(name: "Ed")]
            try context.save()
        }
        let context = ModelContext(container)
        var trips = FetchDescriptor<Trip>()
        trips.relationshipKeyPathsForPrefetching = [\.stops]
        for trip in try context.fetch(trips) {
            #expect(trip.stops.allSatisfy { $0.trip === trip }, "\(trip.name)")
        }
        var people = FetchDescriptor<Graph.Person>()
        people.relationshipKeyPathsForPrefetching = [\.reports]
        let everyone = try context.fetch(people)
        let counter = try StatementCounter(context)
        let byName = Dictionary(everyone.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        #expect(byName["Mia"]?.reports.map(\.name) == ["Cy", "Di"])
        #expect(byName["Bob"]?.reports.map(\.name) == ["Ed"])
        for person in everyone {
            #expect(person.reports.allSatisfy { $0.manager === person }, "\(person.name)")
        }
        #expect(counter.count == 0)
    }
}
