import Foundation
import Testing
@testable import ModelStore

/// Every supported predicate form, run twice on the same data: compiled to
/// SQL, and with `Predicate.evaluate` over all the objects. The two must
/// return the same objects; and the SQL fetch must filter in SQL.
@Suite struct PredicateAgreementTests {
    let store: TestStore
    let container: ModelContainer

    init() throws {
        store = try TestStore()
        container = try store.container(Q.types)
        try Q.seed(ModelContext(container))
    }

    /// Fetches through SQL in a fresh context and compares with the in-memory answer.
    func expectAgreement(
        _ predicate: Predicate<Q.Gadget>, _ label: String, allowEmpty: Bool = false,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let context = ModelContext(container)
        let counter = try StatementCounter(context)
        let viaSQL = try context.fetch(FetchDescriptor(predicate: predicate))
        #expect(counter.statements.first?.contains(" WHERE ") == true, "\(label): not filtered in SQL", sourceLocation: sourceLocation)
        let all = try context.fetch(FetchDescriptor<Q.Gadget>())
        let inMemory = try all.filter { try predicate.evaluate($0) }
        #expect(viaSQL.map(\.name) == inMemory.map(\.name), "\(label)", sourceLocation: sourceLocation)
        if !allowEmpty {
            #expect(!inMemory.isEmpty && inMemory.count < all.count, "\(label) should select a proper subset", sourceLocation: sourceLocation)
        }
    }

    @Test func comparisonsOnEveryAttributeType() throws {
        let name = "Widget"
        let date = Date(timeIntervalSince1970: 5 * 86_400)
        let code = Q.knownCode
        let price = Decimal(string: "7.9")!
        let active = Q.Status.active
        let raw = "retired"
        try expectAgreement(#Predicate { $0.name == name }, "string ==")
        try expectAgreement(#Predicate { $0.name != name }, "string !=")
        try expectAgreement(#Predicate { $0.name < "M" }, "string <")
        try expectAgreement(#Predicate { $0.name >= "Caf\u{E9}" }, "string >= non-ASCII")
        try expectAgreement(#Predicate { $0.name == "Caf\u{E9}" }, "canonically equivalent strings are equal")
        try expectAgreement(#Predicate { $0.name == "Kelvin" }, "KELVIN SIGN equals K")
        try expectAgreement(#Predicate { $0.count > 3 }, "int >")
        try expectAgreement(#Predicate { $0.count <= 3 && $0.score >= 1.5 }, "int <=, double >=")
        try expectAgreement(#Predicate { $0.made > date }, "date")
        try expectAgreement(#Predicate { $0.code == code }, "uuid")
        try expectAgreement(#Predicate { $0.price > price }, "decimal >")
        try expectAgreement(#Predicate { $0.price == price }, "decimal ==")
        try expectAgreement(#Predicate { $0.status == active }, "enum by captured value")
        try expectAgreement(#Predicate { $0.status.rawValue == raw }, "enum raw value")
        try expectAgreement(#Predicate { $0.isActive }, "bare Bool")
        try expectAgreement(#Predicate { !$0.isActive }, "negated Bool")
        try expectAgreement(#Predicate { $0.isActive == false || $0.count == 0 }, "Bool == constant, ||")
    }

    @Test func arithmeticAndConditionals() throws {
        try expectAgreement(#Predicate { $0.count + 2 * $0.count > 10 }, "+ *")
        try expectAgreement(#Predicate { $0.count - 3 == 4 }, "-")
        try expectAgreement(#Predicate { $0.count % 3 == 1 }, "%")
        try expectAgreement(#Predicate { $0.count / 4 == 1 }, "integer /")
        try expectAgreement(#Predicate { $0.score / 2.0 > 2.0 }, "double /")
        try expectAgreement(#Predicate { -$0.count < -10 }, "unary minus")
        try expectAgreement(#Predicate { ($0.count > 7 ? $0.isActive : !$0.isActive) }, "ternary")
    }

    @Test func optionals() throws {
        try expectAgreement(#Predicate { $0.small == nil }, "== nil")
        try expectAgreement(#Predicate { $0.small != nil }, "!= nil")
        try expectAgreement(#Predicate { ($0.small ?? 0) > 5 }, "?? default")
        try expectAgreement(#Predicate { $0.note == nil || $0.note == "note 2" }, "optional == value")
        try expectAgreement(#Predicate { $0.note != "note 2" }, "optional != value includes nil")
        try expectAgreement(#Predicate { $0.note.flatMap { $0.contains("x") } ?? false }, "flatMap over an attribute")
        try expectAgreement(#Predicate { $0.note.flatMap { $0.contains("x") } == nil }, "flatMap gives nil for nil")
    }

    @Test func toOneRelationships() throws {
        let context = ModelContext(container)
        let acme = try #require(try context.fetch(FetchDescriptor<Q.Maker>()).first { $0.name == "Acme" })
        let makerID = acme.persistentModelID
        let gadgetID = try #require(try context.fetch(FetchDescriptor<Q.Gadget>()).first).persistentModelID
        let name = "Acme"
        try expectAgreement(#Predicate { $0.maker?.name == name }, "optional chaining")
        try expectAgreement(#Predicate { $0.maker == nil }, "to-one == nil")
        try expectAgreement(#Predicate { $0.maker?.persistentModelID == makerID }, "to-one identifier")
        try expectAgreement(#Predicate { $0.persistentModelID == gadgetID }, "persistentModelID")
        try expectAgreement(#Predicate { $0.persistentModelID != gadgetID }, "persistentModelID !=")
        try expectAgreement(#Predicate { $0.maker?.persistentModelID == gadgetID }, "identifier of another entity", allowEmpty: true)
        try expectAgreement(#Predicate { $0.maker.flatMap { $0.country == "PT" } ?? false }, "flatMap over a to-one")
        try expectAgreement(#Predicate { if let maker = $0.maker { maker.country == nil } else { false } }, "if let")
    }

    @Test func strings() throws {
        let part = "dg"
        let same = ComparisonResult.orderedSame
        let ascending = ComparisonResult.orderedAscending
        try expectAgreement(#Predicate { $0.name.contains(part) }, "contains")
        try expectAgreement(#Predicate { $0.name.contains("e") }, "contains compares Characters")
        try expectAgreement(#Predicate { $0.name.contains("\n") }, "CR LF is one Character", allowEmpty: true)
        try expectAgreement(#Predicate { $0.name.starts(with: "W") }, "starts(with:)")
        try expectAgreement(#Predicate { $0.name.starts(with: "Cafe") }, "starts(with:) compares Characters", allowEmpty: true)
        try expectAgreement(#Predicate { $0.name.isEmpty }, "isEmpty")
        try expectAgreement(#Predicate { $0.name.count == 4 }, "count counts Characters")
        try expectAgreement(#Predicate { $0.name.count > 8 }, "count of emoji and CR LF")
        try expectAgreement(#Predicate { $0.name.localizedLowercase == "widget" }, "localizedLowercase")
        try expectAgreement(#Predicate { $0.name.localizedStandardContains("CAFE") }, "localizedStandardContains ignores case and diacritics")
        try expectAgreement(#Predicate { $0.name.caseInsensitiveCompare("WIDGET") == same }, "caseInsensitiveCompare")
        try expectAgreement(#Predicate { $0.name.localizedCompare("M") == ascending }, "localizedCompare")
    }

    @Test func collections() throws {
        let names = ["Widget", "Gizmo", "Caf\u{E9}"]
        let tag = "red"
        try expectAgreement(#Predicate { names.contains($0.name) }, "IN")
        try expectAgreement(#Predicate { $0.tags.contains(tag) }, "JSON array contains")
        try expectAgreement(#Predicate { $0.tags.isEmpty }, "JSON array isEmpty")
        try expectAgreement(#Predicate { $0.tags.count >= 2 }, "JSON array count")
        let context = ModelContext(container)
        context.insert(Q.Gadget("Caf\u{E9}", tags: ["Cafe\u{301}"]))
        try context.save()
        try expectAgreement(#Predicate { $0.tags.contains($0.name) }, "JSON array contains a property, compared as Strings")
        try expectAgreement(#Predicate { $0.parts.contains { $0.weight > 5 } }, "to-many contains(where:)")
        try expectAgreement(#Predicate { $0.parts.isEmpty }, "to-many isEmpty")
        try expectAgreement(#Predicate { $0.parts.count == 2 }, "to-many count")
        try expectAgreement(#Predicate { $0.parts.filter { $0.weight > 4 }.count >= 1 }, "filter count")
        try expectAgreement(#Predicate { $0.parts.allSatisfy { $0.weight < 8 } }, "allSatisfy")
        try expectAgreement(
            #Predicate { gadget in gadget.parts.contains { $0.weight > gadget.count } }, "correlated member test")
    }

    @Test func hostileStringsMatchLiterally() throws {
        let context = ModelContext(container)
        let hostile = ["%", "_", "'", "'); DROP TABLE \"Gadget\"; --", "\0", "a\0b", "100%", "a_b", "O'Brien"]
        for value in hostile {
            context.insert(Q.Gadget(value))
        }
        try context.save()
        for value in hostile {
            try expectAgreement(#Predicate { $0.name == value }, "== \(value.debugDescription)")
            try expectAgreement(#Predicate { $0.name.contains(value) }, "contains \(value.debugDescription)")
            try expectAgreement(#Predicate { $0.name.starts(with: value) }, "starts(with:) \(value.debugDescription)")
            try expectAgreement(#Predicate { $0.tags.contains(value) }, "tags \(value.debugDescription)", allowEmpty: true)
            try expectAgreement(#Predicate { $0.name.localizedStandardContains(value) }, "localized \(value.debugDescription)", allowEmpty: true)
            let list = [value, "Widget"]
            try expectAgreement(#Predicate { list.contains($0.name) }, "IN \(value.debugDescription)")
        }
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Q.Gadget>()) == 16 + hostile.count)
    }
}
