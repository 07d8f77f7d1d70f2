import Foundation
import Testing
@testable import ModelStore

/// A schema built from model types is validated once per process
/// (`Schema.checkedForStore()`); any change to it makes it an ordinary
/// schema again, checked in full.
@Suite("Checking a schema built from types once")
struct SchemaCheckOnceTests {
    @Test("A schema built from types, changed afterwards, is checked again and refused when invalid")
    func changedSchemaIsCheckedAgain() throws {
        let built = Schema([MergeBook.self])
        #expect(built.builtFrom != nil)
        let checked = try built.checkedForStore()
        #expect(try built.checkedForStore() == checked)

        var changed = Schema([MergeBook.self])
        let index = try #require(changed.entities.firstIndex { $0.name == "MergeBook" })
        changed.entities[index].attributes.append(
            Schema.Attribute(name: "TITLE", kind: .string, swiftType: "String", isOptional: false))
        #expect(changed.builtFrom == nil, "a change forgets the types")
        let error = #expect(throws: ModelStoreError.self) { try changed.checkedForStore() }
        #expect(error?.localizedDescription.contains("MergeBook has two properties named TITLE") == true)

        var versioned = Schema([MergeBook.self])
        versioned.version = Schema.Version(2, 0, 0)
        #expect(versioned.builtFrom == nil)
    }

    @Test("Where a schema came from is not part of its value: equal, encoded alike")
    func originIsNotPartOfTheValue() throws {
        let built = Schema([MergeBook.self])
        let plain = Schema(entities: built.entities, version: built.version)
        #expect(plain.builtFrom == nil)
        #expect(built == plain)
        #expect(try built.recordData() == plain.recordData())
        let decoded = try Schema(recordData: built.recordData())
        #expect(decoded.builtFrom == nil)
        #expect(decoded == built)
    }
}
