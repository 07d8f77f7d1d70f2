import Foundation
@testable import ModelStore

// The model-based test's view of its schema: each entity's attributes and
// relationships as a table of names, value pools and accessors, so that the
// oracle, the generator and the runner work on every property alike without
// generics.

/// One of the three entities of the model-based test.
enum MBEntity: Int, CaseIterable, Hashable {
    case owner, item, tag

    var className: String {
        switch self {
        case .owner: "MBOwner"
        case .item: "MBItem"
        case .tag: "MBTag"
        }
    }

    /// The prefix of the variable names in printed steps (o3, i4, t7).
    var letter: String {
        switch self {
        case .owner: "o"
        case .item: "i"
        case .tag: "t"
        }
    }

    var attributes: [MBAttribute] { MBSchema.attributes[rawValue] }

    /// The attribute that `MBStep.deleteWhere` compares (see `MBSchema.deleteWhere`).
    var bulkDeleteAttribute: Int {
        switch self {
        case .owner: 1  // rank
        case .item: 1  // quantity
        case .tag: 2  // level
        }
    }
    var relationships: [MBRelationship] { MBSchema.relationships[rawValue] }

    func relationship(named name: String) -> MBRelationship? {
        relationships.first { $0.name == name }
    }
}

/// An attribute value of any of the test's attribute types; `.null` is an
/// optional's nil.
enum MBValue: Hashable, CustomStringConvertible {
    case int(Int), string(String), double(Double), date(Date), address(MBAddress), level(MBLevel), null

    /// The value as Swift source.
    var description: String {
        switch self {
        case .int(let value):
            value == .max ? "Int.max" : value == .min ? "Int.min" : "\(value)"
        case .string(let value):
            value.debugDescription
        case .double(let value):
            Self.swift(value)
        case .date(let value):
            "Date(timeIntervalSince1970: \(Self.swift(value.timeIntervalSince1970)))"
        case .address(let value):
            "MBAddress(street: \(value.street.debugDescription), number: \(value.number))"
        case .level(let value):
            ".\(value.rawValue)"
        case .null:
            "nil"
        }
    }

    private static func swift(_ value: Double) -> String {
        if value == .infinity { return ".infinity" }
        if value == -.infinity { return "-.infinity" }
        if value == .leastNonzeroMagnitude { return ".leastNonzeroMagnitude" }
        return "\(value)"
    }

    // Typed views, for the accessors below. A value of the wrong case is a
    // bug of the test's tables, not something a run can cause.
    var int: Int { if case .int(let value) = self { return value }; preconditionFailure("\(self) is not an Int") }
    var string: String {
        if case .string(let value) = self { return value }
        preconditionFailure("\(self) is not a String")
    }
    var double: Double {
        if case .double(let value) = self { return value }
        preconditionFailure("\(self) is not a Double")
    }
    var date: Date { if case .date(let value) = self { return value }; preconditionFailure("\(self) is not a Date") }
    var address: MBAddress {
        if case .address(let value) = self { return value }
        preconditionFailure("\(self) is not an MBAddress")
    }
    var level: MBLevel {
        if case .level(let value) = self { return value }
        preconditionFailure("\(self) is not an MBLevel")
    }
    var isNull: Bool { self == .null }
}

/// The delete rules the test's relationships use.
enum MBDeleteRule { case nullify, cascade, deny }

/// An attribute of an entity: its name, the values the generator picks from
/// (few, so that writing an equal value happens often) and typed access to
/// it on a real object.
struct MBAttribute {
    let name: String
    let pool: [MBValue]
    let get: (AnyObject) -> MBValue
    let set: (AnyObject, MBValue) -> Void
    /// `ModelContext.committedValue(of:_:)`, as a value; nil when it returns nil.
    let committed: (ModelContext, AnyObject) -> MBValue?
}

/// A relationship of an entity and typed access to it on a real object.
struct MBRelationship {
    let name: String
    let destination: MBEntity
    let isToMany: Bool
    let inverse: String?
    let deleteRule: MBDeleteRule
    /// The related objects, in order (a to-one: none or one).
    let get: (AnyObject) -> [AnyObject]
    /// Assigns the whole value (a to-one: `[]` is nil).
    let assign: (AnyObject, [AnyObject]) -> Void
    /// `holder.rel.append(member)`, in place (to-many only).
    let append: (AnyObject, AnyObject) -> Void
    /// `holder.rel.removeAll { $0 === member }`, in place (to-many only).
    let remove: (AnyObject, AnyObject) -> Void
}

/// The tables of attributes and relationships, by entity. The tables are
/// `nonisolated(unsafe)`: they are constants, and their closures capture only
/// key paths (which are immutable but not `Sendable`).
enum MBSchema {
    static let ints: [MBValue] = [0, 1, -1, 42, .max, .min].map { .int($0) }
    static let strings: [MBValue] = ["", "a", "b", "Café", "Cafe\u{301}", "x y", "👩‍👩‍👧", "a\u{0}b", "'; DROP TABLE x; --"]
        .map { .string($0) }
    static let doubles: [MBValue] = [0, -0.0, 1.5, -2.25, 1e300, .infinity, -.infinity, .leastNonzeroMagnitude]
        .map { .double($0) }
    static let dates: [MBValue] = [0, 1_700_000_000, -86_400.5, 1_000_000_000.25]
        .map { .date(Date(timeIntervalSince1970: $0)) }
    static let addresses: [MBValue] = [
        MBAddress(street: "Main", number: 1), MBAddress(street: "", number: 0), MBAddress(street: "Élysée", number: -7),
    ].map { .address($0) }
    static let levels: [MBValue] = MBLevel.allCases.map { .level($0) }

    static func optional(_ pool: [MBValue]) -> [MBValue] { pool + [.null] }

    nonisolated(unsafe) static let attributes: [[MBAttribute]] = [
        [
            attribute("name", strings, \MBOwner.name, MBValue.string, { $0.string }),
            attribute("rank", ints, \MBOwner.rank, MBValue.int, { $0.int }),
            attribute("score", doubles, \MBOwner.score, MBValue.double, { $0.double }),
            attribute("since", dates, \MBOwner.since, MBValue.date, { $0.date }),
            attribute("nickname", optional(strings), \MBOwner.nickname, { $0.map(MBValue.string) ?? .null },
                { $0.isNull ? nil : $0.string }),
            attribute("address", optional(addresses), \MBOwner.address, { $0.map(MBValue.address) ?? .null },
                { $0.isNull ? nil : $0.address }),
            attribute("level", levels, \MBOwner.level, MBValue.level, { $0.level }),
        ],
        [
            attribute("title", strings, \MBItem.title, MBValue.string, { $0.string }),
            attribute("quantity", ints, \MBItem.quantity, MBValue.int, { $0.int }),
            attribute("price", optional(doubles), \MBItem.price, { $0.map(MBValue.double) ?? .null },
                { $0.isNull ? nil : $0.double }),
            attribute("due", optional(dates), \MBItem.due, { $0.map(MBValue.date) ?? .null },
                { $0.isNull ? nil : $0.date }),
            attribute("kind", optional(levels), \MBItem.kind, { $0.map(MBValue.level) ?? .null },
                { $0.isNull ? nil : $0.level }),
            attribute("box", addresses, \MBItem.box, MBValue.address, { $0.address }),
        ],
        [
            attribute("label", strings, \MBTag.label, MBValue.string, { $0.string }),
            attribute("weight", doubles, \MBTag.weight, MBValue.double, { $0.double }),
            attribute("level", levels, \MBTag.level, MBValue.level, { $0.level }),
        ],
    ]

    nonisolated(unsafe) static let relationships: [[MBRelationship]] = [
        [
            toMany("items", \MBOwner.items, .item, inverse: "owner", rule: .cascade),
            toMany("tags", \MBOwner.tags, .tag, inverse: "owners", rule: .nullify),
            toOne("favorite", \MBOwner.favorite, .tag, inverse: nil),
        ],
        [
            toOne("owner", \MBItem.owner, .owner, inverse: "items"),
            toOne("tag", \MBItem.tag, .tag, inverse: "items"),
        ],
        [
            toMany("owners", \MBTag.owners, .owner, inverse: "tags", rule: .nullify),
            toMany("items", \MBTag.items, .item, inverse: "tag", rule: .deny),
        ],
    ]

    private static func attribute<Model: PersistentModel, Value>(
        _ name: String, _ pool: [MBValue], _ keyPath: ReferenceWritableKeyPath<Model, Value>,
        _ wrap: @escaping (Value) -> MBValue, _ unwrap: @escaping (MBValue) -> Value
    ) -> MBAttribute {
        MBAttribute(
            name: name, pool: pool,
            get: { wrap(($0 as! Model)[keyPath: keyPath]) },
            set: { ($0 as! Model)[keyPath: keyPath] = unwrap($1) },
            committed: { context, object in
                context.committedValue(of: object as! Model, keyPath).map(wrap)
            })
    }

    private static func toMany<Model: PersistentModel, Member: PersistentModel>(
        _ name: String, _ keyPath: ReferenceWritableKeyPath<Model, [Member]>, _ destination: MBEntity,
        inverse: String?, rule: MBDeleteRule
    ) -> MBRelationship {
        MBRelationship(
            name: name, destination: destination, isToMany: true, inverse: inverse, deleteRule: rule,
            get: { ($0 as! Model)[keyPath: keyPath] },
            assign: { holder, members in (holder as! Model)[keyPath: keyPath] = members.map { $0 as! Member } },
            append: { holder, member in (holder as! Model)[keyPath: keyPath].append(member as! Member) },
            remove: { holder, member in (holder as! Model)[keyPath: keyPath].removeAll { $0 === member } })
    }

    private static func toOne<Model: PersistentModel, Member: PersistentModel>(
        _ name: String, _ keyPath: ReferenceWritableKeyPath<Model, Member?>, _ destination: MBEntity, inverse: String?
    ) -> MBRelationship {
        MBRelationship(
            name: name, destination: destination, isToMany: false, inverse: inverse, deleteRule: .nullify,
            get: { ($0 as! Model)[keyPath: keyPath].map { [$0] } ?? [] },
            assign: { holder, members in (holder as! Model)[keyPath: keyPath] = members.first.map { $0 as! Member } },
            append: { _, _ in preconditionFailure("\(name) is a to-one") },
            remove: { _, _ in preconditionFailure("\(name) is a to-one") })
    }

    /// A new, unattached object of `entity` with these attribute values.
    static func make(_ entity: MBEntity, serial: Int, _ values: [MBValue]) -> any PersistentModel {
        switch entity {
        case .owner:
            MBOwner(
                serial: serial, name: values[0].string, rank: values[1].int, score: values[2].double,
                since: values[3].date, nickname: values[4].isNull ? nil : values[4].string,
                address: values[5].isNull ? nil : values[5].address, level: values[6].level)
        case .item:
            MBItem(
                serial: serial, title: values[0].string, quantity: values[1].int,
                price: values[2].isNull ? nil : values[2].double, due: values[3].isNull ? nil : values[3].date,
                kind: values[4].isNull ? nil : values[4].level, box: values[5].address)
        case .tag:
            MBTag(serial: serial, label: values[0].string, weight: values[1].double, level: values[2].level)
        }
    }

    /// `context.delete(model:where:)` of the objects whose
    /// `bulkDeleteAttribute` equals `value`.
    static func deleteWhere(_ entity: MBEntity, _ value: MBValue, in context: ModelContext) throws {
        switch entity {
        case .owner:
            let rank = value.int
            try context.delete(model: MBOwner.self, where: #Predicate { $0.rank == rank })
        case .item:
            let quantity = value.int
            try context.delete(model: MBItem.self, where: #Predicate { $0.quantity == quantity })
        case .tag:
            let level = value.level
            try context.delete(model: MBTag.self, where: #Predicate { $0.level == level })
        }
    }

    /// The entity and serial of a real object of the test.
    static func identify(_ object: AnyObject) -> (entity: MBEntity, serial: Int) {
        switch object {
        case let owner as MBOwner: (.owner, owner.serial)
        case let item as MBItem: (.item, item.serial)
        case let tag as MBTag: (.tag, tag.serial)
        default: preconditionFailure("\(type(of: object)) is not a model of the model-based test")
        }
    }
}
