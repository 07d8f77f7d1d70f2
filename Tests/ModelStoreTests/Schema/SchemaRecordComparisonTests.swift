import Foundation
import Testing
@testable import ModelStore

@Model final class RecordComparisonPlace {
    var name: String
    var rating: Int
    init(name: String, rating: Int) {
        self.name = name
        self.rating = rating
    }
}

/// Opening compares the stored record's text with the app's canonical text
/// and decodes the record only when they differ (StoreBootstrap.readRecord):
/// these tests pin that a differing record is still decoded and compared.
@Suite("Opening compares the schema record's text first, and decodes it only when it differs")
struct SchemaRecordComparisonTests {
    private let appSchema = Schema([RecordComparisonPlace.self])

    private func makeStore(_ directory: TemporaryDirectory) throws -> URL {
        let url = directory.file()
        let context = ModelContext(try ModelContainer(for: appSchema, configurations: ModelConfiguration(url: url)))
        context.insert(RecordComparisonPlace(name: "Lisbon", rating: 5))
        try context.save()
        return url
    }

    private func storedRecordText(_ url: URL) throws -> String {
        let connection = try Connection(location: url.path, mode: .readOnly)
        let statement = try connection.prepare(#"SELECT "value" FROM "_modelstore_metadata" WHERE "key" = 'schema'"#)
        _ = try statement.step()
        return statement.string(at: 0)
    }

    /// Replaces the record's text only (not its fingerprint), as a record
    /// written by another encoder, or edited by hand, would read.
    private func replaceRecordText(_ url: URL, with text: String) throws {
        let connection = try Connection(location: url.path, mode: .readWrite)
        let statement = try connection.prepare(#"UPDATE "_modelstore_metadata" SET "value" = ? WHERE "key" = 'schema'"#)
        try statement.bind(text, at: 1)
        try statement.run()
    }

    @Test("the canonical text is the record's JSON, and its schema is what decoding that text gives")
    func canonicalRecord() throws {
        let schema = try appSchema.resolvingRelationships()
        let canonical = try schema.canonicalRecord()
        #expect(canonical.text == String(decoding: try schema.recordData(), as: UTF8.self))
        #expect(canonical.schema == (try Schema(recordData: Data(canonical.text.utf8))))
        #expect(canonical.schema.entities.allSatisfy { $0.properties.isEmpty }, "no model classes, as a decoded record")
        #expect(try schema.canonicalRecord().text == canonical.text, "the remembered text")
    }

    @Test("a changed schema gets its own text, never the one remembered for the schema it was made from")
    func changedSchemaIsEncodedAgain() throws {
        var schema = try appSchema.resolvingRelationships()
        _ = try schema.canonicalRecord()
        schema.entities[0].attributes[1].kind = .string
        schema.entities[0].attributes[1].swiftType = "String"
        let changed = try schema.canonicalRecord()
        #expect(changed.text == String(decoding: try schema.recordData(), as: UTF8.self))
        #expect(changed.schema.entities[0].attributes[1].kind == .string)
    }

    @Test("a store whose record differs in one property's type is a mismatch naming entity and property")
    func differentTypeIsStillAMismatch() throws {
        let directory = try TemporaryDirectory()
        let url = try makeStore(directory)
        var stored = try appSchema.resolvingRelationships()
        stored.entities[0].attributes[1].kind = .string
        stored.entities[0].attributes[1].swiftType = "String"
        let connection = try Connection(location: url.path, mode: .readWrite)
        try connection.transaction { try StoreFormat.writeSchemaRecord(stored, connection) }
        #expect(try storedRecordText(url) != (try appSchema.resolvingRelationships().canonicalRecord().text))
        #expect {
            try ModelContainer(for: appSchema, configurations: ModelConfiguration(url: url, allowsSave: false))
        } throws: { error in
            guard case ModelStoreError.schemaMismatch(_, let differences) = error else { return false }
            guard differences.count == 1, case .attributeTypeChanged(let entity, let attribute, _, _) = differences[0] else {
                return false
            }
            return entity == "RecordComparisonPlace" && attribute == "rating"
        }
    }

    @Test(
        "a record whose text differs only in key order and spacing is decoded, and opens",
        arguments: [false, true])
    func reformattedRecordOpens(allowsSave: Bool) throws {
        let directory = try TemporaryDirectory()
        let url = try makeStore(directory)
        let canonical = try storedRecordText(url)
        let object = try JSONSerialization.jsonObject(with: Data(canonical.utf8))
        let reformatted = String(
            decoding: try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted]), as: UTF8.self)
        try #require(reformatted != canonical)
        try replaceRecordText(url, with: reformatted)
        let container = try ModelContainer(for: appSchema, configurations: ModelConfiguration(url: url, allowsSave: allowsSave))
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<RecordComparisonPlace>()) == 1)
    }

    @Test("a record that is not JSON is refused even though the app's schema is valid")
    func brokenRecordIsRefused() throws {
        let directory = try TemporaryDirectory()
        let url = try makeStore(directory)
        let canonical = try storedRecordText(url)
        try replaceRecordText(url, with: String(canonical.dropLast()))
        #expect {
            try ModelContainer(for: appSchema, configurations: ModelConfiguration(url: url))
        } throws: { error in
            guard case ModelStoreError.notAModelStore(_, let reason) = error else { return false }
            return reason.contains("schema record cannot be read")
        }
    }
}
