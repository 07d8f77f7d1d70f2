import Foundation
import Testing
@testable import ModelStore

/// The order of a sorted fetch is exactly `sorted(using:)` of the same objects.
@Suite struct SortTests {
    let store: TestStore
    let container: ModelContainer

    init() throws {
        store = try TestStore()
        container = try store.container(Q.types)
        try Q.seed(ModelContext(container))
    }

    func expectSameOrder(_ sortBy: [SortDescriptor<Q.Gadget>], _ label: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let context = ModelContext(container)
        let counter = try StatementCounter(context)
        let viaSQL = try context.fetch(FetchDescriptor(sortBy: sortBy))
        #expect(counter.statements.first?.contains("ORDER BY") == true, sourceLocation: sourceLocation)
        let all = try context.fetch(FetchDescriptor<Q.Gadget>())
        let inMemory = all.sorted(using: sortBy + [SortDescriptor(\.persistentModelID)])
        #expect(viaSQL.map(\.name) == inMemory.map(\.name), "\(label)", sourceLocation: sourceLocation)
    }

    @Test func singleKeysForwardAndReverse() throws {
        for order in [SortOrder.forward, .reverse] {
            try expectSameOrder([SortDescriptor(\.name, order: order)], "name \(order)")
            try expectSameOrder([SortDescriptor(\.note, order: order)], "optional note \(order)")
            try expectSameOrder([SortDescriptor(\.small, order: order)], "optional Int32 \(order)")
            try expectSameOrder([SortDescriptor(\.price, order: order)], "decimal \(order)")
            try expectSameOrder([SortDescriptor(\.made, order: order)], "date \(order)")
            try expectSameOrder([SortDescriptor(\.code, order: order)], "uuid \(order)")
            try expectSameOrder([SortDescriptor(\.score, order: order)], "double \(order)")
            try expectSameOrder([SortDescriptor(\.persistentModelID, order: order)], "persistentModelID \(order)")
            try expectSameOrder([SortDescriptor(\.name, comparator: .lexical, order: order)], "lexical \(order)")
        }
    }

    @Test func severalKeysAndKeysThroughToOne() throws {
        try expectSameOrder([SortDescriptor(\.count, order: .reverse), SortDescriptor(\.name)], "two keys")
        try expectSameOrder([SortDescriptor(\.maker?.name), SortDescriptor(\.count, order: .reverse)], "through a to-one")
        try expectSameOrder([SortDescriptor(\.maker?.country, order: .reverse), SortDescriptor(\.name)], "optional through a to-one")
    }

    @Test func sortingWithPredicateLimitAndOffset() throws {
        let context = ModelContext(container)
        var descriptor = FetchDescriptor<Q.Gadget>(predicate: #Predicate { $0.count > 2 }, sortBy: [SortDescriptor(\.name)])
        descriptor.fetchOffset = 2
        descriptor.fetchLimit = 5
        let page = try context.fetch(descriptor)
        let expected = try context.fetch(FetchDescriptor<Q.Gadget>()).filter { $0.count > 2 }
            .sorted(using: [SortDescriptor(\.name), SortDescriptor(\.persistentModelID)])
        #expect(page.map(\.name) == Array(expected.dropFirst(2).prefix(5)).map(\.name))
        #expect(try context.fetchCount(descriptor) == 5)
    }

    @Test func aComparatorOrANonStoredKeyIsRefused() throws {
        let context = ModelContext(container)
        #expect {
            try context.fetch(FetchDescriptor<Q.Gadget>(sortBy: [SortDescriptor(\.displayName)]))
        } throws: { error in
            guard case ModelStoreError.unsupportedQuery(let entity, _, let reason) = error else { return false }
            return entity == "Gadget" && reason.contains("no stored attribute")
        }
    }
}

extension Q.Gadget {
    /// Not stored: a sort descriptor on it cannot run in SQL.
    var displayName: String { name.uppercased() }
}
