import Foundation
import Testing
@testable import ModelStore

@Suite("Round trip of every supported type")
struct RoundTripTests {
    /// Saves `model`, reopens the store in a new container (from disk for a
    /// file store), and returns the fetched copy.
    private func roundTrip(_ model: AllTypes, kind: StoreKind = .file) throws -> AllTypes {
        let store = try TestStore(kind)
        var container: ModelContainer? = try store.container()
        let context = ModelContext(try #require(container))
        context.insert(model)
        try context.save()
        if kind != .inMemory { container = nil }
        let reopened = try container ?? store.container()
        let fetched = try ModelContext(reopened).fetch(FetchDescriptor<AllTypes>())
        #expect(fetched.count == 1)
        let copy = try #require(fetched.first)
        #expect(copy !== model)
        return copy
    }

    @Test(arguments: StoreKind.allCases)
    func typicalValues(kind: StoreKind) throws {
        let model = AllTypes()
        model.bool = true
        model.int = -42
        model.int8 = -8
        model.int16 = 1600
        model.int32 = -32_000_000
        model.int64 = 64_000_000_000
        model.uint8 = 200
        model.uint16 = 60_000
        model.uint32 = 4_000_000_000
        model.uint64 = 18_000_000_000
        model.uint = 7
        model.double = 3.25
        model.float = 1.5
        model.string = "Zürich — 東京 🚆"
        model.date = Date(timeIntervalSince1970: 1_700_000_000.123)
        model.uuid = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!
        model.data = Data([0, 1, 2, 255])
        model.url = URL(string: "https://example.com/a%20b?q=1#f")!
        model.decimal = Decimal(string: "12345678901234567890.123456789")!
        model.status = .booked
        model.budget = Budget(amount: 99.5, currency: "CHF")
        model.array = ["x", "", "y"]
        model.set = [3, 1, 2]
        model.dictionary = ["a": 1, "b": 2]
        model.statuses = [.done, .planned]
        model.optionalInt = 5
        model.optionalString = "s"
        model.optionalDate = Date(timeIntervalSince1970: -86_400)
        model.optionalStatus = .done
        model.optionalBudget = Budget(amount: 1, currency: "USD")
        model.optionalArray = []
        model.optionalData = Data()
        model.optionalUUID = UUID()
        model.optionalDouble = -0.5

        let copy = try roundTrip(model, kind: kind)
        #expect(copy.bool == true)
        #expect(copy.int == -42)
        #expect(copy.int8 == -8)
        #expect(copy.int16 == 1600)
        #expect(copy.int32 == -32_000_000)
        #expect(copy.int64 == 64_000_000_000)
        #expect(copy.uint8 == 200)
        #expect(copy.uint16 == 60_000)
        #expect(copy.uint32 == 4_000_000_000)
        #expect(copy.uint64 == 18_000_000_000)
        #expect(copy.uint == 7)
        #expect(copy.double == 3.25)
        #expect(copy.float == 1.5)
        #expect(copy.string == "Zürich — 東京 🚆")
        #expect(copy.date == model.date)
        #expect(copy.uuid == model.uuid)
        #expect(copy.data == Data([0, 1, 2, 255]))
        #expect(copy.url == model.url)
        #expect(copy.decimal == model.decimal)
        #expect(copy.status == .booked)
        #expect(copy.budget == Budget(amount: 99.5, currency: "CHF"))
        #expect(copy.array == ["x", "", "y"])
        #expect(copy.set == [1, 2, 3])
        #expect(copy.dictionary == ["a": 1, "b": 2])
        #expect(copy.statuses == [.done, .planned])
        #expect(copy.optionalInt == 5)
        #expect(copy.optionalString == "s")
        #expect(copy.optionalDate == model.optionalDate)
        #expect(copy.optionalStatus == .done)
        #expect(copy.optionalBudget == Budget(amount: 1, currency: "USD"))
        #expect(copy.optionalArray == [])
        #expect(copy.optionalData == Data())
        #expect(copy.optionalUUID == model.optionalUUID)
        #expect(copy.optionalDouble == -0.5)
    }

    @Test func nilValues() throws {
        let copy = try roundTrip(AllTypes())
        #expect(copy.optionalInt == nil)
        #expect(copy.optionalString == nil)
        #expect(copy.optionalDate == nil)
        #expect(copy.optionalStatus == nil)
        #expect(copy.optionalBudget == nil)
        #expect(copy.optionalArray == nil)
        #expect(copy.optionalData == nil)
        #expect(copy.optionalUUID == nil)
        #expect(copy.optionalDouble == nil)
    }

    @Test func extremes() throws {
        let model = AllTypes()
        model.int = .min
        model.int64 = .max
        model.int8 = .min
        model.int16 = .max
        model.int32 = .min
        model.uint8 = .max
        model.uint16 = .max
        model.uint32 = .max
        model.uint64 = UInt64(Int64.max)
        model.string = ""
        model.data = Data(repeating: 0xAB, count: 1 << 20)
        model.date = .distantPast
        let copy = try roundTrip(model)
        #expect(copy.int == .min)
        #expect(copy.int64 == .max)
        #expect(copy.int8 == .min)
        #expect(copy.int16 == .max)
        #expect(copy.int32 == .min)
        #expect(copy.uint8 == .max)
        #expect(copy.uint16 == .max)
        #expect(copy.uint32 == .max)
        #expect(copy.uint64 == UInt64(Int64.max))
        #expect(copy.string == "")
        #expect(copy.data.count == 1 << 20)
        #expect(copy.data == model.data)
        #expect(copy.date == .distantPast)
    }

    @Test(arguments: [Double.nan, .infinity, -.infinity, -0.0, .leastNonzeroMagnitude, .greatestFiniteMagnitude])
    func specialDoubles(value: Double) throws {
        let model = AllTypes()
        model.double = value
        model.float = Float(value)
        model.optionalDouble = value
        let copy = try roundTrip(model)
        if value.isNaN {
            #expect(copy.double.isNaN)
            #expect(copy.float.isNaN)
            #expect(copy.optionalDouble?.isNaN == true)
        } else {
            #expect(copy.double == value)
            #expect(copy.float == Float(value))
            #expect(copy.optionalDouble == value)
        }
    }

    @Test func unsignedAboveInt64MaxIsAnErrorNotAWrap() throws {
        let store = try TestStore()
        let context = ModelContext(try store.container())
        let model = AllTypes()
        model.uint64 = UInt64(Int64.max) + 1
        context.insert(model)
        #expect {
            try context.save()
        } throws: { error in
            guard case ModelStoreError.invalidValue(let entity, let property, _, let reason, _) = error else { return false }
            return entity == "AllTypes" && property == "uint64" && reason.contains("Int64.max")
        }
        #expect(context.hasChanges)
        #expect(try ModelContext(try store.container()).fetchCount(FetchDescriptor<AllTypes>()) == 0)
    }

    @Test func transientPropertiesAreNotStored() throws {
        let store = try TestStore()
        let container = try store.container()
        let context = ModelContext(container)
        let trip = makeTrip()
        trip.isSelected = true
        context.insert(trip)
        try context.save()
        let fetched = try #require(try ModelContext(container).fetch(FetchDescriptor<Trip>()).first)
        #expect(fetched.isSelected == false)
        #expect(fetched.nights == 3)
        let attributes = try #require(container.schema.entity(named: "Trip")).attributes.map(\.name)
        #expect(attributes == ["name", "destination", "startDate", "budget", "tags", "status", "notes"])
    }
}
