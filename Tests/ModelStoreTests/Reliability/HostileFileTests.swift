import Foundation
import Testing
@testable import ModelStore
@testable import ModelStoreDynamic

/// Store files made hostile by hand: every attack is refused with a typed
/// error before anything is written, no foreign SQL runs, and the file is
/// left byte for byte as it was. `DynamicStore` (store-tool) opens such a
/// file read-only and its `check()` names every foreign object.
@Suite("Hostile store files")
struct HostileFileTests {
    private func bytes(_ url: URL) throws -> Data { try Data(contentsOf: url) }

    private func matches(_ found: ForeignSchemaObject, _ expected: ForeignSchemaObject) -> Bool {
        found.kind == expected.kind && found.name == expected.name && (expected.table == nil || found.table == expected.table)
    }

    @Test("a store as ModelStore made it has no foreign objects")
    func cleanStoreHasNone() throws {
        let directory = try TemporaryDirectory()
        let url = try HostileFile.baseStore(in: directory)
        let store = try DynamicStore(path: url.path)
        #expect(store.foreignSchemaObjects.isEmpty)
        #expect(try store.check().isEmpty)
        _ = try DynamicStore(path: url.path, readOnly: false)
    }

    @Test("each attack is refused, named, and leaves the file as it was", arguments: ForeignObjectAttack.all)
    func attackIsRefused(_ attack: ForeignObjectAttack) throws {
        let directory = try TemporaryDirectory()
        let url = try HostileFile.baseStore(in: directory)
        try attack.apply(url)
        let before = try bytes(url)

        #expect {
            _ = try HostileFile.container(url)
        } throws: { error in
            guard case ModelStoreError.foreignSchemaObjects(let path, let objects) = error else { return false }
            return path == url.path && objects.contains { matches($0, attack.expected) }
                && "\(error)".contains(attack.expected.name)
        }
        #expect(throws: ModelStoreError.self) { _ = try DynamicStore(path: url.path, readOnly: false) }
        #expect(try bytes(url) == before, "a refused open writes nothing")

        // store-tool's view: read-only, with the object named, and check reports it.
        let readOnly = try DynamicStore(path: url.path)
        #expect(readOnly.foreignSchemaObjects.contains { matches($0, attack.expected) })
        let problems = try readOnly.check()
        #expect(problems.contains { $0.kind == .foreignSchemaObject && $0.message.contains("\"\(attack.expected.name)\"") })
        #expect(try HostileFile.canaryCount(url) == 0)
        #expect(try bytes(url) == before)
    }

    /// The audit's answer is remembered per record and `sqlite_schema`
    /// rows for the process (SchemaAudit.swift): an object added to a file
    /// that already passed must change the answer.
    @Test("each attack on a file that opened cleanly before is refused at the next open", arguments: ForeignObjectAttack.all)
    func attackAfterCleanOpenIsRefused(_ attack: ForeignObjectAttack) throws {
        let directory = try TemporaryDirectory()
        let url = try HostileFile.baseStore(in: directory)
        _ = try HostileFile.container(url)
        _ = try HostileFile.container(url)
        try attack.apply(url)
        #expect {
            _ = try HostileFile.container(url)
        } throws: { error in
            guard case ModelStoreError.foreignSchemaObjects(_, let objects) = error else { return false }
            return objects.contains { matches($0, attack.expected) }
        }
    }

    @Test("a trigger planted while the app runs never fires on its saves")
    func triggerPlantedAfterOpenDoesNotRun() throws {
        let directory = try TemporaryDirectory()
        let url = try HostileFile.baseStore(in: directory)
        let container = try HostileFile.container(url)
        let context = ModelContext(container)
        _ = try context.fetch(FetchDescriptor<Graph.Trip>())
        try HostileFile.plant(
            url,
            HostileFile.canaryTrigger("late_insert", on: "Trip", "AFTER INSERT")
                + HostileFile.canaryTrigger("late_update", on: "Stop", "AFTER UPDATE")
                + HostileFile.canaryTrigger("late_delete", on: "Tag", "AFTER DELETE"))
        let paris = Graph.Trip(name: "Paris")
        paris.stops = [Graph.Stop(title: "Louvre")]
        context.insert(paris)
        for stop in try context.fetch(FetchDescriptor<Graph.Stop>()) { stop.title += "!" }
        for tag in try context.fetch(FetchDescriptor<Graph.Tag>()) { context.delete(tag) }
        try context.save()
        #expect(try HostileFile.canaryCount(url) == 0)
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Graph.Trip>()) == 2)
    }

    // MARK: Schema records that lie

    /// A base store whose schema record is replaced by `transform` of it.
    private func storeWithRecord(_ transform: (String) -> String) throws -> (URL, TemporaryDirectory) {
        let directory = try TemporaryDirectory()
        let url = try HostileFile.baseStore(in: directory)
        let connection = try Connection(location: url.path, mode: .readWrite)
        let read = try connection.prepare("SELECT value FROM \"_modelstore_metadata\" WHERE key = 'schema'")
        _ = try read.step()
        let record = transform(read.string(at: 0))
        let write = try connection.prepare("UPDATE \"_modelstore_metadata\" SET value = ? WHERE key = 'schema'")
        try write.bind(record, at: 1)
        try write.run()
        return (url, directory)
    }

    /// Opening through the app and through store-tool gives the same typed
    /// refusal naming the record (one rule for every reader).
    private func expectBothRefuse(_ url: URL, mentioning words: [String]) {
        let check: (any Error) -> Bool = { error in
            guard case ModelStoreError.notAModelStore(let path, let reason) = error else { return false }
            return path == url.path && words.allSatisfy { reason.contains($0) }
        }
        #expect(performing: { _ = try HostileFile.container(url) }, throws: check)
        #expect(performing: { _ = try DynamicStore(path: url.path) }, throws: check)
        #expect(performing: { _ = try DynamicStore(path: url.path, readOnly: false) }, throws: check)
        #expect(performing: { _ = try StoreMigrator(storeAt: url).status() }, throws: check)
    }

    @Test("a record whose relationship names an unknown entity")
    func recordWithDanglingRelationship() throws {
        let (url, _directory) = try storeWithRecord { $0.replacingOccurrences(of: "\"destination\":\"Stop\"", with: "\"destination\":\"Nowhere\"") }
        _ = _directory
        expectBothRefuse(url, mentioning: ["schema record", "Nowhere"])
    }

    @Test("a record whose inverse does not point back")
    func recordWithWrongInverse() throws {
        let (url, _directory) = try storeWithRecord { $0.replacingOccurrences(of: "\"inverseName\":\"trip\"", with: "\"inverseName\":\"title\"") }
        _ = _directory
        expectBothRefuse(url, mentioning: ["schema record"])
    }

    @Test("a record with an entity twice")
    func recordWithDuplicateEntity() throws {
        let (url, _directory) = try storeWithRecord { record in
            // The entities are a JSON array: repeat its first element.
            guard let start = record.range(of: "\"entities\":[") else { return record }
            let rest = record[start.upperBound...]
            var depth = 0
            var end = rest.startIndex
            for index in rest.indices {
                if rest[index] == "{" { depth += 1 }
                if rest[index] == "}" {
                    depth -= 1
                    if depth == 0 {
                        end = rest.index(after: index)
                        break
                    }
                }
            }
            let first = String(rest[rest.startIndex..<end])
            return record.replacingCharacters(in: start.upperBound..<start.upperBound, with: first + ",")
        }
        _ = _directory
        expectBothRefuse(url, mentioning: ["schema record", "two entities"])
    }

    /// Schema records that are not a schema at all, by what is wrong.
    static let brokenRecords: [String: String] = [
        "not JSON": "not json",
        "100,000 nested arrays": String(repeating: "[", count: 100_000),
        "entities of the wrong type": "{\"entities\": 12}",
        "an empty object": "{}",
        "a NUL and a replacement character": "\u{FFFD}\u{0}",
        "a name of a million characters": "{\"entities\":[{\"name\":\"" + String(repeating: "x", count: 1_000_000) + "\"}]}",
    ]

    @Test("records that are not a schema at all", arguments: brokenRecords.keys.sorted())
    func recordThatIsNotASchema(_ name: String) throws {
        let (url, _directory) = try storeWithRecord { _ in Self.brokenRecords[name] ?? "" }
        _ = _directory
        #expect(throws: ModelStoreError.self) { _ = try HostileFile.container(url) }
        #expect(throws: ModelStoreError.self) { _ = try DynamicStore(path: url.path) }
    }

    @Test("a record that is not UTF-8")
    func recordThatIsNotUTF8() throws {
        let directory = try TemporaryDirectory()
        let url = try HostileFile.baseStore(in: directory)
        try HostileFile.plant(url, "UPDATE \"_modelstore_metadata\" SET value = CAST(X'7BC328FF' AS TEXT) WHERE key = 'schema'")
        #expect(throws: ModelStoreError.self) { _ = try HostileFile.container(url) }
        #expect(throws: ModelStoreError.self) { _ = try DynamicStore(path: url.path) }
    }
}
