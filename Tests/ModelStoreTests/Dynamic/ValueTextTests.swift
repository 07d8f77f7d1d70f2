import Foundation
import Testing
@testable import ModelStore
@testable import ModelStoreDynamic

@Suite("Dynamic values: strict parsing and readable text")
struct ValueTextTests {
    @Test("integers are strict and checked against their kind's range")
    func integers() throws {
        #expect(try ValueText.parse("123", as: .int) == .int(123))
        #expect(try ValueText.parse("-128", as: .int8) == .int(-128))
        for (text, kind) in [("123abc", ValueKind.int), ("1.5", .int), ("", .int), (" 1", .int), ("+1", .int), ("128", .int8),
            ("-1", .uint8), ("99999999999999999999", .int64), ("0x10", .int)]
        {
            #expect(throws: ValueCodingFailure.self, "\(text) as \(kind)") { try ValueText.parse(text, as: kind) }
        }
    }

    @Test("Bools, numbers, decimals, UUIDs, URLs, data, JSON")
    func otherKinds() throws {
        #expect(try ValueText.parse("true", as: .bool) == .bool(true))
        #expect(throws: ValueCodingFailure.self) { try ValueText.parse("yes", as: .bool) }
        #expect(try ValueText.parse("2.5", as: .double) == .double(2.5))
        #expect(throws: ValueCodingFailure.self) { try ValueText.parse("2.5kg", as: .double) }
        #expect(try ValueText.parse("12.50", as: .decimal) == .decimal(Decimal(string: "12.5")!))
        #expect(throws: ValueCodingFailure.self) { try ValueText.parse("12abc", as: .decimal) }
        let uuid = UUID()
        #expect(try ValueText.parse(uuid.uuidString, as: .uuid) == .uuid(uuid))
        #expect(throws: ValueCodingFailure.self) { try ValueText.parse("not-a-uuid", as: .uuid) }
        #expect(try ValueText.parse("AQID", as: .data) == .data(Data([1, 2, 3])))
        #expect(try ValueText.parse(#"{"b":1,"a":[true]}"#, as: .codable) == .json(#"{"a":[true],"b":1}"#))
        #expect(throws: ValueCodingFailure.self) { try ValueText.parse("{oops", as: .codable) }
    }

    @Test("dates: ISO 8601 forms; impossible dates refused; text round-trips")
    func dates() throws {
        #expect(ValueText.parseISO8601("2025-05-14") == Date(timeIntervalSince1970: 1_747_180_800))
        #expect(ValueText.parseISO8601("2025-05-14T10:00:00Z") == Date(timeIntervalSince1970: 1_747_216_800))
        #expect(ValueText.parseISO8601("2025-05-14T12:00:00+02:00") == Date(timeIntervalSince1970: 1_747_216_800))
        #expect(ValueText.parseISO8601("2025-05-14T10:00:00.25Z") == Date(timeIntervalSince1970: 1_747_216_800.25))
        for text in ["2025-02-30", "2025-13-01", "2025-05-14x", "14/05/2025", "2025-05-14T25:00", "yesterday"] {
            #expect(ValueText.parseISO8601(text) == nil, "\(text)")
        }
        let date = Date(timeIntervalSince1970: 1_747_216_800.125)
        #expect(ValueText.formatISO8601(date) == "2025-05-14T10:00:00.125Z")
        #expect(ValueText.parseISO8601(ValueText.formatISO8601(date)) == date)
    }

    @Test("edits: key=value, +=, -=, :=JSON, nil")
    func edits() throws {
        #expect(try DynamicEdit(parsing: "name=a=b") == DynamicEdit(property: "name", operation: .set, value: "a=b"))
        #expect(try DynamicEdit(parsing: "stops+=Stop:1") == DynamicEdit(property: "stops", operation: .add, value: "Stop:1"))
        #expect(try DynamicEdit(parsing: "stops-=Stop:1") == DynamicEdit(property: "stops", operation: .remove, value: "Stop:1"))
        #expect(try DynamicEdit(parsing: "notes=nil") == DynamicEdit(property: "notes", operation: .set, value: nil))
        #expect(try DynamicEdit(parsing: #"notes:="nil""#) == DynamicEdit(property: "notes", operation: .set, value: "nil"))
        #expect(try DynamicEdit(parsing: "notes:=null") == DynamicEdit(property: "notes", operation: .set, value: nil))
        #expect(throws: DynamicStoreError.self) { try DynamicEdit(parsing: "novalue") }
        #expect(throws: DynamicStoreError.self) { try DynamicEdit(parsing: "=x") }
        #expect(throws: DynamicStoreError.self) { try DynamicEdit(parsing: "a:={") }
    }

    @Test("identifiers")
    func identifiers() {
        #expect(ObjectID("Trip:12") == ObjectID(entity: "Trip", key: 12))
        for text in ["Trip", "Trip:", ":1", "Trip:x", "Trip:-1", "Trip:+5", "Trip:0", "Trip: 1", "Trip:1.5", "Trip:٣"] { #expect(ObjectID(text) == nil, "\(text)") }
    }
}
