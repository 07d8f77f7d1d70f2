import Foundation
import Testing
@testable import ModelStore

/// A member is unique by email and, apart from that, by team and number.
@Model final class TeamMember {
    #Unique<TeamMember>([\.team, \.number])
    @Attribute(.unique) var email: String
    var team: String
    var number: Int
    var name: String
    init(email: String, team: String, number: Int, name: String) {
        self.email = email
        self.team = team
        self.number = number
        self.name = name
    }
}

/// SwiftData's upsert matches a row by any of its entity's unique
/// constraints, whichever the inserted object collides with; on
/// PostgreSQL, whose `ON CONFLICT` names one constraint, as on SQLite.
@Suite("Upserts with several unique constraints")
struct SeveralUniqueConstraintsTests {
    /// The members stored, as (email, team, number, name), by email.
    static func stored(_ container: ModelContainer) throws -> [String] {
        try ModelContext(container).fetch(FetchDescriptor<TeamMember>(sortBy: [SortDescriptor(\.email)]))
            .map { "\($0.email) \($0.team)#\($0.number) \($0.name)" }
    }

    static func container(_ store: TestStore) throws -> ModelContainer {
        let container = try store.container([TeamMember.self])
        let context = ModelContext(container)
        context.insert(TeamMember(email: "ada@example.com", team: "red", number: 1, name: "Ada"))
        context.insert(TeamMember(email: "bea@example.com", team: "blue", number: 2, name: "Bea"))
        try context.save()
        return container
    }

    @Test("an insert that collides by the first constraint (email) updates that row", arguments: StoreKind.allCases)
    func firstConstraint(kind: StoreKind) throws {
        let store = try TestStore(kind)
        let container = try Self.container(store)
        let context = ModelContext(container)
        context.insert(TeamMember(email: "ada@example.com", team: "green", number: 7, name: "Ada L."))
        try context.save()
        #expect(try Self.stored(container) == ["ada@example.com green#7 Ada L.", "bea@example.com blue#2 Bea"])
    }

    @Test("an insert that collides by the second constraint (team and number) updates that row", arguments: StoreKind.allCases)
    func secondConstraint(kind: StoreKind) throws {
        let store = try TestStore(kind)
        let container = try Self.container(store)
        let context = ModelContext(container)
        context.insert(TeamMember(email: "cy@example.com", team: "blue", number: 2, name: "Cy"))
        context.insert(TeamMember(email: "dee@example.com", team: "red", number: 3, name: "Dee"))
        try context.save()
        #expect(try Self.stored(container) == [
            "ada@example.com red#1 Ada", "cy@example.com blue#2 Cy", "dee@example.com red#3 Dee",
        ])
    }

    @Test("an insert that collides with two rows, one by each constraint, fails the save and changes nothing",
          arguments: StoreKind.allCases)
    func twoRows(kind: StoreKind) throws {
        let store = try TestStore(kind)
        let container = try Self.container(store)
        let context = ModelContext(container)
        context.insert(TeamMember(email: "ada@example.com", team: "blue", number: 2, name: "Both"))
        context.insert(TeamMember(email: "eve@example.com", team: "red", number: 5, name: "Eve"))
        #expect {
            try context.save()
        } throws: { error in
            guard case ModelStoreError.saveFailed("TeamMember", _, let underlying) = error else { return false }
            return underlying.primaryCode == SQLiteError.constraint
        }
        #expect(try Self.stored(container) == ["ada@example.com red#1 Ada", "bea@example.com blue#2 Bea"])
    }
}
