import Foundation
import Testing
@testable import ModelStore

/// `Predicate.and`, `.or` and `.not`: composed predicates fetch in SQL what
/// they select in Swift (`Predicate.evaluate` on every object is the oracle).
@Suite struct PredicateCompositionTests {
    let store: TestStore
    let container: ModelContainer

    init() throws {
        store = try TestStore()
        container = try store.container(Q.types)
        try Q.seed(ModelContext(container))
    }

    /// The names `predicate` selects, fetched in SQL and filtered in Swift.
    private func names(_ predicate: Predicate<Q.Gadget>) throws -> (sql: [String], swift: [String]) {
        let context = ModelContext(container)
        let counter = try StatementCounter(context)
        let fetched = try context.fetch(FetchDescriptor(predicate: predicate, sortBy: [SortDescriptor(\.name)]))
        // One query, filtered by SQL: the rows read are the rows selected.
        #expect(counter.statements.filter { $0.hasPrefix("SELECT") }.count == 1)
        let all = try context.fetch(FetchDescriptor<Q.Gadget>(sortBy: [SortDescriptor(\.name)]))
        return (fetched.map(\.name), try all.filter { try predicate.evaluate($0) }.map(\.name))
    }

    @Test func andOrAndNotSelectWhatEvaluateSelects() throws {
        let few = #Predicate<Q.Gadget> { $0.count < 5 }
        let active = #Predicate<Q.Gadget> { $0.isActive }
        for predicate in [
            Predicate<Q.Gadget>.and(few, active), .or(few, active), .not(few), .and(.not(few), .or(active, few)),
        ] {
            let (sql, swift) = try names(predicate)
            #expect(sql == swift)
            #expect(!sql.isEmpty)
        }
        let both = try names(.and(few, active)).sql
        let either = try names(.or(few, active)).sql
        #expect(both.count < either.count)
    }

    @Test func aComposedPredicateMayFollowRelationships() throws {
        let withMaker = #Predicate<Q.Gadget> { $0.maker?.name == "Acme" }
        let withParts = #Predicate<Q.Gadget> { !$0.parts.isEmpty }
        let (sql, swift) = try names(.or(withMaker, withParts))
        #expect(sql == swift)
        #expect(!sql.isEmpty)
    }

    @Test func aComposedPredicateThatHasNoSQLFormIsRefusedByName() throws {
        let computed = #Predicate<Q.Gadget> { $0.displayName == "X" }
        let active = #Predicate<Q.Gadget> { $0.isActive }
        #expect {
            try ModelContext(container).fetch(FetchDescriptor(predicate: .and(active, computed)))
        } throws: { error in
            guard case ModelStoreError.unsupportedQuery(let entity, let expression, _) = error else { return false }
            return entity == "Gadget" && expression.contains("KeyPath")
        }
    }
}
