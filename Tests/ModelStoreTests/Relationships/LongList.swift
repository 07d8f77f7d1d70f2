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
