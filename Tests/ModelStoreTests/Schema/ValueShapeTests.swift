import Foundation
import Testing
@testable import ModelStore
@testable import ModelStoreDynamic

struct ShapeMoney: Codable, Sendable {
    var amount: Double
    var currency: String
}

/// Every part a derived shape can have.
struct ShapeTrip: Codable, Sendable {
    var budget: ShapeMoney
    var note: String?
    var tags: [String]
    var scores: [String: Int]
    var byNumber: [Int: String]
    var mood: RecordMood
    var plain: RecordPlain?
    var day: Date
    var photo: Data
}

/// A recursive type: the reference back to it is `any`.
struct ShapeNode: Codable, Sendable {
    var name: String
    var children: [ShapeNode]
    var parent: [ShapeNode]?
}

/// A custom `init(from:)` that rejects the placeholder: nothing can be
/// derived.
struct ShapePercent: Codable, Sendable {
    var value: Int
    init(from decoder: any Decoder) throws {
        value = try decoder.singleValueContainer().decode(Int.self)
        guard (1...100).contains(value) else {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "out of range"))
        }
    }
}

/// Decodes an integer or, failing that, a string: the part must accept
/// both, so it is `any`.
struct ShapeFlexible: Codable, Sendable {
    var text: String
    var count: Int
    private enum CodingKeys: String, CodingKey { case text, count }
    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        if let number = try? container.decode(Int.self, forKey: .text) {
            text = String(number)
        } else {
            text = try container.decode(String.self, forKey: .text)
        }
        count = try container.decode(Int.self, forKey: .count)
    }
}

@Model final class ShapeHolder {
    var budget: ShapeMoney?
    var tags: [String] = []
    var percent: ShapePercent?
    init() {}
}

@Suite("Codable values: the structure recorded from the type, and values checked against it")
struct ValueShapeTests {
    @Test("a struct, a nested struct, optional fields, arrays, String-keyed dictionaries, enums, dates and data")
    func derivesStructure() throws {
        let money = ValueShape.object(["amount": .number, "currency": .string])
        #expect(ValueShape.derived(from: ShapeMoney.self) == money)
        let trip = try #require(ValueShape.derived(from: ShapeTrip.self))
        #expect(
            trip
                == .object([
                    "budget": money, "note": .optional(.string), "tags": .array(.string),
                    "scores": .dictionary(.integer), "byNumber": .any, "mood": .oneOf([.string("calm"), .string("busy")]),
                    "plain": .any, "day": .number, "photo": .string,
                ]))
        #expect(ValueShape.derived(from: [ShapeMoney?].self) == .array(.optional(money)))
    }

    @Test("a recursive type stops at its reference back; a validating init and a fallback are unknown")
    func unknownParts() throws {
        #expect(
            ValueShape.derived(from: ShapeNode.self)
                == .object(["name": .string, "children": .array(.any), "parent": .optional(.array(.any))]))
        #expect(ValueShape.derived(from: ShapePercent.self) == nil)
        #expect(ValueShape.derived(from: ShapeFlexible.self) == .object(["text": .any, "count": .integer]))
    }

    @Test("the record form is compact JSON with sorted keys, and reads back")
    func recordRoundTrip() throws {
        let shape = try #require(ValueShape.derived(from: ShapeTrip.self))
        let text = shape.recordText
        #expect(text.hasPrefix(#"{"object":{"budget":{"object":{"amount":"number","currency":"string"}},"byNumber":"any","#))
        #expect(try ValueShape(recordText: text) == shape)
        #expect(throws: ValueCodingFailure.self) { try ValueShape(recordText: #"{"tuple":"string"}"#) }
        #expect(throws: ValueCodingFailure.self) { try ValueShape(recordText: "not json") }
    }

    @Test("a value that does not fit is named by its path, what was expected and what was found")
    func mismatchMessages() throws {
        let shape = try #require(ValueShape.derived(from: ShapeTrip.self))
        func problem(_ text: String) throws -> String? {
            shape.mismatch(in: try JSONDecoder().decode(ExchangeJSON.self, from: Data(text.utf8)), path: "trip")
        }
        let valid = #"{"budget":{"amount":12.5,"currency":"EUR"},"tags":["a"],"scores":{"x":1},"byNumber":{"1":"a"},"#
            + #""mood":"calm","day":0,"photo":"","extra":true}"#
        #expect(try problem(valid) == nil)
        #expect(
            try problem(valid.replacingOccurrences(of: "12.5", with: #""lots""#))
                == #"trip.budget.amount: expected a number, found the string "lots""#)
        #expect(
            try problem(valid.replacingOccurrences(of: #"["a"]"#, with: #"["a",5]"#))
                == "trip.tags[1]: expected a string, found the number 5")
        #expect(
            try problem(valid.replacingOccurrences(of: #"{"x":1}"#, with: #"{"x":1.5}"#))
                == "trip.scores.x: expected an integer, found the number 1.5")
        #expect(
            try problem(valid.replacingOccurrences(of: #""calm""#, with: #""sad""#))
                == #"trip.mood: expected one of "calm", "busy", found the string "sad""#)
        #expect(
            try problem(valid.replacingOccurrences(of: #""currency":"EUR""#, with: #""currency":null"#))
                == "trip.budget.currency: expected a string, found null")
        #expect(
            try problem(valid.replacingOccurrences(of: #","currency":"EUR""#, with: ""))
                == #"trip.budget: missing the key "currency" (a string)"#)
        #expect(try problem("5") == "trip: expected an object with the keys budget, byNumber, day, mood, note, photo, plain, scores, tags, found the number 5")
        // An integer without a fraction is what JSONDecoder reads as an Int.
        #expect(try problem(valid.replacingOccurrences(of: #"{"x":1}"#, with: #"{"x":2.0}"#)) == nil)
    }

    @Test("a model's Codable attributes record their structure, outside the fingerprint")
    func recordedForModels() throws {
        let schema = try Schema([ShapeHolder.self]).resolvingRelationships()
        let entity = try #require(schema.entity(named: "ShapeHolder"))
        #expect(entity.attribute(named: "budget")?.codableShape == #"{"object":{"amount":"number","currency":"string"}}"#)
        #expect(entity.attribute(named: "tags")?.codableShape == #"{"array":"string"}"#)
        #expect(entity.attribute(named: "percent")?.codableShape == nil)
        #expect(entity.attribute(named: "percent")?.unknownStructureNote?.contains("not recorded") == true)
        #expect(entity.attribute(named: "budget")?.unknownStructureNote == nil)
        var stripped = schema
        stripped.entities[0].attributes = stripped.entities[0].attributes.map {
            var attribute = $0
            attribute.codableShape = nil
            return attribute
        }
        #expect(schema.fingerprint == stripped.fingerprint)
        #expect(schema.differences(from: stripped).isEmpty)
        let budget = try #require(entity.attribute(named: "budget"))
        #expect(budget.valueProblem(.json(#"{"amount":1,"currency":"EUR"}"#)) == nil)
        #expect(budget.valueProblem(.null) == nil)
        #expect(budget.valueProblem(.json(#"{"amount":"lots","currency":"EUR"}"#)) == #"budget.amount: expected a number, found the string "lots""#)
        #expect(stripped.entities[0].attribute(named: "budget")?.valueProblem(.json(#"{"amount":"lots"}"#)) == nil)
        // A recorded structure that cannot be read (edited by hand, or from a
        // newer ModelStore) is unknown, and said to be, never guessed at.
        var unreadable = budget
        unreadable.codableShape = #"{"tuple":["number"]}"#
        #expect(unreadable.valueProblem(.json(#"{"amount":"lots"}"#)) == nil)
        #expect(unreadable.unknownStructureNote?.hasPrefix("its recorded structure cannot be read") == true)
    }

    @Test("the attributes of unknown structure are listed once, an inherited one under the entity that declares it")
    func unknownStructuresOnce() throws {
        let plain = Schema.Attribute(name: "title", kind: .string, swiftType: "String", isOptional: false)
        let notes = Schema.Attribute(name: "notes", kind: .codable, representation: .json, swiftType: "Notes", isOptional: true)
        var known = notes
        known.name = "budget"
        known.codableShape = #"{"object":{"amount":"number"}}"#
        let own = Schema.Attribute(name: "extra", kind: .codable, representation: .json, swiftType: "[Extra]", isOptional: false)
        let schema = Schema(entities: [
            Schema.Entity(name: "Animal", attributes: [plain, notes, known]),
            Schema.Entity(name: "Dog", attributes: [plain, notes, known, own], superentityName: "Animal"),
        ])
        #expect(schema.attributesOfUnknownStructure.map { "\($0.entity).\($0.attribute.name)" } == ["Animal.notes", "Dog.extra"])
    }

    @Test("a store whose record predates structures opens read-only as it is, and records them at a writable open")
    func refreshOnOpen() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file()
        let path = url.path(percentEncoded: false)
        do {
            let context = ModelContext(try ModelContainer(for: ShapeHolder.self, configurations: ModelConfiguration(url: url)))
            let holder = ShapeHolder()
            holder.budget = ShapeMoney(amount: 3, currency: "EUR")
            context.insert(holder)
            try context.save()
        }
        let connection = try Connection(location: path, mode: .readWrite)
        let read = try connection.prepare("SELECT value FROM _modelstore_metadata WHERE key = 'schema'")
        _ = try read.step()
        var old = try Schema(recordData: Data(read.string(at: 0).utf8))
        for index in old.entities[0].attributes.indices { old.entities[0].attributes[index].codableShape = nil }
        let write = try connection.prepare("UPDATE _modelstore_metadata SET value = ? WHERE key = 'schema'")
        try write.bind(String(decoding: try old.recordData(), as: UTF8.self), at: 1)
        try write.run()

        let readOnly = ModelContext(
            try ModelContainer(for: ShapeHolder.self, configurations: ModelConfiguration(url: url, allowsSave: false)))
        #expect(try readOnly.fetch(FetchDescriptor<ShapeHolder>()).first?.budget?.currency == "EUR")
        #expect(try DynamicStore(path: path).schema.entities[0].attribute(named: "budget")?.codableShape == nil)
        _ = try ModelContainer(for: ShapeHolder.self, configurations: ModelConfiguration(url: url))
        let store = try DynamicStore(path: path)
        #expect(store.schema.entities[0].attribute(named: "budget")?.codableShape == #"{"object":{"amount":"number","currency":"string"}}"#)
        #expect(store.schema.fingerprint == old.fingerprint)
    }
}
