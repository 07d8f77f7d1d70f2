import Foundation
import Testing
@testable import ModelStore
@testable import ModelStoreDynamic

@Suite("Dynamic layer: a JSON export streamed record by record")
struct ExportStreamTests {
    /// A JSON export of `count` airports (and an empty array of flights,
    /// written first, which the reader takes after the airports: entities go
    /// by name).
    private func export(_ count: Int, schema: Schema, in store: TestStore) throws -> String {
        let airports = (1...count).map {
            #"{"key":"Airport:\#($0)","attributes":{"code":"C\#($0)"},"relationships":{"departures":[],"arrivals":[]}}"#
        }
        let text = try DynamicExchange.header(schema: schema) + "\n\"Flight\": [ ],\n\"Airport\":[\n" + airports.joined(separator: ",\n") + "\n]}}\n"
        let path = store.directory.file("export.json").path(percentEncoded: false)
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test("records arrive one by one, before the reader has reached the end of the file")
    func recordsBeforeTheEnd() throws {
        let store = try TestStore()
        _ = try store.graphContainer()
        let dynamic = try DynamicStore(path: store.url.path(percentEncoded: false))
        // Far more than one read buffer of records.
        let path = try export(3000, schema: dynamic.schema, in: store)
        guard case .jsonExport(let stream) = try DynamicImportSource.open(path: path) else {
            Issue.record("a JSON export is not streamed")
            return
        }
        var keys: [String] = []
        #expect(throws: DynamicStoreError.self) {
            try stream.forEach { record in
                keys.append(record.key)
                guard keys.count == 1 else { return }
                // The end of the file breaks once the first record is read:
                // a reader that had the whole file would not notice.
                let handle = try FileHandle(forUpdating: URL(filePath: path))
                let size = try handle.seekToEnd()
                try handle.seek(toOffset: size - 20)
                try handle.write(contentsOf: Data(repeating: UInt8(ascii: "x"), count: 20))
                try handle.close()
            }
        }
        #expect(keys.count > 1 && keys.count < 3000)
        #expect(keys.prefix(2) == ["Airport:1", "Airport:2"])
    }

    @Test("a streamed export imports every record, entity by entity")
    func importsStreamed() throws {
        let store = try TestStore()
        _ = try store.graphContainer()
        let dynamic = try DynamicStore(path: store.url.path(percentEncoded: false), readOnly: false)
        let path = try export(1200, schema: dynamic.schema, in: store)
        let source = try DynamicImportSource.open(path: path)
        let result = try dynamic.importObjects(from: source)
        #expect(result.counts.first { $0.entity == "Airport" }?.count == 1200)
        #expect(try dynamic.object(ObjectID(entity: "Airport", key: 1200))?["code"] == .string("C1200"))
    }

    @Test("a file that is not an export is read whole, for the same error as before")
    func brokenExportKeepsItsError() throws {
        let store = try TestStore()
        let path = store.directory.file("broken.json").path(percentEncoded: false)
        let text = #"{"format":"modelstore-export","version":1,"schema":{},"entities":{"Trip":[{"key":"Trip:1"},]}}"#
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        var streamed: DynamicStoreError?
        do { _ = try DynamicImportSource.open(path: path) } catch let error as DynamicStoreError { streamed = error }
        var whole: DynamicStoreError?
        do { _ = try DynamicExportFile(data: Data(text.utf8)) } catch { whole = error }
        #expect(streamed != nil && streamed == whole)
    }
}
