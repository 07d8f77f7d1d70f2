import Foundation
import ModelStore

// The schema of the model-based test: three entities with a relationship of
// every kind. The class names are prefixed so that their entity names clash
// with no other test model.
//
// - `MBOwner.items` ↔ `MBItem.owner`: one-to-many with inverse, ordered; deleting
//   an owner cascades to its items, deleting an item nullifies `owner.items`.
// - `MBOwner.tags` ↔ `MBTag.owners`: many-to-many, ordered on both sides, nullify.
// - `MBOwner.favorite`: optional to-one without inverse (cleared when its tag goes).
// - `MBTag.items` ↔ `MBItem.tag`: a tag may not be deleted while it holds items (deny).

/// A level, stored as its raw value.
enum MBLevel: String, Codable, CaseIterable { case low, mid, high }

/// A Codable value, stored as JSON.
struct MBAddress: Codable, Hashable {
    var street: String
    var number: Int
}

@Model final class MBOwner {
    var serial: Int
    var name: String
    var rank: Int
    var score: Double
    var since: Date
    var nickname: String?
    var address: MBAddress?
    var level: MBLevel
    @Relationship(deleteRule: .cascade, inverse: \MBItem.owner) var items: [MBItem] = []
    @Relationship(deleteRule: .nullify, inverse: \MBTag.owners) var tags: [MBTag] = []
    var favorite: MBTag?

    init(
        serial: Int, name: String, rank: Int, score: Double, since: Date, nickname: String?, address: MBAddress?,
        level: MBLevel
    ) {
        self.serial = serial
        self.name = name
        self.rank = rank
        self.score = score
        self.since = since
        self.nickname = nickname
        self.address = address
        self.level = level
    }
}

@Model final class MBItem {
    var serial: Int
    var title: String
    var quantity: Int
    var price: Double?
    var due: Date?
    var kind: MBLevel?
    var box: MBAddress
    var owner: MBOwner?
    var tag: MBTag?

    init(serial: Int, title: String, quantity: Int, price: Double?, due: Date?, kind: MBLevel?, box: MBAddress) {
        self.serial = serial
        self.title = title
        self.quantity = quantity
        self.price = price
        self.due = due
        self.kind = kind
        self.box = box
    }
}

@Model final class MBTag {
    var serial: Int
    var label: String
    var weight: Double
    var level: MBLevel
    var owners: [MBOwner] = []
    @Relationship(deleteRule: .deny, inverse: \MBItem.tag) var items: [MBItem] = []

    init(serial: Int, label: String, weight: Double, level: MBLevel) {
        self.serial = serial
        self.label = label
        self.weight = weight
        self.level = level
    }
}

/// The model-based test's schema (`nonisolated(unsafe)`: a constant array of
/// metatypes, which are not `Sendable`; as `Graph.models`).
nonisolated(unsafe) let modelBasedTypes: [any PersistentModel.Type] = [MBOwner.self, MBItem.self, MBTag.self]
