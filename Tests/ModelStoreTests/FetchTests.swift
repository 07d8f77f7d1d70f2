import Foundation
import Testing
@testable import ModelStore

@Suite("Fetching")
struct FetchTests {
    /// A store with trips named A…E, saved in the order C, A, E, B, D.
    private func storeWithTrips(_ kind: StoreKind = .file) throws -> (TestStore, ModelContainer) {
        let store = try TestStore(kind)
        let container = try store.container()
        let context = ModelContext(container)
        for (index, name) in ["C", "A", "E", "B", "D"].enumerated() {
            let trip = makeTrip(name, destination: index.isMultiple(of: 2) ? "Portugal" : "Spain")
            trip.startDate = Date(timeIntervalSince1970: Double(index) * 86_400)
            context.insert(trip)
        }
        try context.save()
        return (store, container)
    }

    @Test(arguments: StoreKind.allCases)
    func defaultOrderIsInsertionOrder(kind: StoreKind) throws {
        let (_, container) = try storeWithTrips(kind)
        let names = try ModelContext(container).fetch(FetchDescriptor<Trip>()).map(\.name)
        #expect(names == ["C", "A", "E", "B", "D"])
    }

    @Test func sortLimitAndOffset() throws {
        let (_, container) = try storeWithTrips()
        let context = ModelContext(container)
        var descriptor = FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)])
        #expect(try context.fetch(descriptor).map(\.name) == ["A", "B", "C", "D", "E"])
        descriptor.fetchLimit = 2
        descriptor.fetchOffset = 1
        #expect(try context.fetch(descriptor).map(\.name) == ["B", "C"])
        descriptor.sortBy = [SortDescriptor(\.destination), SortDescriptor(\.name, order: .reverse)]
        descriptor.fetchLimit = nil
        descriptor.fetchOffset = nil
        #expect(try context.fetch(descriptor).map(\.name) == ["E", "D", "C", "B", "A"])
    }

    @Test func limitAndOffsetWithoutSorting() throws {
        let (_, container) = try storeWithTrips()
        let context = ModelContext(container)
        var descriptor = FetchDescriptor<Trip>()
        descriptor.fetchLimit = 2
        descriptor.fetchOffset = 3
        #expect(try context.fetch(descriptor).map(\.name) == ["B", "D"])
        #expect(try context.fetchCount(descriptor) == 2)
        descriptor.fetchOffset = 10
        #expect(try context.fetch(descriptor).isEmpty)
        #expect(try context.fetchCount(descriptor) == 0)
        descriptor.fetchOffset = nil
        descriptor.fetchLimit = 0
        #expect(try context.fetch(descriptor).isEmpty)
    }

    @Test func predicateFiltersObjects() throws {
        let (_, container) = try storeWithTrips()
        let context = ModelContext(container)
        let destination = "Spain"
        let descriptor = FetchDescriptor<Trip>(
            predicate: #Predicate { $0.destination == destination },
            sortBy: [SortDescriptor(\.name)])
        #expect(try context.fetch(descriptor).map(\.name) == ["A", "B"])
        #expect(try context.fetchCount(descriptor) == 2)
    }

    @Test func pendingChangesCountUnlessExcluded() throws {
        let (_, container) = try storeWithTrips()
        let context = ModelContext(container)
        let first = try #require(try context.fetch(FetchDescriptor<Trip>()).first)
        context.delete(first)
        let added = makeTrip("F")
        context.insert(added)
        let names = try context.fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)])).map(\.name)
        #expect(names == ["A", "B", "D", "E", "F"])
        #expect(try context.fetchCount(FetchDescriptor<Trip>()) == 5)
        var saved = FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)])
        saved.includePendingChanges = false
        #expect(try context.fetch(saved).map(\.name) == ["A", "B", "C", "D", "E"])
    }

    @Test func fetchedObjectsKeepTheirUnsavedChanges() throws {
        let (_, container) = try storeWithTrips()
        let context = ModelContext(container)
        let trip = try #require(try context.fetch(FetchDescriptor<Trip>()).first)
        trip.destination = "Changed"
        let again = try context.fetch(FetchDescriptor<Trip>()).first
        #expect(again === trip)
        #expect(again?.destination == "Changed")
    }

    @Test func fetchCountCountsRows() throws {
        let (_, container) = try storeWithTrips()
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Trip>()) == 5)
    }

    @Test func largeFetchRunsOneStatement() throws {
        let store = try TestStore()
        let container = try store.containerWithSavedTrips(2_000)
        let context = ModelContext(container)
        var count = 0
        try context.connection().statementObserver = { _ in count += 1 }
        #expect(try context.fetch(FetchDescriptor<Trip>()).count == 2_000)
        #expect(count == 1)
    }
}
