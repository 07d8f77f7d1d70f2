import Foundation
import Testing
@testable import ModelStore
@testable import ModelStoreDynamic

/// Damaged store files: flipped bits, overwritten pages, truncation, a bad
/// header, a WAL from another database. Opening, reading, checking and
/// saving through the app's API and through `DynamicStore` may fail, but
/// only with a typed error: never a crash, a hang, or a silently wrong
/// value (a row that cannot be decoded throws).
///
/// A CI run tries `Self.count` mutations from a seed printed in the log;
/// `MODELSTORE_STRESS=1` tries 10,000. `MODELSTORE_MUTATION_SEED=N` repeats
/// a run.
@Suite("Damaged store files")
struct MutatedFileTests {
    static var count: Int { ProcessInfo.processInfo.environment["MODELSTORE_STRESS"] == "1" ? 10_000 : 300 }

    /// Every error must be one of ModelStore's typed errors.
    private func expectTyped(_ error: any Error, _ label: String) {
        #expect(error is ModelStoreError || error is SQLiteError || error is DynamicStoreError, "\(label): \(type(of: error)) \(error)")
    }

    /// Reads everything the app could read, then changes and saves something.
    private func exerciseApp(_ url: URL, _ label: String) {
        do {
            let container = try HostileFile.container(url)
            let context = ModelContext(container)
            for trip in try context.fetch(FetchDescriptor<Graph.Trip>()) {
                _ = trip.name
                _ = trip.stops.map(\.title)
                _ = trip.tags.map(\.name)
                _ = trip.owner?.name
                if let error = context.lastFaultError { throw error }
                trip.name += "·"
            }
            _ = try context.fetch(FetchDescriptor<Graph.Person>()).map { $0.reports.count }
            context.insert(Graph.Trip(name: "inserted \(label)"))
            try context.save()
        } catch {
            expectTyped(error, label)
        }
    }

    /// Reads and checks the file as store-tool does.
    private func exerciseTool(_ url: URL, _ label: String) {
        do {
            let store = try DynamicStore(path: url.path)
            _ = try store.check()
            for entity in store.schema.entities {
                try store.forEach(DynamicQuery(entity: entity.name, includesToManyMembers: true)) { _ in }
            }
        } catch {
            expectTyped(error, label)
        }
    }

    private enum Mutation: CaseIterable {
        case flipBytes, flipHeader, zeroRegion, randomPage, truncate, appendGarbage
    }

    private func mutate(_ original: Data, _ generator: inout SeededGenerator) -> (Data, String) {
        var bytes = [UInt8](original)
        let mutation = Mutation.allCases[Int(generator.next() % UInt64(Mutation.allCases.count))]
        func offset(in range: Int) -> Int { Int(generator.next() % UInt64(max(range, 1))) }
        switch mutation {
        case .flipBytes:
            for _ in 0..<(1 + offset(in: 8)) { bytes[offset(in: bytes.count)] ^= UInt8(1 + offset(in: 255)) }
        case .flipHeader:
            bytes[offset(in: 100)] ^= UInt8(1 + offset(in: 255))
        case .zeroRegion:
            let start = offset(in: bytes.count)
            for index in start..<min(bytes.count, start + 512) { bytes[index] = 0 }
        case .randomPage:
            let pageSize = 4096
            let page = offset(in: bytes.count / pageSize)
            for index in (page * pageSize)..<min(bytes.count, (page + 1) * pageSize) { bytes[index] = UInt8(truncatingIfNeeded: generator.next()) }
        case .truncate:
            bytes.removeLast(1 + offset(in: bytes.count - 1))
        case .appendGarbage:
            bytes += (0..<(1 + offset(in: 8192))).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
        }
        return (Data(bytes), "\(mutation)")
    }

    @Test("mutated copies of a store give typed errors, never a crash or a hang", .timeLimit(.minutes(10)))
    func mutatedCopies() throws {
        let directory = try TemporaryDirectory()
        let base = try HostileFile.baseStore(in: directory)
        // More rows, so that mutations land in data pages as well as the schema.
        do {
            let context = ModelContext(try HostileFile.container(base))
            for index in 0..<200 {
                let trip = Graph.Trip(name: "Trip \(index)")
                trip.stops = (0..<3).map { Graph.Stop(title: "Stop \(index).\($0)") }
                context.insert(trip)
            }
            try context.save()
        }
        let original = try Data(contentsOf: base)
        let seed = ProcessInfo.processInfo.environment["MODELSTORE_MUTATION_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 1...UInt64.max)
        print("MutatedFileTests: seed \(seed), \(Self.count) mutations (repeat with MODELSTORE_MUTATION_SEED=\(seed))")
        var generator = SeededGenerator(seed: seed)
        for index in 0..<Self.count {
            let (bytes, mutation) = mutate(original, &generator)
            let url = directory.file("mutant-\(index).store")
            try bytes.write(to: url)
            let label = "mutation \(index) (\(mutation), seed \(seed))"
            exerciseTool(url, label)
            exerciseApp(url, label)
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: url.path + suffix) }
        }
    }

    @Test("a file whose header is not SQLite's is not a database")
    func badHeader() throws {
        let directory = try TemporaryDirectory()
        let url = try HostileFile.baseStore(in: directory)
        var bytes = try Data(contentsOf: url)
        bytes.replaceSubrange(0..<16, with: Data("ModelStore rocks".utf8))
        try bytes.write(to: url)
        #expect(throws: ModelStoreError.notADatabase(path: url.path)) { _ = try HostileFile.container(url) }
        #expect(throws: ModelStoreError.notADatabase(path: url.path)) { _ = try DynamicStore(path: url.path) }
        #expect(try Data(contentsOf: url) == bytes)
    }

    @Test("a WAL file from another database next to the store")
    func foreignWriteAheadLog() throws {
        let directory = try TemporaryDirectory()
        let store = try HostileFile.baseStore(in: directory, name: "mine.store")
        let other = directory.file("other.store")
        // Keep the other store open so that its WAL still holds frames when copied.
        let container = try HostileFile.container(other)
        let context = ModelContext(container)
        for index in 0..<50 { context.insert(Graph.Trip(name: "Other \(index)")) }
        try context.save()
        try FileManager.default.copyItem(atPath: other.path + "-wal", toPath: store.path + "-wal")
        exerciseTool(store, "foreign WAL")
        exerciseApp(store, "foreign WAL")
    }
}
