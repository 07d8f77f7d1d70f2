import Foundation
import Testing
@testable import ModelStore

/// Declarations real SwiftData apps write: members named after names the
/// expansion uses, types left to inference, persisted constants.

/// Every member is named after a name `@Model`'s expansion uses, so an
/// unqualified name in the generated code would resolve to the member.
@Model final class Catalog {
    var type: String
    var value: Int = 0
    var row: Int = 0
    var state: String = ""
    var index: Int = 0
    var ordinal: Int = 0
    var statement: String = ""
    var keyPath: String = ""
    var mutation: Int = 0
    var observed: Bool = false
    var newValue: Int = 0
    var initialValue: Int = 0
    init(type: String) { self.type = type }
}

extension Catalog {
    /// A computed member named like a standard-library function the
    /// expansion calls.
    var kind: String { type }
}

/// Stored properties whose types the compiler infers, as SwiftData allows.
@Model final class Ledger {
    var id = UUID()
    var created = Date()
    var amount = Decimal.zero
    var tags = [String]()
    var status = Status.planned
    var budget = Budget(amount: 1, currency: "EUR")
    var note: String? = nil
    init() {}
}

/// Persisted constants: set once in `init`, read from the row afterwards.
@Model final class Receipt {
    let number: Int
    let issued: Date
    let payer: String?
    let kind = "receipt"
    var memo: String
    init(number: Int, issued: Date, payer: String?, memo: String) {
        self.number = number
        self.issued = issued
        self.payer = payer
        self.memo = memo
    }
}

/// SwiftData's typed `#Index` forms.
@Model final class Place {
    #Index<Place>(.binary([\.name]), .rtree([\.latitude, \.longitude]))
    var name: String
    var latitude: Double
    var longitude: Double
    init(name: String, latitude: Double, longitude: Double) {
        self.name = name
        self.latitude = latitude
        self.longitude = longitude
    }
}

@Suite("Model declarations as SwiftData apps write them")
struct DeclarationShapeTests {
    @Test("members named after the expansion's names compile and persist")
    func membersNamedLikeTheExpansion() throws {
        let store = try TestStore()
        let container = try ModelContainer(for: Catalog.self, configurations: store.configuration)
        let context = ModelContext(container)
        let catalog = Catalog(type: "books")
        catalog.value = 1
        catalog.row = 2
        catalog.state = "open"
        catalog.index = 3
        catalog.keyPath = "k"
        context.insert(catalog)
        try context.save()
        catalog.value += 10
        let changed = context.changedKeyPaths(of: catalog)
        #expect(changed.count == 1 && changed.first == \Catalog.value)
        try context.save()
        let fetched = try #require(try ModelContext(container).fetch(FetchDescriptor<Catalog>()).first)
        #expect(fetched.kind == "books")
        #expect(fetched.value == 11)
        #expect(fetched.row == 2)
        #expect(fetched.index == 3)
        #expect(fetched.state == "open" && fetched.keyPath == "k")
    }

    @Test("inferred types are stored with the type the compiler inferred")
    func inferredTypes() throws {
        let attributes = Dictionary(
            uniqueKeysWithValues: Ledger._$persistentProperties.compactMap { $0.attribute.map { ($0.name, $0) } })
        #expect(attributes["id"]?.kind == .uuid)
        #expect(attributes["created"]?.kind == .date)
        #expect(attributes["amount"]?.kind == .decimal)
        #expect(attributes["status"]?.representation == .rawValue)
        #expect(attributes["note"]?.isOptional == true)

        let store = try TestStore()
        let container = try ModelContainer(for: Ledger.self, configurations: store.configuration)
        let context = ModelContext(container)
        let ledger = Ledger()
        ledger.amount = Decimal(string: "12.34") ?? 0
        ledger.tags = ["a", "b"]
        ledger.status = .booked
        ledger.note = "n"
        context.insert(ledger)
        try context.save()
        let fetched = try #require(try ModelContext(container).fetch(FetchDescriptor<Ledger>()).first)
        #expect(fetched.id == ledger.id)
        #expect(abs(fetched.created.timeIntervalSince(ledger.created)) < 0.000_001)
        #expect(fetched.amount == ledger.amount)
        #expect(fetched.tags == ["a", "b"] && fetched.status == .booked && fetched.note == "n")
        #expect(fetched.budget == Budget(amount: 1, currency: "EUR"))
    }

    @Test("a let is stored, read back from the row, and never dirty")
    func persistedConstants() throws {
        #expect(Receipt._$persistentProperties.map(\.name) == ["number", "issued", "payer", "memo"])
        let store = try TestStore()
        let container = try ModelContainer(for: Receipt.self, configurations: store.configuration)
        let context = ModelContext(container)
        let issued = Date(timeIntervalSince1970: 1_700_000_000)
        let receipt = Receipt(number: 42, issued: issued, payer: nil, memo: "first")
        context.insert(receipt)
        try context.save()
        receipt.memo = "second"
        let changed = context.changedKeyPaths(of: receipt)
        #expect(changed.count == 1 && changed.first == \Receipt.memo)
        context.rollback()
        #expect(receipt.memo == "first" && receipt.number == 42)

        let fetched = try #require(try ModelContext(container).fetch(FetchDescriptor<Receipt>()).first)
        #expect(fetched.number == 42 && fetched.issued == issued && fetched.payer == nil && fetched.kind == "receipt")
        let byNumber = try ModelContext(container).fetch(FetchDescriptor<Receipt>(predicate: #Predicate { $0.number == 42 }))
        #expect(byNumber.count == 1)
    }

    @Test("#Index(.binary, .rtree) makes ordinary indexes in the store", .opensStoreFile)
    func typedIndexes() throws {
        let entity = Schema([Place.self]).entities[0]
        #expect(entity.indexes == [["name"], ["latitude", "longitude"]])
        let store = try TestStore()
        _ = try ModelContainer(for: Place.self, configurations: store.configuration)
        let connection = try Connection(location: store.configuration.url.path, mode: .readOnly)
        let statement = try connection.prepare("SELECT count(*) FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'Place'")
        _ = try statement.step()
        #expect(statement.int64(at: 0) == 2)
    }
}
