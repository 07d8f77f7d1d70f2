import Foundation
@testable import ModelStore

/// The models of the queries issue: every attribute kind, optionals, a JSON
/// array, a to-one and a to-many relationship.
enum Q {
    enum Status: String, Codable, Sendable, CaseIterable { case active, retired, draft }

    @Model final class Gadget {
        var name: String
        var note: String?
        var count: Int
        var score: Double
        var small: Int32?
        var made: Date
        var code: UUID
        var price: Decimal
        var status: Status
        var isActive: Bool
        var tags: [String]
        var maker: Maker?
        @Relationship(deleteRule: .cascade, inverse: \Part.gadget) var parts: [Part] = []

        init(
            _ name: String, note: String? = nil, count: Int = 0, score: Double = 0, small: Int32? = nil,
            made: Date = Date(timeIntervalSince1970: 0), code: UUID = UUID(), price: Decimal = 0,
            status: Status = .active, isActive: Bool = true, tags: [String] = []
        ) {
            self.name = name
            self.note = note
            self.count = count
            self.score = score
            self.small = small
            self.made = made
            self.code = code
            self.price = price
            self.status = status
            self.isActive = isActive
            self.tags = tags
        }
    }

    @Model final class Maker {
        var name: String
        var country: String?
        var gadgets: [Gadget] = []
        init(_ name: String, country: String? = nil) {
            self.name = name
            self.country = country
        }
    }

    @Model final class Part {
        var title: String
        var weight: Int
        var gadget: Gadget?
        init(_ title: String, weight: Int) {
            self.title = title
            self.weight = weight
        }
    }

    static var types: [any PersistentModel.Type] { [Gadget.self, Maker.self, Part.self] }

    /// A fixed UUID, so that UUID comparisons have a known answer.
    static let knownCode = UUID(uuidString: "6F9619FF-8B86-D011-B42D-00C04FC964FF")!

    /// Saves a varied set of gadgets: nils, non-ASCII and non-NFC names,
    /// LIKE wildcards and quotes, several makers and parts.
    static func seed(_ context: ModelContext) throws {
        let acme = Maker("Acme", country: "PT")
        let bolt = Maker("Bolt")
        let names = [
            "Widget", "Gizmo", "widget", "Gadget", "", "Caf\u{E9}", "Cafe\u{301}", "\u{212A}elvin", "Kelvin",
            "100% cotton", "a_b", "O'Brien", "line\r\nbreak", "Zebra", "\u{C9}clair", "emoji 👍🏽",
        ]
        for (index, name) in names.enumerated() {
            let gadget = Gadget(
                name, note: index % 3 == 0 ? nil : "note \(index)\(index % 4 == 0 ? " x" : "")", count: index,
                score: Double(index) * 0.75, small: index % 2 == 0 ? Int32(index * 3) : nil,
                made: Date(timeIntervalSince1970: Double(index) * 86_400),
                code: index == 4 ? knownCode : UUID(), price: Decimal(string: "\(index).\(index % 3 == 0 ? "10" : "9")")!,
                status: [Status.active, .retired, .draft][index % 3], isActive: index % 4 != 1,
                tags: index % 5 == 0 ? [] : (index % 2 == 0 ? ["red", "blue"] : ["green"]))
            context.insert(gadget)
            gadget.maker = index % 3 == 0 ? acme : (index % 3 == 1 ? bolt : nil)
            for part in 0..<(index % 4) {
                gadget.parts.append(Part("part \(index)-\(part)", weight: (index + part * 3) % 12))
            }
        }
        try context.save()
    }
}

/// Holds an object weakly, so that a test can see whether something else
/// still keeps it alive.
final class WeakBox {
    weak var object: AnyObject?
    init(_ object: AnyObject) { self.object = object }
}
