import Foundation
import Testing
@testable import ModelStore
@testable import ModelStoreDynamic

enum RecordMood: String, Codable, CaseIterable, Sendable { case calm, busy }
enum RecordLevel: Int, Codable, CaseIterable, Sendable { case low = 1, high = 5 }
enum RecordPlain: String, Codable, Sendable { case a, b }

/// Every shape of initial value: literals, collections, enum cases, and
/// values that may be computed (which the record must not hold).
@Model final class RecordDefaults {
    var count = 3
    var ratio: Double = 0.5
    var title = "untitled"
    var label = "n = \(1)"
    var isOn = true
    var floor = -3
    var tags: [String] = ["a", "b"]
    var map: [String: Int] = [:]
    var mood: RecordMood = .busy
    var level: RecordLevel = RecordLevel.high
    var plain: RecordPlain = .a
    var optionalMood: RecordMood? = nil
    var created: Date = Date()
    var moment: Date = .distantPast
    var required: String

    init(required: String) { self.required = required }
}

@Suite("The schema record: enum cases and constant defaults, outside the fingerprint")
struct SchemaRecordTests {
    private func attribute(_ name: String) throws -> Schema.Attribute {
        try #require(Schema([RecordDefaults.self]).entity(named: "RecordDefaults")?.attribute(named: name))
    }

    @Test("constant initial values are recorded in store-tool's text form; computed ones are not")
    func defaults() throws {
        let expected: [String: String?] = [
            "count": "3", "ratio": "0.5", "title": "untitled", "label": nil, "isOn": "true", "floor": "-3",
            "tags": #"["a","b"]"#, "map": "{}", "mood": "busy", "level": "5", "plain": "a", "optionalMood": nil,
            "created": nil, "moment": nil, "required": nil,
        ]
        for (name, value) in expected {
            #expect(try attribute(name).defaultValue == value, "\(name)")
        }
    }

    @Test("the cases of CaseIterable enums are recorded by raw value, in order")
    func enumCases() throws {
        #expect(try attribute("mood").enumCases == ["calm", "busy"])
        #expect(try attribute("optionalMood").enumCases == ["calm", "busy"])
        #expect(try attribute("level").enumCases == ["1", "5"])
        #expect(try attribute("plain").enumCases == nil)
        #expect(try attribute("title").enumCases == nil)
    }

    @Test("the fingerprint and the differences ignore cases and defaults; an old record still reads")
    func fingerprintUnchanged() throws {
        let schema = try Schema([RecordDefaults.self]).resolvingRelationships()
        var stripped = schema
        for index in stripped.entities.indices {
            stripped.entities[index].attributes = stripped.entities[index].attributes.map {
                var attribute = $0
                attribute.enumCases = nil
                attribute.defaultValue = nil
                return attribute
            }
        }
        #expect(schema.fingerprint == stripped.fingerprint)
        #expect(schema.differences(from: stripped).isEmpty)
        #expect(stripped.differences(from: schema).isEmpty)
        // A record written before the fields existed has no such keys.
        let oldRecord = try stripped.recordData()
        #expect(!String(decoding: oldRecord, as: UTF8.self).contains("enumCases"))
        let read = try Schema(recordData: oldRecord)
        #expect(read.fingerprint == schema.fingerprint)
        #expect(read.entities[0].attribute(named: "mood")?.enumCases == nil)
        // The new record holds them, and reads back the same.
        let newRecord = try schema.recordData()
        #expect(try Schema(recordData: newRecord).entities[0].attribute(named: "mood")?.enumCases == ["calm", "busy"])
    }

    @Test("opening a store whose record predates the fields records them, and changes nothing else")
    func refreshOnOpen() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file()
        do {
            let container = try ModelContainer(for: RecordDefaults.self, configurations: ModelConfiguration(url: url))
            let context = ModelContext(container)
            context.insert(RecordDefaults(required: "x"))
            try context.save()
        }
        // Make the record look like an old one.
        let connection = try Connection(location: url.path(percentEncoded: false), mode: .readWrite)
        let read = try connection.prepare("SELECT value FROM _modelstore_metadata WHERE key = 'schema'")
        _ = try read.step()
        var old = try Schema(recordData: Data(read.string(at: 0).utf8))
        let fingerprint = old.fingerprint
        for index in old.entities[0].attributes.indices {
            old.entities[0].attributes[index].enumCases = nil
            old.entities[0].attributes[index].defaultValue = nil
        }
        let write = try connection.prepare("UPDATE _modelstore_metadata SET value = ? WHERE key = 'schema'")
        try write.bind(String(decoding: try old.recordData(), as: UTF8.self), at: 1)
        try write.run()
        let readOnly = try ModelContainer(
            for: RecordDefaults.self, configurations: ModelConfiguration(url: url, allowsSave: false))
        _ = readOnly
        #expect(try DynamicStore(path: url.path(percentEncoded: false)).schema.entities[0].attribute(named: "mood")?.enumCases == nil)
        _ = try ModelContainer(for: RecordDefaults.self, configurations: ModelConfiguration(url: url))
        let store = try DynamicStore(path: url.path(percentEncoded: false))
        #expect(store.schema.entities[0].attribute(named: "mood")?.enumCases == ["calm", "busy"])
        #expect(store.schema.entities[0].attribute(named: "count")?.defaultValue == "3")
        #expect(store.schema.fingerprint == fingerprint)
        #expect(store.metadata["schemaFingerprint"] == .text(fingerprint))
        #expect(try MigrationHistory.read(store.connection).isEmpty)
    }
}
