import Foundation
import Testing
@testable import ModelStore

@Suite("Contexts in several isolation domains")
struct ConcurrencyTests {
    /// Each task has its own context on the shared container; saves wait for
    /// each other (BEGIN IMMEDIATE and the busy timeout) instead of failing.
    @Test func backgroundContextsSaveConcurrently() async throws {
        let store = try TestStore()
        let container = try store.container()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<4 {
                group.addTask {
                    let context = ModelContext(container)
                    for index in 0..<50 {
                        context.insert(makeTrip("W\(worker)-\(index)"))
                        if index.isMultiple(of: 10) { try context.save() }
                    }
                    try context.save()
                }
            }
            try await group.waitForAll()
        }
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Trip>()) == 200)
    }

    /// A table's SQL text is made on its first use, which contexts on
    /// several threads can reach at once: each must get the one text.
    @Test func tablesMakeTheirSQLOnceWhateverThreadAsks() async throws {
        let store = try TestStore()
        let container = try store.container()
        let table = try #require(container.store.table(named: "Trip"))
        let texts = try await withThrowingTaskGroup(of: [String].self) { group in
            for _ in 0..<8 {
                group.addTask { [table.selectSQL, table.selectByKeySQL, table.insertSQL, table.countSQL] }
            }
            return try await group.reduce(into: [[String]]()) { $0.append($1) }
        }
        #expect(Set(texts).count == 1)
        #expect(texts.first?.first?.hasPrefix("SELECT \"_pk\"") == true)
        #expect(texts.first?.last == #"SELECT count(*) FROM "Trip""#)
    }

    @Test func identifiersCrossIsolationDomains() async throws {
        let store = try TestStore()
        let container = try store.container()
        let identifier: PersistentIdentifier = try await Task.detached {
            let context = ModelContext(container)
            let trip = makeTrip()
            context.insert(trip)
            try context.save()
            return trip.persistentModelID
        }.value
        let trip = try ModelContext(container).model(for: identifier, as: Trip.self)
        #expect(trip?.name == "Lisbon")
    }
}
