import Foundation
import Testing
@testable import ModelStore

/// A long to-many of one holder, seen as the names of its members, for any
/// of the three storages. New members are made for names not seen before.
final class LongList {
    let storage: LargeToManyTests.Storage
    let context: ModelContext
    private let trip: Graph.Trip?
    private let tag: Graph.Tag?
    private var stops: [String: Graph.Stop] = [:]
    private var tags: [String: Graph.Tag] = [:]
    private var trips: [String: Graph.Trip] = [:]

    /// A new holder named `holder` with `count` new members, inserted.
    init(_ storage: LargeToManyTests.Storage, in context: ModelContext, count: Int, holder: String = "Lisbon", prefix: String = "m") throws {
        self.storage = storage
        self.context = context
        if storage == .joinTableOtherSide {
            tag = Graph.Tag(name: holder)
            trip = nil
            context.insert(tag!)
        } else {
            trip = Graph.Trip(name: holder)
            tag = nil
            context.insert(trip!)
        }
        try set((0..<count).map { "\(prefix)\($0)" })
    }

    /// The saved holder named `holder`, loaded in `context`.
    init(_ storage: LargeToManyTests.Storage, loadedIn context: ModelContext, holder: String = "Lisbon") throws {
        self.storage = storage
        self.context = context
        if storage == .joinTableOtherSide {
            let loaded = try #require(try context.fetch(FetchDescriptor<Graph.Tag>()).first { $0.name == holder })
            tag = loaded
            trip = nil
            for member in loaded.trips { trips[member.name] = member }
        } else {
            let loaded = try #require(try context.fetch(FetchDescriptor<Graph.Trip>()).first { $0.name == holder })
            trip = loaded
            tag = nil
            for member in loaded.stops { stops[member.title] = member }
            for member in loaded.tags { tags[member.name] = member }
        }
    }

    var names: [String] {
        switch storage {
        case .foreignKey: trip!.stops.map(\.title)
        case .joinTable: trip!.tags.map(\.name)
        case .joinTableOtherSide: tag!.trips.map(\.name)
        }
    }

    /// Makes the list hold the members named, in order; members named in
    /// `other` are taken from it.
    func set(_ names: [String], from other: LongList? = nil) throws {
        switch storage {
        case .foreignKey:
            trip!.stops = names.map { name in
                stops[name] ?? other?.stops[name] ?? remember(Graph.Stop(title: name), in: &stops, name)
            }
            let wanted = Set(names)
            for (name, stop) in other?.stops ?? [:] where wanted.contains(name) { stops[name] = stop }
        case .joinTable:
            trip!.tags = names.map { name in
                tags[name] ?? other?.tags[name] ?? remember(Graph.Tag(name: name), in: &tags, name)
            }
            let wanted = Set(names)
            for (name, tag) in other?.tags ?? [:] where wanted.contains(name) { tags[name] = tag }
        case .joinTableOtherSide:
            tag!.trips = names.map { name in trips[name] ?? remember(Graph.Trip(name: name), in: &trips, name) }
        }
    }

    func append(_ name: String) throws {
        try set(names + [name])
    }

    /// Applies `edit` to the list in place, through its property's
    /// `_modify` accessor, as `trip.stops.append(stop)` does.
    func edit(_ edit: InPlaceEdit) {
        switch storage {
        case .foreignKey:
            let made = edit.newName.map { name in stops[name] ?? remember(Graph.Stop(title: name), in: &stops, name) }
            edit.apply(to: &trip!.stops, new: made)
        case .joinTable:
            let made = edit.newName.map { name in tags[name] ?? remember(Graph.Tag(name: name), in: &tags, name) }
            edit.apply(to: &trip!.tags, new: made)
        case .joinTableOtherSide:
            let made = edit.newName.map { name in trips[name] ?? remember(Graph.Trip(name: name), in: &trips, name) }
            edit.apply(to: &tag!.trips, new: made)
        }
    }

    /// The members named whose inverse does not agree with the list: a
    /// member that does not point back, or an object that points back
    /// without being a member.
    var inverseDisagreements: [String] {
        let members = Set(names)
        switch storage {
        case .foreignKey:
            return stops.filter { name, stop in (stop.trip === trip) != members.contains(name) }.keys.sorted()
        case .joinTable:
            return tags.filter { name, tag in tag.trips.contains { $0 === trip } != members.contains(name) }.keys.sorted()
        case .joinTableOtherSide:
            return trips.filter { name, trip in trip.tags.contains { $0 === tag } != members.contains(name) }.keys.sorted()
        }
    }

    /// Deletes the member named from the context.
    func deleteMember(named name: String) throws {
        switch storage {
        case .foreignKey: context.delete(try #require(stops[name]))
        case .joinTable: context.delete(try #require(tags[name]))
        case .joinTableOtherSide: context.delete(try #require(trips[name]))
        }
    }

    private func remember<Model>(_ model: Model, in table: inout [String: Model], _ name: String) -> Model {
        table[name] = model
        return model
    }

    /// The names of the list's members as a fresh container reads them.
    static func stored(_ storage: LargeToManyTests.Storage, at store: TestStore, holder: String = "Lisbon") throws -> [String] {
        let context = ModelContext(try store.graphContainer())
        return try LongList(storage, loadedIn: context, holder: holder).names
    }

    /// The stored positions of the only trip's stops (`.foreignKey`) or
    /// tags (`.joinTable`), in ascending order, read from the file.
    static func storedPositions(_ storage: LargeToManyTests.Storage, at store: TestStore) throws -> [Int64] {
        let file = StoreFile(url: store.url)
        let sql: String
        switch storage {
        case .foreignKey:
            sql = "SELECT _trip_order FROM Stop ORDER BY 1"
        case .joinTable, .joinTableOtherSide:
            let schema = try Schema(Graph.models).resolvingRelationships()
            guard case .joinTable(let name, let isSource)? = schema.entity(named: "Trip")?.relationship(named: "tags")?.storage
            else { throw ModelStoreError.entityNotInSchema(entity: "Trip.tags in a join table") }
            let order = isSource ? JoinTableColumn.sourceOrder : JoinTableColumn.targetOrder
            sql = "SELECT \(quoteIdentifier(order)) FROM \(quoteIdentifier(name)) ORDER BY 1"
        }
        return try file.rows(sql).map { row in
            guard case .integer(let position) = row[0] else { throw ModelStoreError.entityNotInSchema(entity: "a NULL position") }
            return position
        }
    }

    /// The row keys of the list's members, in their stored order (with
    /// `holderOnly`, the holder's key alone).
    static func storedKeys(_ storage: LargeToManyTests.Storage, at store: TestStore, holderOnly: Bool = false) throws -> [Int64] {
        let context = ModelContext(try store.graphContainer())
        let list = try LongList(storage, loadedIn: context)
        if holderOnly {
            let holder: (any PersistentModel)? = storage == .joinTableOtherSide ? list.tag : list.trip
            return [holder?._$modelState.rowID].compactMap { $0 }
        }
        let models: [any PersistentModel] =
            switch storage {
            case .foreignKey: list.trip!.stops
            case .joinTable: list.trip!.tags
            case .joinTableOtherSide: list.tag!.trips
            }
        return models.compactMap { $0._$modelState.rowID }
    }
}

/// An edit of a list made in place. Applied to the names of a `LongList`'s
/// members, it gives the names the list is expected to hold.
enum InPlaceEdit: CustomStringConvertible {
    case append(String)
    /// The member at the index, appended again: the list holds it twice
    /// until the save stores it once.
    case appendAgain(Int)
    case insert(String, at: Int)
    case remove(at: Int)
    case swap(Int, Int)
    case replace(at: Int, with: String)
    case removeLast(Int)

    /// The new member's name, for the edits that bring one.
    var newName: String? {
        switch self {
        case .append(let name), .insert(let name, _), .replace(_, let name): name
        default: nil
        }
    }

    func apply<Element>(to list: inout [Element], new: Element?) {
        switch self {
        case .append: if let new { list.append(new) }
        case .appendAgain(let index): list.append(list[index])
        case .insert(_, let index): if let new { list.insert(new, at: index) }
        case .remove(let index): list.remove(at: index)
        case .swap(let first, let second): list.swapAt(first, second)
        case .replace(let index, _): if let new { list[index] = new }
        case .removeLast(let count): list.removeLast(count)
        }
    }

    var description: String {
        switch self {
        case .append(let name): "append \(name)"
        case .appendAgain(let index): "append #\(index) again"
        case .insert(let name, let index): "insert \(name) at \(index)"
        case .remove(let index): "remove #\(index)"
        case .swap(let first, let second): "swap #\(first) and #\(second)"
        case .replace(let index, let name): "replace #\(index) with \(name)"
        case .removeLast(let count): "remove the last \(count)"
        }
    }
}
