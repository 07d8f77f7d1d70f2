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
}
