import Foundation
import Testing
@testable import ModelStore
@testable import ModelStoreDynamic

/// SwiftData's container, configuration and schema API, in SwiftData's spelling.
@Suite("SwiftData's container, configuration and schema API")
struct SwiftDataAPITests {
    @Test("Schema(versionedSchema:) has the version's models and identifier; lookups by name")
    func schemaIntrospection() throws {
        let schema = Schema(versionedSchema: TripsV2.self)
        #expect(schema.version == Schema.Version(2, 0, 0))
        #expect(Set(schema.entitiesByName.keys) == ["Trip", "Stop"])
        let trip = try #require(schema.entitiesByName["Trip"])
        #expect(trip.attributesByName["title"]?.originalName == "name")
        #expect(trip.attributesByName["rating"]?.kind == .int)
        #expect(trip.relationshipsByName["stops"]?.destination == "Stop")
        #expect(trip.relationshipsByName["stops"]?.isToMany == true)
        #expect(Schema(TripsV1.Trip.self, TripsV1.Stop.self) == Schema([TripsV1.Trip.self, TripsV1.Stop.self]))
    }

    @Test("every ModelContainer initializer of SwiftData's opens the store, and migrationPlan is kept")
    func containerInitializers() throws {
        let directory = try TemporaryDirectory()
        let configuration = ModelConfiguration(url: directory.file())
        let schema = Schema(versionedSchema: TripsV3.self)
        let containers = [
            try ModelContainer(for: schema, migrationPlan: TripsPlan.self, configurations: configuration),
            try ModelContainer(for: schema, migrationPlan: TripsPlan.self, configurations: [configuration]),
            try ModelContainer(for: TripsV3.Trip.self, TripsV3.Stop.self, migrationPlan: TripsPlan.self, configurations: configuration),
            try ModelContainer(for: schema, configurations: configuration),
            try ModelContainer(for: schema, configurations: [configuration]),
        ]
        #expect(containers[0].migrationPlan == TripsPlan.self)
        #expect(containers[2].migrationPlan == TripsPlan.self)
        #expect(containers[3].migrationPlan == nil)
        #expect(containers.allSatisfy { $0.configurations.first?.url == configuration.url })
    }

    @Test("configurations: group containers, CloudKit databases, models")
    func configurations() {
        let grouped = ModelConfiguration("Planner", groupContainer: .identifier("group.planner"), cloudKitDatabase: .private("iCloud.planner"))
        #expect(grouped.url.lastPathComponent == "Planner.store")
        #expect(grouped.url.deletingLastPathComponent().lastPathComponent == "group.planner")
        #expect(grouped.groupAppContainerIdentifier == "group.planner")
        #expect(grouped.cloudKitContainerIdentifier == "iCloud.planner")
        let plain = ModelConfiguration()
        #expect(plain.url.lastPathComponent == "default.store")
        #expect(plain.groupContainer == .automatic && plain.groupContainer != ModelConfiguration.GroupContainer.none)
        #expect(plain.cloudKitContainerIdentifier == nil && plain.groupAppContainerIdentifier == nil)
        let memory = ModelConfiguration(for: TripsV1.Trip.self, isStoredInMemoryOnly: true)
        #expect(memory.isStoredInMemoryOnly)
        #expect(memory.schema?.entitiesByName["Trip"] != nil)
        let atURL = ModelConfiguration(url: URL(filePath: "/tmp/x.store"), cloudKitDatabase: .none)
        #expect(atURL.cloudKitDatabase == .none && atURL.name == "x")
    }

    @Test("erase() deletes every object and keeps the schema; identifiers are not given again")
    func erase() throws {
        let store = try TestStore()
        let container = try ModelContainer(for: Graph.Trip.self, configurations: store.configuration)
        let context = ModelContext(container)
        let trip = Graph.Trip(name: "Rome")
        trip.stops = [Graph.Stop(title: "Forum")]
        trip.tags = [Graph.Tag(name: "food")]
        context.insert(trip)
        try context.save()
        let oldIdentifier = trip.persistentModelID

        try container.erase()
        let fresh = ModelContext(container)
        #expect(try fresh.fetchCount(FetchDescriptor<Graph.Trip>()) == 0)
        #expect(try fresh.fetchCount(FetchDescriptor<Graph.Stop>()) == 0)
        #expect(try fresh.fetchCount(FetchDescriptor<Graph.Tag>()) == 0)
        let next = Graph.Trip(name: "Oslo")
        fresh.insert(next)
        try fresh.save()
        #expect(next.persistentModelID != oldIdentifier)
        // store-tool's check reads SQLite files only.
        if store.postgresSchema == nil {
            #expect(try DynamicStore(path: store.configuration.url.path).check().isEmpty)
        }
    }

    @Test("erase() on a read-only store throws and deletes nothing")
    func eraseReadOnly() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file()
        do {
            let context = ModelContext(try ModelContainer(for: Graph.Trip.self, configurations: ModelConfiguration(url: url)))
            context.insert(Graph.Trip(name: "Rome"))
            try context.save()
        }
        let readOnly = try ModelContainer(for: Graph.Trip.self, configurations: ModelConfiguration(url: url, allowsSave: false))
        #expect(throws: ModelStoreError.readOnlyStore(path: url.path)) { try readOnly.erase() }
        #expect(try ModelContext(readOnly).fetchCount(FetchDescriptor<Graph.Trip>()) == 1)
    }
}

@Suite("getValue(forKey:) and setValue(forKey:to:)")
struct KeyValueTests {
    @Test("reads and writes go through the tracked accessors, inverses included")
    func keyValueAccess() throws {
        let store = try TestStore()
        let container = try ModelContainer(for: Graph.Trip.self, configurations: store.configuration)
        let context = ModelContext(container)
        let trip = Graph.Trip(name: "Rome")
        let forum = Graph.Stop(title: "Forum")
        context.insert(trip)
        try context.save()

        trip.setValue(forKey: \.name, to: "Roma")
        trip.setValue(forKey: \.stops, to: [forum])
        #expect(trip.getValue(forKey: \.name) == "Roma")
        #expect(trip.getValue(forKey: \.stops).map(\.title) == ["Forum"])
        #expect(forum.getValue(forKey: \.trip) === trip, "the inverse follows")
        let changed = Set(context.changedPropertyNames(of: trip))
        #expect(changed == ["name", "stops"])
        forum.setValue(forKey: \.trip, to: nil)
        #expect(trip.stops.isEmpty)
        try context.save()
        let fetched = try #require(try ModelContext(container).fetch(FetchDescriptor<Graph.Trip>()).first)
        #expect(fetched.getValue(forKey: \.name) == "Roma")
    }
}
