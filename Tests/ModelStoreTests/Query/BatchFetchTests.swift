import Foundation
import Testing
@testable import ModelStore

/// `fetch(_:batchSize:)` and `fetchIdentifiers(_:batchSize:)`: the same
/// results as `fetch(_:)`, loaded a batch at a time.
@Suite struct BatchFetchTests {
    let store: TestStore
    let container: ModelContainer

    init() throws {
        store = try TestStore()
        container = try store.container(Q.types)
        try Q.seed(ModelContext(container))
    }

    private var sorted: FetchDescriptor<Q.Gadget> {
        FetchDescriptor(predicate: #Predicate { $0.count != 5 }, sortBy: [SortDescriptor(\.name), SortDescriptor(\.count)])
    }

    @Test func elementsInAnyOrderAreThoseOfFetch() throws {
        let expected = try ModelContext(container).fetch(sorted).map(\.name)
        let context = ModelContext(container)
        let results = try context.fetch(sorted, batchSize: 3)
        #expect(results.count == expected.count)
        var generator = SeededGenerator(seed: 19)
        for position in results.indices.shuffled(using: &generator) {
            #expect(results[position].name == expected[position], "position \(position)")
        }
        #expect(results.map(\.name) == expected)
        #expect(results.reversed().map(\.name) == expected.reversed())
        #expect(results.last?.name == expected.last)
    }

    @Test func eachBatchIsOneQueryWhenFirstRead() throws {
        let context = ModelContext(container)
        let counter = try StatementCounter(context)
        let results = try context.fetch(sorted, batchSize: 4)
        #expect(counter.count == 2, "the keys, and the first batch")
        #expect(counter.statements.first?.contains("ORDER BY") == true)
        _ = results[3]
        #expect(counter.count == 2)
        _ = results[results.count - 1]  // a batch beyond the next one
        _ = results[results.count - 2]
        #expect(counter.count == 3)
        _ = results[5]
        _ = results[6]
        #expect(counter.count == 4)
        #expect(counter.statements.last?.contains("json_each") == true)
    }

    @Test func limitOffsetPartialFetchAndPrefetchingApply() throws {
        var descriptor = sorted
        descriptor.fetchOffset = 2
        descriptor.fetchLimit = 9
        descriptor.propertiesToFetch = [\.name]
        descriptor.relationshipKeyPathsForPrefetching = [\.parts]
        let expected = try ModelContext(container).fetch(descriptor)
        let context = ModelContext(container)
        let results = try context.fetch(descriptor, batchSize: 4)
        #expect(results.count == 9)
        let counter = try StatementCounter(context)
        let object = results[8]  // the last batch: one object
        #expect(counter.count == 2, "the batch, and its parts prefetched")
        #expect(object.parts.count == expected[8].parts.count)
        #expect(counter.count == 2, "parts were prefetched")
        #expect(object.note == expected[8].note)
        #expect(counter.count == 3, "note was not fetched")
        #expect(results.map(\.name) == expected.map(\.name))
    }

    @Test func objectsOfEarlierBatchesAreReleasedAndHeldOnesStayTheSame() throws {
        let context = ModelContext(container)
        let results = try context.fetch(sorted, batchSize: 2)
        let held = results[1]
        let released = [WeakBox(results[0])] + (2..<4).map { WeakBox(results[$0]) }
        for position in 4..<8 { _ = results[position] }
        #expect(released.allSatisfy { $0.object == nil }, "batches 0 and 1 are no longer kept")
        #expect(results[1] === held, "the app's object is the row's object")
        #expect(results[0].name == (try ModelContext(container).fetch(sorted)[0].name))
    }

    @Test func anEmptyResultIsAnEmptyCollection() throws {
        let context = ModelContext(container)
        let results = try context.fetch(FetchDescriptor<Q.Gadget>(predicate: #Predicate { $0.count > 1_000 }), batchSize: 5)
        #expect(results.isEmpty)
        #expect(results.count == 0)
        #expect(Array(results).isEmpty)
        #expect(try context.fetchIdentifiers(FetchDescriptor<Q.Gadget>(predicate: #Predicate { $0.count > 1_000 }), batchSize: 5).isEmpty)
    }

    @Test(arguments: [0, -1])
    func aBatchSizeBelowOneIsAnError(batchSize: Int) throws {
        let context = ModelContext(container)
        let error = try #require(throws: ModelStoreError.self) { try context.fetch(sorted, batchSize: batchSize) }
        #expect(error.description.contains("batchSize: \(batchSize)"))
        #expect(error.description.contains("Gadget"))
        #expect(throws: ModelStoreError.self) { try context.fetchIdentifiers(sorted, batchSize: batchSize) }
    }

    @Test func unsavedChangesNeedIncludePendingChangesOff() throws {
        let context = ModelContext(container)
        context.insert(Q.Gadget("Unsaved"))
        let error = try #require(throws: ModelStoreError.self) { try context.fetch(FetchDescriptor<Q.Gadget>(), batchSize: 4) }
        #expect(error.description.contains("includePendingChanges"))
        #expect(throws: ModelStoreError.self) { try context.fetchIdentifiers(FetchDescriptor<Q.Gadget>(), batchSize: 4) }
        // Unsaved changes of another entity do not count.
        #expect(try context.fetch(FetchDescriptor<Q.Maker>(), batchSize: 1).count == 2)
        var stored = FetchDescriptor<Q.Gadget>()
        stored.includePendingChanges = false
        let results = try context.fetch(stored, batchSize: 4)
        #expect(results.count == 16)
        #expect(!results.contains { $0.name == "Unsaved" })
        #expect(try context.fetchIdentifiers(stored, batchSize: 4).count == 16)
    }

    @Test func identifiersInBatchesAreThoseOfFetchIdentifiers() throws {
        let context = ModelContext(container)
        let expected = try context.fetchIdentifiers(sorted)
        let identifiers = try context.fetchIdentifiers(sorted, batchSize: 3)
        #expect(Array(identifiers) == expected)
        #expect(identifiers[7] == expected[7])
        #expect(context.identityMap.values.allSatisfy { $0.count == 0 }, "no object is made")
    }

    @Test func aRowDeletedBeforeItsBatchLoadsStopsWithItsName() async throws {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            // Any failure before the read exits with success, failing the test.
            guard let results = try? Self.resultsWithARowDeletedAfterTheFetch() else { exit(0) }
            _ = results[8]  // the batch of counts 8 and 9
        }
        let message = String(decoding: try #require(result).standardErrorContent, as: UTF8.self)
        #expect(message.contains("Gadget"), "\(message)")
        #expect(message.contains("fetch(_:batchSize:)"), "\(message)")
    }

    /// A batched fetch of every gadget by count, two per batch, after which
    /// another context deletes the gadget of count 9.
    private static func resultsWithARowDeletedAfterTheFetch() throws -> FetchResultsCollection<Q.Gadget> {
        let container = try ModelContainer(for: Schema(Q.types), configurations: [ModelConfiguration(isStoredInMemoryOnly: true)])
        try Q.seed(ModelContext(container))
        let results = try ModelContext(container).fetch(FetchDescriptor<Q.Gadget>(sortBy: [SortDescriptor(\.count)]), batchSize: 2)
        let other = ModelContext(container)
        try other.delete(model: Q.Gadget.self, where: #Predicate { $0.count == 9 })
        try other.save()
        return results
    }

    @Test func aRowDeletedAfterItsBatchLoadedStaysItsObject() throws {
        let results = try ModelContext(container).fetch(FetchDescriptor<Q.Gadget>(sortBy: [SortDescriptor(\.count)]), batchSize: 20)
        let other = ModelContext(container)
        try other.delete(model: Q.Gadget.self, where: #Predicate { $0.count == 9 })
        try other.save()
        #expect(results[9].count == 9)
    }
}
