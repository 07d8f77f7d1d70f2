import Foundation
import Testing
@testable import ModelStore

@Suite("Reads in one snapshot (withSnapshot)")
struct SnapshotTests {
    @Test func readsInTheBlockSeeOneStateWhileAnotherContextSaves() throws {
        let store = try TestStore()
        let container = try store.containerWithSavedTrips(3)
        let reader = ModelContext(container)
        let writer = ModelContext(container)
        let counts = try reader.withSnapshot {
            let before = try reader.fetchCount(FetchDescriptor<Trip>())
            writer.insert(makeTrip("New"))
            try writer.save()
            let during = try reader.fetchCount(FetchDescriptor<Trip>())
            let names = try reader.fetch(FetchDescriptor<Trip>()).map(\.name)
            return (before, during, names.contains("New"))
        }
        #expect(counts.0 == 3)
        #expect(counts.1 == 3, "the snapshot must not see a save made after its first read")
        #expect(counts.2 == false)
        #expect(try reader.fetchCount(FetchDescriptor<Trip>()) == 4, "after the block, reads see the newest state")
    }

    @Test func aSaveInTheBlockCommitsAtOnceAndANewSnapshotFollows() throws {
        let store = try TestStore()
        let container = try store.containerWithSavedTrips(3)
        let context = ModelContext(container)
        let other = ModelContext(container)
        try context.withSnapshot {
            #expect(try context.fetchCount(FetchDescriptor<Trip>()) == 3)
            context.insert(makeTrip("Mine"))
            try context.save()
            #expect(try other.fetchCount(FetchDescriptor<Trip>()) == 4, "the save is committed, not held until the block ends")
            #expect(try context.fetchCount(FetchDescriptor<Trip>()) == 4, "the new snapshot sees the save")
            other.insert(makeTrip("Theirs"))
            try other.save()
            #expect(try context.fetchCount(FetchDescriptor<Trip>()) == 4, "and is again one snapshot")
        }
        #expect(try context.fetchCount(FetchDescriptor<Trip>()) == 5)
    }

    @Test func aThrowingBlockEndsTheSnapshotAndRethrows() throws {
        struct Stop: Error {}
        let store = try TestStore()
        let container = try store.containerWithSavedTrips(2)
        let context = ModelContext(container)
        #expect(throws: Stop.self) {
            try context.withSnapshot {
                _ = try context.fetchCount(FetchDescriptor<Trip>())
                throw Stop()
            }
        }
        #expect(try context.connection().isAutocommit, "no transaction may stay open")
        let writer = ModelContext(container)
        writer.insert(makeTrip("Later"))
        try writer.save()
        #expect(try context.fetchCount(FetchDescriptor<Trip>()) == 3)
    }

    @Test func lookupsAndNestedBlocksShareTheSnapshot() throws {
        let store = try TestStore()
        let container = try store.containerWithSavedTrips(5)
        let identifiers = try ModelContext(container).fetch(FetchDescriptor<Trip>()).map(\.persistentModelID)
        let context = ModelContext(container)
        let names = try context.withSnapshot {
            try context.withSnapshot {
                identifiers.compactMap { (context.model(for: $0) as? Trip)?.name }
            }
        }
        #expect(names == (0..<5).map { "T\($0)" })
        #expect(try context.connection().isAutocommit)
    }
}
