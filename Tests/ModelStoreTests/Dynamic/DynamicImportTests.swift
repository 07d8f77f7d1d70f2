import Foundation
import Testing
@testable import ModelStore
@testable import ModelStoreDynamic

@Suite("Dynamic layer: importing JSONL records")
struct DynamicImportTests {
    /// A JSONL file of `count` new trips.
    func records(_ count: Int, in store: TestStore) throws -> String {
        let path = store.directory.file("trips.jsonl").path(percentEncoded: false)
        let lines = (1...count).map { #"{"key":"Trip:\#($0)","attributes":{"name":"T\#($0)","destination":"D","startDate":0}}"# }
        try lines.joined(separator: "\n").write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test("records are read line by line; the defaults of attributes left out are filled")
    func importsLines() throws {
        let store = try TestStore()
        _ = try store.container()
        let path = try records(2500, in: store)
        let dynamic = try DynamicStore(path: store.url.path(percentEncoded: false), readOnly: false)
        var phases: [String] = []
        let result = try dynamic.importObjects(from: .jsonLines(path: path)) { step in
            if phases.last != step.phase { phases.append(step.phase) }
        }
        #expect(result.counts.first { $0.entity == "Trip" }?.count == 2500)
        #expect(phases == ["checking", "inserting", "linking"])
        let trip = try #require(try dynamic.object(ObjectID(entity: "Trip", key: 1)))
        #expect(trip["status"] == .string("planned"))
        #expect(trip["tags"] == .json("[]"))
    }

    @Test("a file that changes between the check and the write is refused, and nothing is written")
    func fileChangedDuringImport() throws {
        let store = try TestStore()
        _ = try store.container()
        let path = try records(2500, in: store)
        let dynamic = try DynamicStore(path: store.url.path(percentEncoded: false), readOnly: false)
        var changed = false
        #expect(throws: DynamicStoreError.self) {
            _ = try dynamic.importObjects(from: .jsonLines(path: path)) { step in
                guard step.phase == "inserting", !changed else { return }
                changed = true
                let handle = try? FileHandle(forWritingTo: URL(filePath: path))
                _ = try? handle?.seekToEnd()
                try? handle?.write(contentsOf: Data("\n{\"key\":\"Trip:9999\",\"attributes\":{\"name\":\"late\",\"startDate\":\"x\"}}".utf8))
                try? handle?.close()
            }
        }
        #expect(changed)
        #expect(try dynamic.count("Trip") == 0)
    }

    @Test("repeated unique values are found across lookup batches: within the file, and against the store")
    func uniqueValuesAcrossBatches() throws {
        let store = try TestStore()
        _ = try store.container()
        let dynamic = try DynamicStore(path: store.url.path(percentEncoded: false), readOnly: false)
        _ = try dynamic.insert("Trip", [DynamicEdit(parsing: "name=Stored"), DynamicEdit(parsing: "destination=D"), DynamicEdit(parsing: "startDate=2025-01-01")])
        // Three lookup batches' worth of records: record 1,250 repeats record
        // 3's name (a batch flushed long before), record 1,400 the store's.
        let count = UniqueBatch.lookupSize * 3
        let path = store.directory.file("trips.jsonl").path(percentEncoded: false)
        let lines = (1...count).map { number in
            let name = number == 1250 ? "T3" : number == 1400 ? "Stored" : "T\(number)"
            return #"{"key":"Trip:\#(number)","attributes":{"name":"\#(name)","destination":"D","startDate":0}}"#
        }
        try lines.joined(separator: "\n").write(toFile: path, atomically: true, encoding: .utf8)
        do {
            _ = try dynamic.importObjects(from: .jsonLines(path: path))
            Issue.record("the repeated names were not found")
        } catch DynamicStoreError.importProblems(let problems) {
            let found = problems.listed.map { "\($0.kind) \($0.object.map(String.init(describing:)) ?? "") line \($0.line ?? 0)" }
            #expect(found.sorted() == ["duplicateUniqueValue Trip:1250 line 1250", "duplicateUniqueValue Trip:1400 line 1400"])
            #expect(problems.listed.first { $0.line == 1250 }?.message.contains("Trip:3 in the file") == true)
        }
        #expect(try dynamic.count("Trip") == 1)
    }
}
