import Foundation
@testable import ModelStore

/// The models of the relationships issue, in a namespace of their own so
/// that their entity names (Trip, Stop, …) do not clash with TestModels.swift.
enum Graph {
    @Model final class Trip {
        var name: String
        @Relationship(deleteRule: .cascade, inverse: \Stop.trip) var stops: [Stop] = []
        @Relationship(deleteRule: .cascade, inverse: \Lodging.trip) var lodging: Lodging?
        var owner: Person?
        @Relationship(deleteRule: .nullify, inverse: \Tag.trips) var tags: [Tag] = []
        @Relationship(deleteRule: .cascade, forwardsChanges: true) var expenses: [Expense] = []
        init(name: String) { self.name = name }
    }

    @Model final class Stop {
        var title: String
        var trip: Trip?
        init(title: String, trip: Trip? = nil) {
            self.title = title
            self.trip = trip
        }
    }

    @Model final class Lodging {
        var name: String
        var trip: Trip?
        init(name: String) { self.name = name }
    }

    @Model final class Tag {
        var name: String
        var trips: [Trip] = []
        init(name: String) { self.name = name }
    }

    @Model final class Expense {
        var amount: Double
        init(amount: Double) { self.amount = amount }
    }

    @Model final class Person {
        var name: String
        var manager: Person?
        @Relationship(inverse: \Person.manager) var reports: [Person] = []
        init(name: String) { self.name = name }
    }

    /// A department may not be deleted while it has employees.
    @Model final class Department {
        var name: String
        @Relationship(deleteRule: .deny, inverse: \Employee.department) var employees: [Employee] = []
        init(name: String) { self.name = name }
    }

    @Model final class Employee {
        var name: String
        var department: Department?
        init(name: String) { self.name = name }
    }

    /// A ring of nodes that cascade both ways: deleting one deletes the ring.
    @Model final class Node {
        var label: String
        @Relationship(deleteRule: .cascade) var next: Node?
        @Relationship(deleteRule: .cascade, inverse: \Node.next) var previous: Node?
        init(label: String) { self.label = label }
    }

    /// A team must have between 1 and 3 members at save.
    @Model final class Team {
        var name: String
        @Relationship(minimumModelCount: 1, maximumModelCount: 3) var members: [Teammate] = []
        init(name: String) { self.name = name }
    }

    @Model final class Teammate {
        var name: String
        var team: Team?
        init(name: String) { self.name = name }
    }

    /// A flight with two relationships to the same entity, each with its own inverse.
    @Model final class Flight {
        var number: String
        var origin: Airport?
        var destination: Airport?
        init(number: String) { self.number = number }
    }

    @Model final class Airport {
        @Attribute(.unique) var code: String
        @Relationship(inverse: \Flight.origin) var departures: [Flight] = []
        @Relationship(inverse: \Flight.destination) var arrivals: [Flight] = []
        init(code: String) { self.code = code }
    }

    /// A required (non-optional) to-one and an optional to-many.
    @Model final class Ticket {
        var code: String
        var flight: Flight
        var extras: [Expense]? = []
        var passenger: Person!
        init(code: String, flight: Flight) {
            self.code = code
            self.flight = flight
        }
    }

    /// Books stay when their shelf is deleted, and nothing clears their link.
    @Model final class Shelf {
        var name: String
        @Relationship(deleteRule: .noAction) var books: [Book] = []
        init(name: String) { self.name = name }
    }

    @Model final class Book {
        var title: String
        var shelf: Shelf?
        init(title: String) { self.title = title }
    }

    /// Hears every change of its trips and of their expenses.
    @Model final class Agency {
        var name: String
        @Relationship(forwardsChanges: true) var trips: [Trip] = []
        init(name: String) { self.name = name }
    }

    nonisolated(unsafe) static let models: [any PersistentModel.Type] = [
        Trip.self, Stop.self, Lodging.self, Tag.self, Expense.self, Person.self, Department.self, Employee.self,
        Node.self, Team.self, Teammate.self, Flight.self, Airport.self, Ticket.self, Shelf.self, Book.self, Agency.self,
    ]
}

extension TestStore {
    /// A container for the relationship models.
    func graphContainer() throws -> ModelContainer {
        try container(Graph.models)
    }
}

/// Counts the SQL statements a context runs.
final class StatementCounter {
    private(set) var statements: [String] = []
    var count: Int { statements.count }

    init(_ context: ModelContext) throws {
        try context.connection().statementObserver = { [unowned self] sql in statements.append(sql) }
    }

    func reset() { statements.removeAll() }
}
