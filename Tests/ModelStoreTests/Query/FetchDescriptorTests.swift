import Foundation
import Testing
@testable import ModelStore

/// Limits, pending changes, counts, identifiers, enumeration and errors of
/// compiled fetches.
@Suite struct FetchDescriptorTests {
    let store: TestStore
    let container: ModelContainer

    init() throws {
        store = try TestStore()
        container = try store.container(Q.types)
        try Q.seed(ModelContext(container))
    }

    @Test func pendingInsertsChangesAndDeletesAreIncludedAndSorted() throws {
        let context = ModelContext(container)
        let all = try context.fetch(FetchDescriptor<Q.Gadget>(sortBy: [SortDescriptor(\.count)]))
        all[1].count = 100  // leaves "count < 10"
        all[12].count = -1  // enters it, first in order
        context.delete(all[2])
        context.insert(Q.Gadget("New", count: 5))
        var descriptor = FetchDescriptor<Q.Gadget>(predicate: #Predicate { $0.count < 10 }, sortBy: [SortDescriptor(\.count)])
        let names = try context.fetch(descriptor).map(\.name)
        let expected = [all[12].name] + [0, 3, 4, 5].map { all[$0].name } + ["New"] + [6, 7, 8, 9].map { all[$0].name }
        #expect(names == expected)
        #expect(try context.fetchCount(descriptor) == expected.count)
        descriptor.fetchLimit = 3
        descriptor.fetchOffset = 1
        #expect(try context.fetch(descriptor).map(\.name) == Array(expected[1..<4]))
        descriptor.includePendingChanges = false
        descriptor.fetchLimit = nil
        descriptor.fetchOffset = nil
        #expect(try context.fetch(descriptor).count == 10)
    }

    @Test func countsAndIdentifiersRunInSQL() throws {
        let context = ModelContext(container)
        let counter = try StatementCounter(context)
        let descriptor = FetchDescriptor<Q.Gadget>(predicate: #Predicate { $0.isActive }, sortBy: [SortDescriptor(\.name)])
        let count = try context.fetchCount(descriptor)
        #expect(counter.statements.last?.hasPrefix("SELECT count(*)") == true)
        let identifiers = try context.fetchIdentifiers(descriptor)
        #expect(identifiers.count == count)
        #expect(context.identityMap.values.allSatisfy { $0.count == 0 })
        let objects = try context.fetch(descriptor)
        #expect(objects.map(\.persistentModelID) == identifiers)
    }

    @Test func enumerateVisitsEveryObjectInBatchesAndReleasesThem() throws {
        let context = ModelContext(container)
        var names: [String] = []
        var weakObjects: [WeakBox] = []
        try context.enumerate(FetchDescriptor<Q.Gadget>(sortBy: [SortDescriptor(\.name)]), batchSize: 4) { gadget in
            names.append(gadget.name)
            weakObjects.append(WeakBox(gadget))
        }
        let expected = try ModelContext(container).fetch(FetchDescriptor<Q.Gadget>(sortBy: [SortDescriptor(\.name)])).map(\.name)
        #expect(names == expected)
        #expect(weakObjects.allSatisfy { $0.object == nil }, "objects of finished batches are released")
    }

    @Test func enumerateWithPendingChangesVisitsThemInOrderInBatches() throws {
        let context = ModelContext(container)
        let descriptor = FetchDescriptor<Q.Gadget>(sortBy: [SortDescriptor(\.name)])
        let first = try #require(try context.fetch(descriptor).first)
        context.delete(first)
        context.insert(Q.Gadget("A new one", count: 5))
        context.insert(Q.Gadget("Zz new", count: 6))
        var names: [String] = []
        try context.enumerate(descriptor, batchSize: 4) { names.append($0.name) }
        #expect(names == (try context.fetch(descriptor).map(\.name)))
        #expect(names.count == 17 && names.contains("A new one") && names.contains("Zz new"))
        #expect(!names.contains(first.name))
    }

    @Test func enumerateRefusesUnsavedMutationsUnlessAllowed() throws {
        let context = ModelContext(container)
        #expect(throws: ModelStoreError.self) {
            try context.enumerate(FetchDescriptor<Q.Gadget>(), batchSize: 3) { $0.count += 1 }
        }
        context.rollback()
        var visited = 0
        try context.enumerate(FetchDescriptor<Q.Gadget>(), batchSize: 3, allowEscapingMutations: true) { gadget in
            gadget.count += 1
            visited += 1
        }
        #expect(visited == 16)
        #expect(context.hasChanges)
    }

    @Test func anUnsupportedExpressionIsAnErrorNamingIt() throws {
        let context = ModelContext(container)
        #expect {
            try context.fetch(FetchDescriptor<Q.Gadget>(predicate: #Predicate { $0.displayName == "X" }))
        } throws: { error in
            guard case ModelStoreError.unsupportedQuery(let entity, let expression, _) = error else { return false }
            return entity == "Gadget" && expression.contains("KeyPath")
        }
        #expect {
            try context.fetch(FetchDescriptor<Q.Gadget>(predicate: #Predicate { $0.name.contains(/ab+/) }))
        } throws: { error in
            guard case ModelStoreError.unsupportedQuery(_, let expression, _) = error else { return false }
            return expression.contains("StringContainsRegex")
        }
    }

    @Test func propertiesToFetchReadsTheRestOnFirstAccess() throws {
        let context = ModelContext(container)
        let counter = try StatementCounter(context)
        var descriptor = FetchDescriptor<Q.Gadget>(sortBy: [SortDescriptor(\.count)])
        descriptor.propertiesToFetch = [\.name, \.count]
        let gadgets = try context.fetch(descriptor)
        let select = try #require(counter.statements.first)
        #expect(select.contains("\"name\"") && !select.contains("\"note\"") && !select.contains("\"score\""))
        #expect(select.contains("\"status\""), "an enum has no placeholder: always read")
        let reference = try ModelContext(container).fetch(FetchDescriptor<Q.Gadget>(sortBy: [SortDescriptor(\.count)]))
        counter.reset()
        let gadget = gadgets[3]
        #expect(gadget.name == reference[3].name)
        #expect(counter.count == 0, "fetched properties need no query")
        #expect(gadget.score == reference[3].score)
        #expect(gadget.note == reference[3].note)
        #expect(gadget.code == reference[3].code)
        #expect(counter.count == 3, "one query per unfetched property, on first access")
        _ = gadget.score
        #expect(counter.count == 3)
        #expect(!context.hasChanges, "reading a fault changes nothing")
        gadgets[4].price = 99
        try context.save()
        let saved = try ModelContext(container).fetch(FetchDescriptor<Q.Gadget>(sortBy: [SortDescriptor(\.count)]))[4]
        #expect(saved.price == 99 && saved.made == reference[4].made && saved.small == reference[4].small)
    }

    @Test func oneStatementPerPredicateShape() throws {
        let context = ModelContext(container)
        let counter = try StatementCounter(context)
        for limit in [2, 5, 9] {
            _ = try context.fetch(FetchDescriptor<Q.Gadget>(predicate: #Predicate { $0.count > limit }))
        }
        #expect(Set(counter.statements).count == 1, "the values are bound; the SQL text is the same")
    }
}
