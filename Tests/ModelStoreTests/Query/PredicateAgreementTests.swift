import Foundation
import Testing
@testable import ModelStore

/// Every supported predicate form, run twice on the same data: compiled to
/// SQL, and with `Predicate.evaluate` over all the objects. The two must
/// return the same objects; and the SQL fetch must filter in SQL.
@Suite struct PredicateAgreementTests {
    /// The seeded store of one test, on one backend.
    struct Agreement {
        let store: TestStore
        let container: ModelContainer
        let kind: StoreKind

        init(_ kind: StoreKind) throws {
            self.kind = kind
            store = try TestStore(kind)
            container = try store.container(Q.types)
            try Q.seed(ModelContext(container))
        }

        /// Fetches through SQL in a fresh context and compares with the
        /// in-memory answer. On SQLite the fetch must filter in SQL; on
        /// PostgreSQL a predicate that needs Swift inside SQL is answered in
        /// Swift instead, so only the answer is compared.
        func expect(
            _ predicate: Predicate<Q.Gadget>, _ label: String, allowEmpty: Bool = false,
            sourceLocation: SourceLocation = #_sourceLocation
        ) throws {
            let context = ModelContext(container)
            let counter = try StatementCounter(context)
            let viaSQL = try context.fetch(FetchDescriptor(predicate: predicate))
            if kind != .postgres {
                #expect(counter.statements.first?.contains(" WHERE ") == true, "\(label): not filtered in SQL", sourceLocation: sourceLocation)
            }
            let all = try context.fetch(FetchDescriptor<Q.Gadget>())
            let inMemory = try all.filter { try predicate.evaluate($0) }
            #expect(viaSQL.map(\.name) == inMemory.map(\.name), "\(label) on \(kind)", sourceLocation: sourceLocation)
            #expect(try context.fetchCount(FetchDescriptor(predicate: predicate)) == inMemory.count, "\(label): count", sourceLocation: sourceLocation)
            if !allowEmpty {
                #expect(!inMemory.isEmpty && inMemory.count < all.count, "\(label) should select a proper subset", sourceLocation: sourceLocation)
            }
        }
    }

    @Test(arguments: StoreKind.backends) func comparisonsOnEveryAttributeType(kind: StoreKind) throws {
        let agreement = try Agreement(kind)
        let name = "Widget"
        let date = Date(timeIntervalSince1970: 5 * 86_400)
        let code = Q.knownCode
        let price = Decimal(string: "7.9")!
        let active = Q.Status.active
        let raw = "retired"
        try agreement.expect(#Predicate { $0.name == name }, "string ==")
        try agreement.expect(#Predicate { $0.name != name }, "string !=")
        try agreement.expect(#Predicate { $0.name < "M" }, "string <")
        try agreement.expect(#Predicate { $0.name >= "Caf\u{E9}" }, "string >= non-ASCII")
        try agreement.expect(#Predicate { $0.name == "Caf\u{E9}" }, "canonically equivalent strings are equal")
        try agreement.expect(#Predicate { $0.name == "Kelvin" }, "KELVIN SIGN equals K")
        try agreement.expect(#Predicate { $0.count > 3 }, "int >")
        try agreement.expect(#Predicate { $0.count <= 3 && $0.score >= 1.5 }, "int <=, double >=")
        try agreement.expect(#Predicate { $0.made > date }, "date")
        try agreement.expect(#Predicate { $0.code == code }, "uuid")
        try agreement.expect(#Predicate { $0.price > price }, "decimal >")
        try agreement.expect(#Predicate { $0.price == price }, "decimal ==")
        try agreement.expect(#Predicate { $0.status == active }, "enum by captured value")
        try agreement.expect(#Predicate { $0.status.rawValue == raw }, "enum raw value")
        try agreement.expect(#Predicate { $0.isActive }, "bare Bool")
        try agreement.expect(#Predicate { !$0.isActive }, "negated Bool")
        try agreement.expect(#Predicate { $0.isActive == false || $0.count == 0 }, "Bool == constant, ||")
    }

    @Test(arguments: StoreKind.backends) func arithmeticAndConditionals(kind: StoreKind) throws {
        let agreement = try Agreement(kind)
        try agreement.expect(#Predicate { $0.count + 2 * $0.count > 10 }, "+ *")
        try agreement.expect(#Predicate { $0.count - 3 == 4 }, "-")
        try agreement.expect(#Predicate { $0.count % 3 == 1 }, "%")
        try agreement.expect(#Predicate { $0.count / 4 == 1 }, "integer /")
        try agreement.expect(#Predicate { $0.score / 2.0 > 2.0 }, "double /")
        try agreement.expect(#Predicate { -$0.count < -10 }, "unary minus")
        try agreement.expect(#Predicate { ($0.count > 7 ? $0.isActive : !$0.isActive) }, "ternary")
    }

    @Test(arguments: StoreKind.backends) func optionals(kind: StoreKind) throws {
        let agreement = try Agreement(kind)
        try agreement.expect(#Predicate { $0.small == nil }, "== nil")
        try agreement.expect(#Predicate { $0.small != nil }, "!= nil")
        try agreement.expect(#Predicate { ($0.small ?? 0) > 5 }, "?? default")
        try agreement.expect(#Predicate { $0.note == nil || $0.note == "note 2" }, "optional == value")
        try agreement.expect(#Predicate { $0.note != "note 2" }, "optional != value includes nil")
        try agreement.expect(#Predicate { $0.note.flatMap { $0.contains("x") } ?? false }, "flatMap over an attribute")
        try agreement.expect(#Predicate { $0.note.flatMap { $0.contains("x") } == nil }, "flatMap gives nil for nil")
    }

    @Test(arguments: StoreKind.backends) func toOneRelationships(kind: StoreKind) throws {
        let agreement = try Agreement(kind)
        let container = agreement.container
        let context = ModelContext(container)
        let acme = try #require(try context.fetch(FetchDescriptor<Q.Maker>()).first { $0.name == "Acme" })
        let makerID = acme.persistentModelID
        let gadgetID = try #require(try context.fetch(FetchDescriptor<Q.Gadget>()).first).persistentModelID
        let name = "Acme"
        try agreement.expect(#Predicate { $0.maker?.name == name }, "optional chaining")
        try agreement.expect(#Predicate { $0.maker == nil }, "to-one == nil")
        try agreement.expect(#Predicate { $0.maker?.persistentModelID == makerID }, "to-one identifier")
        try agreement.expect(#Predicate { $0.persistentModelID == gadgetID }, "persistentModelID")
        try agreement.expect(#Predicate { $0.persistentModelID != gadgetID }, "persistentModelID !=")
        try agreement.expect(#Predicate { $0.maker?.persistentModelID == gadgetID }, "identifier of another entity", allowEmpty: true)
        try agreement.expect(#Predicate { $0.maker.flatMap { $0.country == "PT" } ?? false }, "flatMap over a to-one")
        try agreement.expect(#Predicate { if let maker = $0.maker { maker.country == nil } else { false } }, "if let")
    }

    @Test(arguments: StoreKind.backends) func strings(kind: StoreKind) throws {
        let agreement = try Agreement(kind)
        let part = "dg"
        let same = ComparisonResult.orderedSame
        let ascending = ComparisonResult.orderedAscending
        try agreement.expect(#Predicate { $0.name.contains(part) }, "contains")
        try agreement.expect(#Predicate { $0.name.contains("e") }, "contains compares Characters")
        try agreement.expect(#Predicate { $0.name.contains("\n") }, "CR LF is one Character", allowEmpty: true)
        try agreement.expect(#Predicate { $0.name.starts(with: "W") }, "starts(with:)")
        try agreement.expect(#Predicate { $0.name.starts(with: "Cafe") }, "starts(with:) compares Characters", allowEmpty: true)
        try agreement.expect(#Predicate { $0.name.isEmpty }, "isEmpty")
        try agreement.expect(#Predicate { $0.name.count == 4 }, "count counts Characters")
        try agreement.expect(#Predicate { $0.name.count > 8 }, "count of emoji and CR LF")
        try agreement.expect(#Predicate { $0.name.localizedLowercase == "widget" }, "localizedLowercase")
        try agreement.expect(#Predicate { $0.name.localizedStandardContains("CAFE") }, "localizedStandardContains ignores case and diacritics")
        try agreement.expect(#Predicate { $0.name.caseInsensitiveCompare("WIDGET") == same }, "caseInsensitiveCompare")
        try agreement.expect(#Predicate { $0.name.localizedCompare("M") == ascending }, "localizedCompare")
    }

    @Test(arguments: StoreKind.backends) func collections(kind: StoreKind) throws {
        let agreement = try Agreement(kind)
        let container = agreement.container
        let names = ["Widget", "Gizmo", "Caf\u{E9}"]
        let tag = "red"
        try agreement.expect(#Predicate { names.contains($0.name) }, "IN")
        try agreement.expect(#Predicate { $0.tags.contains(tag) }, "JSON array contains")
        try agreement.expect(#Predicate { $0.tags.isEmpty }, "JSON array isEmpty")
        try agreement.expect(#Predicate { $0.tags.count >= 2 }, "JSON array count")
        let context = ModelContext(container)
        context.insert(Q.Gadget("Caf\u{E9}", tags: ["Cafe\u{301}"]))
        try context.save()
        try agreement.expect(#Predicate { $0.tags.contains($0.name) }, "JSON array contains a property, compared as Strings")
        try agreement.expect(#Predicate { $0.parts.contains { $0.weight > 5 } }, "to-many contains(where:)")
        try agreement.expect(#Predicate { $0.parts.isEmpty }, "to-many isEmpty")
        try agreement.expect(#Predicate { $0.parts.count == 2 }, "to-many count")
        try agreement.expect(#Predicate { $0.parts.filter { $0.weight > 4 }.count >= 1 }, "filter count")
        try agreement.expect(#Predicate { $0.parts.allSatisfy { $0.weight < 8 } }, "allSatisfy")
        try agreement.expect(
            #Predicate { gadget in gadget.parts.contains { $0.weight > gadget.count } }, "correlated member test")
    }

    @Test(arguments: StoreKind.backends) func hostileStringsMatchLiterally(kind: StoreKind) throws {
        let agreement = try Agreement(kind)
        let container = agreement.container
        let context = ModelContext(container)
        var hostile = ["%", "_", "'", "'); DROP TABLE \"Gadget\"; --", "\0", "a\0b", "100%", "a_b", "O'Brien"]
        if kind == .postgres {
            // PostgreSQL's text cannot hold NUL: such a save fails, naming
            // the entity, and writes nothing (see "Scaling out").
            hostile.removeAll { $0.contains("\0") }
            let refused = ModelContext(container)
            refused.insert(Q.Gadget("a\0b"))
            #expect {
                try refused.save()
            } throws: { error in
                "\(error)".contains("Gadget") && "\(error)".contains("NUL")
            }
        }
        for value in hostile {
            context.insert(Q.Gadget(value))
        }
        try context.save()
        for value in hostile {
            try agreement.expect(#Predicate { $0.name == value }, "== \(value.debugDescription)")
            try agreement.expect(#Predicate { $0.name.contains(value) }, "contains \(value.debugDescription)")
            try agreement.expect(#Predicate { $0.name.starts(with: value) }, "starts(with:) \(value.debugDescription)")
            try agreement.expect(#Predicate { $0.tags.contains(value) }, "tags \(value.debugDescription)", allowEmpty: true)
            try agreement.expect(#Predicate { $0.name.localizedStandardContains(value) }, "localized \(value.debugDescription)", allowEmpty: true)
            let list = [value, "Widget"]
            try agreement.expect(#Predicate { list.contains($0.name) }, "IN \(value.debugDescription)")
        }
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Q.Gadget>()) == 16 + hostile.count)
    }
}
