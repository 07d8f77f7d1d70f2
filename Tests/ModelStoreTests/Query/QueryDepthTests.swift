import Foundation
import Testing
@testable import ModelStore

/// `!expression`, opened from an existential so that a loop can nest it.
private func negated<E: StandardPredicateExpression<Bool>>(_ expression: E) -> any StandardPredicateExpression<Bool> {
    PredicateExpressions.Negation(expression)
}

/// `lhs && rhs`, opened from existentials.
private func conjoined<L: StandardPredicateExpression<Bool>, R: StandardPredicateExpression<Bool>>(
    _ lhs: L, _ rhs: R
) -> any StandardPredicateExpression<Bool> {
    PredicateExpressions.Conjunction(lhs: lhs, rhs: rhs)
}

/// Predicates and query expressions built in code can nest as deep as a
/// loop makes them: past the translator's and the compiler's limits they are
/// refused with an error, never a stack overflow (nor SQLite's own limit of
/// 1000 levels).
@Suite("Queries: predicates and expressions nested too deep are refused, not a stack overflow")
struct QueryDepthTests {
    /// `$0.count < 10` inside `negations` negations.
    func negatedPredicate(_ negations: Int) -> Predicate<Q.Gadget> {
        Predicate<Q.Gadget> { gadget in
            var expression: any StandardPredicateExpression<Bool> = PredicateExpressions.build_Comparison(
                lhs: PredicateExpressions.build_KeyPath(root: gadget, keyPath: \Q.Gadget.count), rhs: PredicateExpressions.build_Arg(10),
                op: .lessThan)
            for _ in 0..<negations { expression = negated(expression) }
            return expression
        }
    }

    /// `$0.count != 100 && $0.count != 101 && …`, a left-deep chain as `&&` builds it.
    func conjunctionPredicate(_ conditions: Int) -> Predicate<Q.Gadget> {
        Predicate<Q.Gadget> { gadget in
            func condition(_ value: Int) -> any StandardPredicateExpression<Bool> {
                PredicateExpressions.build_NotEqual(
                    lhs: PredicateExpressions.build_KeyPath(root: gadget, keyPath: \Q.Gadget.count), rhs: PredicateExpressions.build_Arg(100 + value))
            }
            var expression = condition(0)
            for value in 1..<conditions { expression = conjoined(expression, condition(value)) }
            return expression
        }
    }

    @Test("a predicate up to 200 levels deep is fetched and agrees with evaluate; deeper is unsupportedQuery")
    func predicateDepth() throws {
        let store = try TestStore()
        let container = try store.container(Q.types)
        try Q.seed(ModelContext(container))
        let context = ModelContext(container)
        let all = try context.fetch(FetchDescriptor<Q.Gadget>())
        // A chain of && is written as one flat chain, which SQLite parses at
        // any length; 197 levels of ! is beyond SQLite's parser (an error,
        // thrown by SQLite), and 198 beyond the translator's limit.
        for predicate in [conjunctionPredicate(120), conjunctionPredicate(197), negatedPredicate(40), negatedPredicate(41)] {
            let fetched = Set(try context.fetch(FetchDescriptor(predicate: predicate)).map(\.persistentModelID))
            let evaluated = Set(try all.filter { try predicate.evaluate($0) }.map(\.persistentModelID))
            #expect(fetched == evaluated)
            #expect(!fetched.isEmpty)
            #expect(try context.fetchCount(FetchDescriptor(predicate: predicate)) == evaluated.count)
        }
        #expect(throws: SQLiteError.self) { try context.fetch(FetchDescriptor(predicate: negatedPredicate(197))) }
        for predicate in [negatedPredicate(198), negatedPredicate(1_000), conjunctionPredicate(199), conjunctionPredicate(300)] {
            #expect {
                try context.fetch(FetchDescriptor(predicate: predicate))
            } throws: { error in
                guard case ModelStoreError.unsupportedQuery(let entity, _, let reason) = error else { return false }
                return entity == "Gadget" && reason == "it nests deeper than 200 levels"
            }
            #expect(throws: ModelStoreError.self) { try context.fetchCount(FetchDescriptor(predicate: predicate)) }
        }
    }

    /// `name == "x"` under `levels` levels of `not` (or a left-deep `or` chain).
    func expression(_ levels: Int, chained: Bool = false) -> QueryExpression {
        let leaf = QueryExpression.comparison(
            .property(PropertyReference(path: ["name"])), .equal, .constant(QueryConstant(value: .text("x"), kind: .string)))
        var expression = leaf
        for _ in 0..<levels { expression = chained ? .or(expression, leaf) : .not(expression) }
        return expression
    }

    @Test("the compiler takes 500 levels and refuses 501 with unsupportedQuery; a chain of or is flat at any length")
    func compilerDepth() throws {
        let store = try TestStore()
        let container = try store.container(Q.types)
        let schema = container.schema
        let entity = try #require(schema.entity(named: "Gadget"))
        let connection = try Connection(location: store.url.path(percentEncoded: false), mode: .readWrite)
        // The leaf is two levels (the comparison, its operands), so 498 more make 500.
        for levels in [0, 250, 498] {
            let compiled = try QuerySQLBuilder.count(schema: schema, entity: entity, where: expression(levels))
            let negations = compiled.sql.components(separatedBy: "NOT ").count - 1
            #expect(negations == levels)
        }
        // A left-deep chain is gathered without recursion and written flat.
        for levels in [1, 499, 900] {
            let compiled = try QuerySQLBuilder.count(schema: schema, entity: entity, where: expression(levels, chained: true))
            // One parenthesis for the chain, one per comparison: never deeper.
            let isFlat = compiled.sql.components(separatedBy: "((").count == 2 && !compiled.sql.contains("(((")
            #expect(isFlat)
            let statement = try connection.prepare(compiled.sql)
            try compiled.bind(to: statement)
            #expect(try statement.step())
        }
        // (Deeper still would only test how deep a value can be released.)
        for levels in [499, 2_000] {
            #expect {
                try QuerySQLBuilder.count(schema: schema, entity: entity, where: expression(levels))
            } throws: { error in
                guard case ModelStoreError.unsupportedQuery(_, _, let reason) = error else { return false }
                return reason == "it nests deeper than 500 levels"
            }
        }
    }
}
