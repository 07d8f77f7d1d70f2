import Foundation
import Testing
@testable import ModelStore

/// Delete rules, applied in the store with set-based queries and in memory after the save.
@Suite("Delete rules")
struct DeleteRuleTests {
    typealias Trip = Graph.Trip
    typealias Stop = Graph.Stop

    private func count<T: PersistentModel>(_ type: T.Type, in container: ModelContainer) throws -> Int {
        try ModelContext(container).fetchCount(FetchDescriptor<T>())
    }

    /// Saves `trips` trips, each with three stops, a lodging and two expenses,
    /// all sharing two tags.
    private func savedTrips(_ trips: Int, in container: ModelContainer) throws {
        let context = ModelContext(container)
        let tags = [Graph.Tag(name: "sea"), Graph.Tag(name: "food")]
        for index in 0..<trips {
            let trip = Trip(name: "T\(index)")
            context.insert(trip)
            trip.stops = (0..<3).map { Stop(title: "S\($0)") }
            trip.lodging = Graph.Lodging(name: "L\(index)")
            trip.expenses = [Graph.Expense(amount: 1), Graph.Expense(amount: 2)]
            trip.tags = tags
        }
        try context.save()
    }

    @Test("Cascade deletes what the trip holds; nullify leaves tags; unloaded relationships cost no query per object")
    func cascadeAndNullify() throws {
        let store = try TestStore()
        let container = try store.graphContainer()
        try savedTrips(20, in: container)
        let context = ModelContext(container)
        let trips = try context.fetch(FetchDescriptor<Trip>())
        let counter = try StatementCounter(context)
        for trip in trips { context.delete(trip) }
        try context.save()
        // Planning reads each relationship once (not once per trip); the
        // writes are one statement per table or column. No query per object.
        #expect(counter.count < 25, "\(counter.statements.joined(separator: "\n"))")
        #expect(try count(Trip.self, in: container) == 0)
        #expect(try count(Stop.self, in: container) == 0)
        #expect(try count(Graph.Lodging.self, in: container) == 0)
        #expect(try count(Graph.Expense.self, in: container) == 0)
        let tags = try ModelContext(container).fetch(FetchDescriptor<Graph.Tag>())
        #expect(tags.count == 2)
    }

    @Test("Registered objects follow the rules in memory after the save")
    func inMemory() throws {
        let store = try TestStore()
        let container = try store.graphContainer()
        try savedTrips(2, in: container)
        let context = ModelContext(container)
        let trips = try context.fetch(FetchDescriptor<Trip>())
        let stop = trips[0].stops[0]
        let tag = trips[0].tags[0]
        #expect(tag.trips.count == 2)
        context.delete(trips[0])
        try context.save()
        #expect(stop.isDeleted)
        #expect(tag.trips.map(\.name) == ["T1"])
        #expect(!tag.hasChanges)
    }

    @Test("Cascade runs through cycles and terminates")
    func cascadeCycle() throws {
        let store = try TestStore()
        let container = try store.graphContainer()
        do {
            let context = ModelContext(container)
            let nodes = (0..<5).map { Graph.Node(label: "n\($0)") }
            for (index, node) in nodes.enumerated() { node.next = nodes[(index + 1) % nodes.count] }
            context.insert(nodes[0])
            context.insert(Graph.Node(label: "alone"))
            try context.save()
        }
        let context = ModelContext(container)
        let first = try #require(try context.fetch(FetchDescriptor<Graph.Node>()).first { $0.label == "n2" })
        context.delete(first)
        try context.save()
        #expect(try ModelContext(container).fetch(FetchDescriptor<Graph.Node>()).map(\.label) == ["alone"])
    }

    @Test("Deny throws an error naming the blocking objects, and writes nothing")
    func deny() throws {
        let store = try TestStore()
        let container = try store.graphContainer()
        do {
            let context = ModelContext(container)
            let department = Graph.Department(name: "Sales")
            context.insert(department)
            department.employees = [Graph.Employee(name: "Ann"), Graph.Employee(name: "Bob")]
            try context.save()
        }
        let context = ModelContext(container)
        let department = try #require(try context.fetch(FetchDescriptor<Graph.Department>()).first)
        context.delete(department)
        #expect(throws: ModelStoreError.deleteDenied(
            object: "Department:1", relationship: "employees", blockers: ["Employee:1", "Employee:2"])) {
            try context.save()
        }
        #expect(try count(Graph.Department.self, in: container) == 1)
        #expect(context.hasChanges)
        // A new employee blocks too.
        department.employees.append(Graph.Employee(name: "Cy"))
        #expect(throws: ModelStoreError.deleteDenied(
            object: "Department:1", relationship: "employees", blockers: ["new Employee"])) {
            try context.save()
        }
        // Once the employees are gone too, the delete goes through.
        for employee in department.employees { context.delete(employee) }
        try context.save()
        #expect(try count(Graph.Department.self, in: container) == 0)
    }

    @Test("Nullify on a to-one: deleting the lodging clears trip.lodging")
    func nullifyToOne() throws {
        let store = try TestStore()
        let container = try store.graphContainer()
        try savedTrips(1, in: container)
        let context = ModelContext(container)
        let trip = try #require(try context.fetch(FetchDescriptor<Trip>()).first)
        let lodging = try #require(trip.lodging)
        context.delete(lodging)
        try context.save()
        #expect(trip.lodging == nil)
        let reader = ModelContext(container)
        let reloaded = try #require(try reader.fetch(FetchDescriptor<Trip>()).first)
        #expect(reloaded.lodging == nil)
        #expect(reloaded.stops.count == 3)
    }

    @Test("A to-one without inverse is cleared when its object is deleted")
    func implicitNullify() throws {
        let store = try TestStore()
        let container = try store.graphContainer()
        do {
            let context = ModelContext(container)
            let trip = Trip(name: "Lisbon")
            context.insert(trip)
            trip.owner = Graph.Person(name: "Ann")
            try context.save()
        }
        let context = ModelContext(container)
        let person = try #require(try context.fetch(FetchDescriptor<Graph.Person>()).first)
        context.delete(person)
        try context.save()
        let reader = ModelContext(container)
        let trip = try #require(try reader.fetch(FetchDescriptor<Trip>()).first)
        #expect(trip.owner == nil)
    }

    @Test("Bulk delete with a predicate applies the rules")
    func bulkDelete() throws {
        let store = try TestStore()
        let container = try store.graphContainer()
        try savedTrips(4, in: container)
        let context = ModelContext(container)
        try context.delete(model: Trip.self, where: #Predicate { $0.name == "T1" || $0.name == "T2" })
        try context.save()
        #expect(try count(Trip.self, in: container) == 2)
        #expect(try count(Stop.self, in: container) == 6)
    }

    @Test("A new object held by a deleted one through a cascade is not written")
    func cascadeToNewObject() throws {
        let store = try TestStore()
        let container = try store.graphContainer()
        try savedTrips(1, in: container)
        let context = ModelContext(container)
        let trip = try #require(try context.fetch(FetchDescriptor<Trip>()).first)
        trip.stops.append(Stop(title: "new"))
        context.delete(trip)
        try context.save()
        #expect(try count(Stop.self, in: container) == 0)
    }

    @Test("Minimum and maximum counts are checked at save; nothing is written")
    func counts() throws {
        let store = try TestStore()
        let container = try store.graphContainer()
        let context = ModelContext(container)
        let team = Graph.Team(name: "Empty")
        context.insert(team)
        #expect(throws: ModelStoreError.relationshipCount(
            object: "new Team", relationship: "members", count: 0, minimum: 1, maximum: 3)) {
            try context.save()
        }
        team.members = (0..<4).map { Graph.Teammate(name: "M\($0)") }
        #expect(throws: ModelStoreError.self) { try context.save() }
        #expect(try count(Graph.Team.self, in: container) == 0)
        team.members.removeLast()
        try context.save()
        #expect(try count(Graph.Team.self, in: container) == 1)
    }

    @Test(".noAction leaves the reference, so the save fails and writes nothing")
    func noAction() throws {
        let store = try TestStore()
        let container = try store.graphContainer()
        let context = ModelContext(container)
        let shelf = Graph.Shelf(name: "A")
        context.insert(shelf)
        shelf.books = [Graph.Book(title: "B")]
        try context.save()
        context.delete(shelf)
        #expect {
            try context.save()
        } throws: { error in
            // The error names the store: its file, or its PostgreSQL server and schema.
            guard case ModelStoreError.danglingReference(let path) = error else { return false }
            return store.postgresSchema == nil ? path == store.url.path(percentEncoded: false) : path.hasPrefix("postgres://")
        }
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Graph.Shelf>()) == 1)
    }
}
