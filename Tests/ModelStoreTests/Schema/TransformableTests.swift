import Foundation
import Testing
@testable import ModelStore

/// A colour that is deliberately not `Codable`: only its transformer can store it.
struct Swatch: Equatable {
    var red: UInt8
    var green: UInt8
    var blue: UInt8
}

/// Stores a `Swatch` as three bytes. Some red values make it misbehave, so
/// that each failure path can be reached through a model: 13 transforms to
/// nil, 14 to a String; 200 and 201 store data whose reverse transformation
/// gives nil and a String.
final class SwatchTransformer: ValueTransformer {
    override class func transformedValueClass() -> AnyClass { NSData.self }
    override class func allowsReverseTransformation() -> Bool { true }

    override func transformedValue(_ value: Any?) -> Any? {
        guard let swatch = value as? Swatch else { return nil }
        switch swatch.red {
        case 13: return nil
        case 14: return "not data"
        case 200: return Data([0xEE])
        case 201: return Data([0xEF])
        default: return Data([swatch.red, swatch.green, swatch.blue])
        }
    }

    override func reverseTransformedValue(_ value: Any?) -> Any? {
        guard let data = value as? Data else { return nil }
        if data == Data([0xEF]) { return "not a swatch" }
        guard data.count == 3 else { return nil }
        let bytes = Array(data)
        return Swatch(red: bytes[0], green: bytes[1], blue: bytes[2])
    }
}

/// Stores a `Swatch` as its hex text's UTF-8; registered by name only.
final class HexSwatchTransformer: ValueTransformer {
    override func transformedValue(_ value: Any?) -> Any? {
        guard let swatch = value as? Swatch else { return nil }
        return Data(String(format: "%02x%02x%02x", swatch.red, swatch.green, swatch.blue).utf8)
    }

    override func reverseTransformedValue(_ value: Any?) -> Any? {
        guard let data = value as? Data, let number = UInt32(String(decoding: data, as: UTF8.self), radix: 16) else {
            return nil
        }
        return Swatch(red: UInt8(number >> 16 & 0xFF), green: UInt8(number >> 8 & 0xFF), blue: UInt8(number & 0xFF))
    }
}

/// The name `Palette.hex` is registered under, by `registerHexTransformer()`.
let hexSwatchTransformerName = NSValueTransformerName("ModelStoreTests.HexSwatch")

func registerHexTransformer() {
    ValueTransformer.setValueTransformer(HexSwatchTransformer(), forName: hexSwatchTransformerName)
}

@Model final class Palette {
    var name: String
    @Attribute(.transformable(by: SwatchTransformer.self)) var primary: Swatch
    @Attribute(.transformable(by: SwatchTransformer.self)) var secondary: Swatch?
    @Attribute(.transformable(by: "ModelStoreTests.HexSwatch")) var hex: Swatch?

    init(name: String, primary: Swatch, secondary: Swatch? = nil, hex: Swatch? = nil) {
        self.name = name
        self.primary = primary
        self.secondary = secondary
        self.hex = hex
    }
}

/// A model whose transformer name nothing registers.
@Model final class Unregistered {
    @Attribute(.transformable(by: "ModelStoreTests.NeverRegistered")) var swatch: Swatch

    init(swatch: Swatch) { self.swatch = swatch }
}

/// The same entity before and after a transformable attribute is added.
enum TintV1 {
    @Model final class Tint {
        var name: String
        init(name: String) { self.name = name }
    }
}

enum TintV2 {
    @Model final class Tint {
        var name: String
        @Attribute(.transformable(by: SwatchTransformer.self)) var swatch = Swatch(red: 1, green: 2, blue: 3)
        init(name: String) { self.name = name }
    }
}

@Suite("@Attribute(.transformable(by:))")
struct TransformableTests {
    private let teal = Swatch(red: 0, green: 128, blue: 128)
    private let coral = Swatch(red: 255, green: 127, blue: 80)

    /// A file store whose container is dropped after `body` saved, so that
    /// the caller reads what a reopened store holds.
    private func savedStore(on kind: StoreKind = .file, _ body: (ModelContext) throws -> Void) throws -> TestStore {
        let store = try TestStore(kind)
        let container = try store.container([Palette.self])
        let context = ModelContext(container)
        try body(context)
        try context.save()
        return store
    }

    /// The storage class of a column of the one Palette row, and its bytes
    /// when it is a BLOB.
    private func rawColumn(_ store: TestStore, _ column: String) throws -> (ColumnStorage, Data?) {
        let connection = try Connection(location: store.url.path, mode: .create)
        let statement = try connection.prepare("SELECT \(quoteIdentifier(column)) FROM \"Palette\"")
        #expect(try statement.step())
        let storage = statement.storage(at: 0)
        return (storage, storage == .blob ? statement.data(at: 0) : nil)
    }

    @Test("Values round-trip through the transformer in a reopened file store, stored as BLOBs", .opensStoreFile)
    func roundTripThroughReopenedStore() throws {
        registerHexTransformer()
        let store = try savedStore { $0.insert(Palette(name: "Sea", primary: teal, secondary: coral, hex: coral)) }
        let fetched = try #require(try ModelContext(store.container([Palette.self])).fetch(FetchDescriptor<Palette>()).first)
        #expect(fetched.primary == teal)
        #expect(fetched.secondary == coral)
        #expect(fetched.hex == coral)
        #expect(try rawColumn(store, "primary").1 == Data([0, 128, 128]))
        #expect(try rawColumn(store, "hex").1 == Data("ff7f50".utf8))
    }

    @Test("A changed value is saved through the transformer")
    func updateRoundTrips() throws {
        let store = try savedStore { $0.insert(Palette(name: "Sea", primary: teal)) }
        let context = ModelContext(try store.container([Palette.self]))
        let palette = try #require(try context.fetch(FetchDescriptor<Palette>()).first)
        palette.primary = coral
        try context.save()
        let fetched = try ModelContext(store.container([Palette.self])).fetch(FetchDescriptor<Palette>())
        #expect(fetched.map(\.primary) == [coral])
    }

    @Test("An optional nil is stored as NULL without calling the transformer, and reads as nil", .opensStoreFile)
    func optionalNilIsNull() throws {
        // SwatchTransformer turns anything but a Swatch (nil included) into
        // nil, which is an error: the save succeeding shows it was not called.
        let store = try savedStore { $0.insert(Palette(name: "Plain", primary: teal)) }
        #expect(try rawColumn(store, "secondary").0 == .null)
        let fetched = try #require(try ModelContext(store.container([Palette.self])).fetch(FetchDescriptor<Palette>()).first)
        #expect(fetched.secondary == nil)
        #expect(fetched.hex == nil)
    }

    @Test(
        "A transformer that returns nil or not Data on save is an error naming entity and property; nothing is written",
        arguments: [(UInt8(13), "returned nil for a Swatch value"), (UInt8(14), "returned a String, not Data")])
    func failingForwardTransformation(red: UInt8, reason: String) throws {
        let store = try TestStore(.file)
        let container = try store.container([Palette.self])
        let context = ModelContext(container)
        context.insert(Palette(name: "Bad", primary: teal, secondary: Swatch(red: red, green: 0, blue: 0)))
        #expect {
            try context.save()
        } throws: { error in
            guard case ModelStoreError.invalidValue("Palette", "secondary", nil, let text, _) = error else { return false }
            return text.contains("'ModelStoreTests.SwatchTransformer' \(reason)")
        }
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Palette>()) == 0)
        #expect(context.hasChanges, "the object is still unsaved")
    }

    @Test(
        "A transformer that returns nil or another type on load is an error naming entity, property and row", .opensStoreFile,
        arguments: [(UInt8(200), "returned nil for the stored data"), (UInt8(201), "returned a String, not a Swatch")])
    func failingReverseTransformation(red: UInt8, reason: String) throws {
        let store = try savedStore { $0.insert(Palette(name: "Odd", primary: Swatch(red: red, green: 0, blue: 0))) }
        let context = ModelContext(try store.container([Palette.self]))
        #expect {
            try context.fetch(FetchDescriptor<Palette>())
        } throws: { error in
            guard case ModelStoreError.invalidValue("Palette", "primary", 1, let text, store.url.path) = error else {
                return false
            }
            return text.contains("'ModelStoreTests.SwatchTransformer' \(reason)")
        }
    }

    @Test("A transformer name nothing registered is an error naming it, on save")
    func unregisteredName() throws {
        let store = try TestStore(.inMemory)
        let context = ModelContext(try store.container([Unregistered.self]))
        context.insert(Unregistered(swatch: teal))
        #expect {
            try context.save()
        } throws: { error in
            guard case ModelStoreError.invalidValue("Unregistered", "swatch", nil, let text, _) = error else { return false }
            return text.contains("no value transformer is registered under the name 'ModelStoreTests.NeverRegistered'")
        }
    }

    @Test("The schema records the option with the transformer's name; the column is data")
    func schemaRecord() throws {
        let entity = try #require(Schema([Palette.self]).entity(named: "Palette"))
        let primary = try #require(entity.attribute(named: "primary"))
        #expect(primary.kind == .data)
        #expect(primary.isTransformable)
        #expect(!primary.isOptional)
        #expect(primary.swiftType == "Swatch")
        #expect(primary.options.map(\.transformerName) == ["ModelStoreTests.SwatchTransformer"])
        #expect(try #require(entity.attribute(named: "hex")).options == [.transformable(by: "ModelStoreTests.HexSwatch")])
        #expect(try #require(entity.attribute(named: "secondary")).isOptional)
        #expect(try #require(entity.attribute(named: "name")).isTransformable == false)
        // The record round-trips through its JSON, and an option without a
        // transformer encodes as before (no new key).
        let data = try JSONEncoder().encode(primary)
        #expect(try JSONDecoder().decode(Schema.Attribute.self, from: data) == primary)
        #expect(String(decoding: try JSONEncoder().encode(Schema.Attribute.Option.unique), as: UTF8.self) == #"{"name":"unique"}"#)
    }

    @Test("A migration adds a transformable attribute as a data column, filled with the transformed initial value", .opensStoreFile)
    func migrationFillsTransformedDefault() throws {
        let url = try TemporaryDirectory().file()
        do {
            let context = ModelContext(try open(url, [TintV1.Tint.self]))
            context.insert(TintV1.Tint(name: "Old"))
            try context.save()
        }
        let container = try ModelContainer(
            for: Schema([TintV2.Tint.self], version: Schema.Version(2, 0, 0)), configurations: [migrationConfiguration(url)])
        let tints = try ModelContext(container).fetch(FetchDescriptor<TintV2.Tint>())
        #expect(tints.map(\.swatch) == [Swatch(red: 1, green: 2, blue: 3)])
        let stored = try StoreFile(url: url).storedSchema().entity(named: "Tint")?.attribute(named: "swatch")
        #expect(stored?.kind == .data)
        #expect(stored?.isTransformable == true)
    }

    @Test(
        "A save conflict compares transformable values through the transformer: only the one changed in the store is listed",
        arguments: StoreKind.backends)
    func conflictComparesTransformedValues(kind: StoreKind) throws {
        let store = try savedStore(on: kind) { $0.insert(Palette(name: "Sea", primary: teal, hex: nil)) }
        let container = try store.container([Palette.self])
        let first = ModelContext(container)
        let second = ModelContext(container)
        let a = try #require(try first.fetch(FetchDescriptor<Palette>()).first)
        let b = try #require(try second.fetch(FetchDescriptor<Palette>()).first)
        a.primary = coral
        try first.save()
        b.name = "Ocean"
        #expect {
            try second.save()
        } throws: { error in
            guard case ModelStoreError.saveConflicts(_, let conflicts) = error, let conflict = conflicts.first else { return false }
            // The save merged the other context's `primary` into the
            // unchanged property first (read through the transformer), so
            // only the context's own change is left in the conflict.
            return conflict.properties.map(\.name) == ["name"] && conflict.propertiesChangedOnBothSides.isEmpty
        }
        #expect(b.primary == coral)
    }

    @Test("The registry: names, lookup by name and type, replacement and removal")
    func registry() throws {
        let name = NSValueTransformerName("ModelStoreTests.Registry")
        #expect(ValueTransformer(forName: name) == nil)
        let transformer = HexSwatchTransformer()
        ValueTransformer.setValueTransformer(transformer, forName: name)
        #expect(ValueTransformer(forName: name) === transformer)
        #expect(HexSwatchTransformer(forName: name) === transformer)
        #expect(SwatchTransformer(forName: name) == nil, "registered, but not of that class")
        #expect(ValueTransformer.valueTransformerNames().contains(name))
        ValueTransformer.setValueTransformer(nil, forName: name)
        #expect(ValueTransformer(forName: name) == nil)
        // The class form registers the class under its qualified name.
        _ = Schema.Attribute.Option.transformable(by: SwatchTransformer.self)
        #expect(ValueTransformer(forName: .init("ModelStoreTests.SwatchTransformer")) is SwatchTransformer)
        // Foundation's defaults.
        let plain = ValueTransformer()
        #expect(ValueTransformer.allowsReverseTransformation())
        #expect(plain.transformedValue(3) as? Int == 3)
        #expect(plain.reverseTransformedValue("x") as? String == "x")
    }
}
