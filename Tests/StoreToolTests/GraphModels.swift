import Foundation
import ModelStore
import Testing

// A second set of models for the relationship kinds the trip models lack:
// count limits on a to-many whose members move, a one-to-one whose column
// is on the other side, a many-to-many with both orders, and a #Unique.

/// A team holds one or two members.
@Model final class Team {
    var name: String
    @Relationship(deleteRule: .nullify, minimumModelCount: 1, maximumModelCount: 2, inverse: \Player.team)
    var members: [Player] = []
    init(name: String) { self.name = name }
}

@Model final class Player {
    var name: String
    var team: Team?
    init(name: String) { self.name = name }
}

/// `Passport.owner` sorts before `Person.passport`, so the column is
/// `Passport.owner`, and `Person.passport` is stored in the other table.
@Model final class Person {
    var name: String
    @Relationship(inverse: \Passport.owner) var passport: Passport?
    @Relationship(inverse: \Course.students) var courses: [Course] = []
    init(name: String) { self.name = name }
}

@Model final class Passport {
    var number: String
    var owner: Person?
    init(number: String) { self.number = number }
}

/// A course is unique by title and term together.
@Model final class Course {
    #Unique<Course>([\.title, \.term])
    var title: String
    var term: String = "autumn"
    var students: [Person] = []
    init(title: String) { self.title = title }
}

/// A fresh folder with a store of the graph models:
/// teams A [M1, M2], B [M3], C [M4], D [M5, M6];
/// Ana (Passport:1) and Ben (no passport), Passport:2 without owner;
/// courses Art, Bio, Chem; Ana takes [Art, Bio], Ben [Bio].
struct GraphFixture {
    let folder: URL
    let store: URL
    var path: String { store.path(percentEncoded: false) }
    static var types: [any PersistentModel.Type] { [Team.self, Player.self, Person.self, Passport.self, Course.self] }

    init() throws {
        folder = testRoot.appending(path: UUID().uuidString)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        store = folder.appending(path: "graph.store")
        let context = try context()
        var number = 0
        for (name, size) in [("A", 2), ("B", 1), ("C", 1), ("D", 2)] {
            let team = Team(name: name)
            team.members = (0..<size).map { _ in
                number += 1
                return Player(name: "M\(number)")
            }
            context.insert(team)
        }
        try context.save()
        let ana = Person(name: "Ana")
        let ben = Person(name: "Ben")
        ana.passport = Passport(number: "P-1")
        context.insert(ana)
        context.insert(ben)
        context.insert(Passport(number: "P-2"))
        try context.save()
        let courses = ["Art", "Bio", "Chem"].map { Course(title: $0) }
        for course in courses { context.insert(course) }
        ana.courses = [courses[0], courses[1]]
        ben.courses = [courses[1]]
        try context.save()
    }

    func context() throws -> ModelContext {
        ModelContext(try ModelContainer(for: Schema(Self.types), configurations: [ModelConfiguration(url: store)]))
    }

    func file(_ name: String) -> String { folder.appending(path: name).path(percentEncoded: false) }

    /// Runs store-tool on this fixture's folder.
    func run(_ arguments: String...) throws -> ToolRun { try Fixture.runTool(Array(arguments)) }

    /// Every row of a table, as text, in key order (or sorted for a join table).
    func rows(_ sql: String) throws -> [String] {
        let run = try Fixture.runTool(["sql", path, sql, "--format", "csv"])
        #expect(run.status == 0, "\(run.stderr)")
        return run.lines
    }
}
