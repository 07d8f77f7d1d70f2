import Foundation
import ModelStore

enum Status: String, Codable, CaseIterable { case planned, booked, done }
struct Budget: Codable, Hashable { var amount: Double; var currency: String }

@Model final class Trip {
    @Attribute(.unique) var name: String
    var destination: String
    var startDate: Date
    var budget: Budget?
    var tags: [String] = []
    var status: Status = .planned
    @Attribute(originalName: "notes_text") var notes: String?
    @Transient var isSelected = false
    var nights: Int { 3 }

    init(name: String, destination: String, startDate: Date) {
        self.name = name
        self.destination = destination
        self.startDate = startDate
    }
}

/// Every supported attribute type, plain and optional.
@Model final class AllTypes {
    var bool: Bool = false
    var int: Int = 0
    var int8: Int8 = 0
    var int16: Int16 = 0
    var int32: Int32 = 0
    var int64: Int64 = 0
    var uint8: UInt8 = 0
    var uint16: UInt16 = 0
    var uint32: UInt32 = 0
    var uint64: UInt64 = 0
    var uint: UInt = 0
    var double: Double = 0
    var float: Float = 0
    var string: String = ""
    var date: Date = Date(timeIntervalSince1970: 0)
    var uuid: UUID = UUID()
    var data: Data = Data()
    var url: URL = URL(string: "https://example.com")!
    var decimal: Decimal = 0
    var status: Status = .planned
    var budget: Budget = Budget(amount: 0, currency: "EUR")
    var array: [String] = []
    var set: Set<Int> = []
    var dictionary: [String: Int] = [:]
    var statuses: [Status] = []
    var optionalInt: Int?
    var optionalString: String?
    var optionalDate: Date?
    var optionalStatus: Status?
    var optionalBudget: Budget?
    var optionalArray: [String]?
    var optionalData: Data?
    var optionalUUID: UUID?
    var optionalDouble: Double?

    init() {}
}

/// A model with a property named `id`, private storage and a custom init.
@Model final class Account {
    var id: UUID
    private var secret: String
    private(set) var balance: Int = 0
    var count = 0

    init(secret: String) {
        self.id = UUID()
        self.secret = secret
    }

    func deposit(_ amount: Int) { balance += amount }
    var revealedSecret: String { secret }
}

/// A non-final class, as many SwiftData apps declare them.
@Model class Note {
    var text: String
    init(text: String) { self.text = text }
}
