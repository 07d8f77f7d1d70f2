import Foundation
import Testing
@testable import ModelStore
@testable import ModelStoreDynamic

/// Saves of long to-many relationships: every edit (adds, removes,
/// reorders, moves) is stored in exactly the order the app holds, whichever
/// way the links are stored (a foreign key with an order column, either side
/// of a join table), and a save writes the links that changed, not the
/// whole list.
@Suite("Large to-many saves")
struct LargeToManyTests {
    typealias Trip = Graph.Trip
    typealias Stop = Graph.Stop
    typealias Tag = Graph.Tag

    /// Members of each list the tests build.
    static let size = 2_000
    /// `MODELSTORE_STRESS=1` runs the random edits on lists of 20,000, for
    /// 100 saves each.
    static let stress = ProcessInfo.processInfo.environment["MODELSTORE_STRESS"] == "1"

    /// The three ways a to-many is stored.
    enum Storage: String, CaseIterable, CustomTestStringConvertible {
        /// `Trip.stops`: the stops' foreign key and order column.
        case foreignKey
        /// `Trip.tags`: one side of the join table.
        case joinTable
        /// `Tag.trips`: the other side of the same join table.
        case joinTableOtherSide
        var testDescription: String { rawValue }
    }

    // MARK: Order and membership after reopening

    @Test("Random adds, removes, reorders and replacements of a long list are stored exactly", arguments: Storage.allCases)
    func randomEdits(storage: Storage) throws {
        let store = try TestStore()
        var generator = SeededGenerator(seed: 18)
        var context = ModelContext(try store.graphContainer())
        let size = Self.stress ? 20_000 : Self.size
        var list = try LongList(storage, in: context, count: size)
        try context.save()
        var made = size
        for round in 0..<(Self.stress ? 100 : 30) {
            // Every fifth round starts from a fresh context, so that the
            // order compared with is the one loaded, not the one last saved.
            if round % 5 == 4 {
                context = ModelContext(try store.graphContainer())
                list = try LongList(storage, loadedIn: context)
            }
            var names = list.names
            for _ in 0..<Int.random(in: 1...3, using: &generator) {
                randomEdit(&names, made: &made, using: &generator)
            }
            try list.set(names)
            try context.save()
            #expect(list.names == names, "round \(round): the list in memory")
            #expect(try LongList.stored(storage, at: store) == names, "round \(round): the list stored")
        }
    }

    @Test("Members moved between two long lists are stored in both", arguments: [Storage.foreignKey, .joinTable])
    func moves(storage: Storage) throws {
        let store = try TestStore()
        var generator = SeededGenerator(seed: 7)
        let context = ModelContext(try store.graphContainer())
        let first = try LongList(storage, in: context, count: Self.size, holder: "first")
        let second = try LongList(storage, in: context, count: Self.size, holder: "second", prefix: "b")
        try context.save()
        for round in 0..<10 {
            var from = first.names
            var to = second.names
            for _ in 0..<5 {
                let name = from.remove(at: Int.random(in: 0..<from.count, using: &generator))
                to.insert(name, at: Int.random(in: 0...to.count, using: &generator))
            }
            // A stop has one trip: taking it into `second` takes it out of
            // `first` by itself. A tag may be in both: it is taken out here.
            try second.set(to, from: first)
            try first.set(from)
            try context.save()
            #expect(try LongList.stored(storage, at: store, holder: "first") == from, "round \(round)")
            #expect(try LongList.stored(storage, at: store, holder: "second") == to, "round \(round)")
        }
    }

    @Test("Deleting members of a long list keeps the others in order", arguments: [Storage.foreignKey, .joinTable])
    func deletes(storage: Storage) throws {
        let store = try TestStore()
        let context = ModelContext(try store.graphContainer())
        let list = try LongList(storage, in: context, count: Self.size)
        try context.save()
        var names = list.names
        for index in [Self.size - 1, 1_000, 0, 17] {
            let name = names.remove(at: index)
            try list.deleteMember(named: name)
        }
        try context.save()
        try list.append("new")
        names.append("new")
        try context.save()
        #expect(try LongList.stored(storage, at: store) == names)
    }

    // MARK: Stored positions that cannot be trusted

    @Test("Positions with gaps (written by another tool) are renumbered before an append, not trusted", .opensStoreFile, arguments: [Storage.foreignKey, .joinTable])
    func gaps(storage: Storage) throws {
        let store = try TestStore()
        let context = ModelContext(try store.graphContainer())
        let list = try LongList(storage, in: context, count: 3)
        try context.save()
        // Positions 0, 5, 10: an append written at position 3 would land
        // before the second member.
        try setPositions([0, 5, 10], storage: storage, at: store)
        let reader = ModelContext(try store.graphContainer())
        let loaded = try LongList(storage, loadedIn: reader)
        #expect(loaded.names == list.names)
        try loaded.append("new")
        try reader.save()
        #expect(try LongList.stored(storage, at: store) == list.names + ["new"])
    }

    @Test("Tied positions after a replaced member are rewritten, not trusted", .opensStoreFile, arguments: [Storage.foreignKey, .joinTable])
    func ties(storage: Storage) throws {
        let store = try TestStore()
        let context = ModelContext(try store.graphContainer())
        let list = try LongList(storage, in: context, count: 3)
        try context.save()
        let names = list.names
        // Positions 0, 1, 1: the third member sorts after the second by its
        // key. A new second member written at 1 with the third left at 1
        // would sort after it (its key is larger).
        try setPositions([0, 1, 1], storage: storage, at: store)
        let reader = ModelContext(try store.graphContainer())
        let loaded = try LongList(storage, loadedIn: reader)
        try loaded.set([names[0], "new", names[2]])
        try reader.save()
        #expect(try LongList.stored(storage, at: store) == [names[0], "new", names[2]])
    }

    @Test("NULL positions (links written from the other side only) are numbered in their loaded order before an append", .opensStoreFile, arguments: [Storage.joinTable])
    func nullPositions(storage: Storage) throws {
        let store = try TestStore()
        let context = ModelContext(try store.graphContainer())
        _ = try LongList(storage, in: context, count: 4)
        try context.save()
        try setPositions([nil, nil, 0, 1], storage: storage, at: store)
        let reader = ModelContext(try store.graphContainer())
        let loaded = try LongList(storage, loadedIn: reader)
        let names = loaded.names
        try loaded.append("new")
        try reader.save()
        #expect(try LongList.stored(storage, at: store) == names + ["new"])
    }

    // MARK: Work done

    @Test("Appending one member to a long list runs a constant number of statements", arguments: Storage.allCases)
    func appendCost(storage: Storage) throws {
        let store = try TestStore()
        let container = try store.graphContainer()
        do {
            let context = ModelContext(container)
            _ = try LongList(storage, in: context, count: Self.size)
            try context.save()
        }
        let context = ModelContext(container)
        let list = try LongList(storage, loadedIn: context)
        try list.append("new")
        let counter = try StatementCounter(context)
        try context.save()
        // The new object's INSERT, one lookup of the last member's
        // position, one link, the history's transaction and changes (the
        // transaction's own statements aside).
        #expect(counter.count <= 10, "\(counter.statements)")
        #expect(try LongList.stored(storage, at: store).count == Self.size + 1)
    }

    @Test("Replacing one member of a long list writes its links only; removing the last writes only the removal")
    func replaceCost() throws {
        let store = try TestStore()
        let context = ModelContext(try store.graphContainer())
        let list = try LongList(.joinTable, in: context, count: Self.size)
        try context.save()
        var names = list.names
        names[1_000] = "new"
        try list.set(names)
        let counter = try StatementCounter(context)
        try context.save()
        // The new tag's INSERT, two lookups, the old link's DELETE and the
        // new link's INSERT (from each side), the history's transaction and
        // changes, not one per member.
        #expect(counter.count <= 15, "\(counter.statements)")
        #expect(try LongList.stored(.joinTable, at: store) == names)
        counter.reset()
        names.removeLast()
        try list.set(names)
        try context.save()
        #expect(
            counter.statements.filter { $0.hasPrefix("INSERT INTO") && !$0.hasPrefix("INSERT INTO \"_modelstore_") }.isEmpty,
            "\(counter.statements)")
        #expect(try LongList.stored(.joinTable, at: store) == names)
    }

    @Test("store-tool's edits of a long list (the dynamic layer) write only what moved, in the right order", .opensStoreFile, arguments: [Storage.foreignKey, .joinTable])
    func dynamicEdits(storage: Storage) throws {
        let store = try TestStore()
        let context = ModelContext(try store.graphContainer())
        var names = try LongList(storage, in: context, count: Self.size).names
        try context.save()
        let dynamic = try DynamicStore(path: store.url.path(percentEncoded: false), readOnly: false)
        let (entity, property, name) = storage == .foreignKey ? ("Stop", "stops", "title") : ("Tag", "tags", "name")
        let trip = ObjectID(entity: "Trip", key: try #require(try LongList.storedKeys(.foreignKey, at: store, holderOnly: true).first))
        var statements = 0
        dynamic.connection.statementObserver = { _ in statements += 1 }

        // An edit that adds one member.
        let added = try dynamic.insert(entity, [DynamicEdit(property: name, operation: .set, value: "added")]).id
        statements = 0
        _ = try dynamic.update(trip, [DynamicEdit(property: property, operation: .add, value: added.description)])
        names.append("added")
        #expect(statements < 40, "\(statements) statements")
        #expect(try LongList.stored(storage, at: store) == names)

        // A new member that names its holder (a stop's trip): the holder's
        // list gains it at the end through the inverse.
        if storage == .foreignKey {
            statements = 0
            _ = try dynamic.insert("Stop", [
                DynamicEdit(property: "title", operation: .set, value: "linked"),
                DynamicEdit(property: "trip", operation: .set, value: trip.description),
            ])
            names.append("linked")
            #expect(statements < 40, "\(statements) statements")
            #expect(try LongList.stored(storage, at: store) == names)
        }

        // Removing members from the middle renumbers the ones after them.
        let keys = try LongList.storedKeys(storage, at: store)
        let removed = [keys[10], keys[1_500]].map { ObjectID(entity: entity, key: $0).description }
        _ = try dynamic.update(trip, [DynamicEdit(property: property, operation: .remove, value: removed.joined(separator: ","))])
        names.remove(at: 1_500)
        names.remove(at: 10)
        #expect(try LongList.stored(storage, at: store) == names)

        // Setting the whole list, reordered.
        let reordered = try LongList.storedKeys(storage, at: store).reversed().map { ObjectID(entity: entity, key: $0).description }
        _ = try dynamic.update(trip, [DynamicEdit(property: property, operation: .set, value: reordered.joined(separator: ","))])
        #expect(try LongList.stored(storage, at: store) == names.reversed())
    }

    @Test("The diff against stored positions compares each member a constant number of times")
    func diffComparisons() {
        let counter = ComparisonCounter()
        let previous = (0..<10_000).map { CountedKey(value: $0, counter: counter) }
        var members = previous
        members.remove(at: 5_000)
        members.insert(CountedKey(value: -1, counter: counter), at: 100)
        members.append(CountedKey(value: 20_000, counter: counter))
        let stored = previous.enumerated().map { (key: $1, position: Int64?.some(Int64($0))) }
        let (removed, positions) = LinkDiff.exact(stored: stored, members: members)
        #expect(removed.map(\.value) == [5_000])
        // The members between the insertion and the removal moved one up; the
        // appended one is new.
        #expect(positions == Array(100...5_000) + [members.count - 1])
        // A membership test that walks a list would take ~ 10,000² / 2.
        #expect(counter.count < 10 * previous.count, "\(counter.count) comparisons")
    }

    @Test("An object repeated in the list (added twice) does not make a kept end look stored where it is not")
    func repeatedObject() throws {
        let store = try TestStore()
        let context = ModelContext(try store.graphContainer())
        let trip = Trip(name: "Lisbon")
        context.insert(trip)
        let (a, b, c) = (Tag(name: "a"), Tag(name: "b"), Tag(name: "c"))
        trip.tags = [a, b, a]
        try context.save()
        #expect(try LongList.stored(.joinTable, at: store) == ["a", "b"])
        // Compared with [a, b, a], the end "b, a" looks kept, but the store
        // has a first.
        trip.tags = [c, b, a]
        try context.save()
        #expect(try LongList.stored(.joinTable, at: store) == ["c", "b", "a"])
    }

    @Test("A list saved with an object in it twice holds it once after the save, and appends after it are stored in order", .opensStoreFile, arguments: [Storage.foreignKey, .joinTable])
    func repeatsLeaveAtSave(storage: Storage) throws {
        let store = try TestStore()
        let context = ModelContext(try store.graphContainer())
        let list = try LongList(storage, in: context, count: 20)
        try context.save()
        var names = list.names
        // The list's second member again, at its end: the store holds it once.
        try list.set(names + [names[1]])
        try context.save()
        #expect(list.names == names, "the list in memory holds what the store holds")
        #expect(try LongList.stored(storage, at: store) == names)
        // An append after the save is stored after the others; had the
        // repeat stayed, its position would be counted past a member the
        // store does not hold twice.
        try list.append("new")
        names.append("new")
        try saveExpecting(names, list, context, storage: storage, at: store)
    }

    @Test("Appending a member the list already holds, or one twice, stores each once", .opensStoreFile, arguments: [Storage.foreignKey, .joinTable])
    func appendingMembersAgain(storage: Storage) throws {
        let store = try TestStore()
        let context = ModelContext(try store.graphContainer())
        let list = try LongList(storage, in: context, count: 50)
        try context.save()
        var names = list.names
        try list.set(names + ["new", names[7]])
        names.append("new")
        try saveExpecting(names, list, context, storage: storage, at: store)
        try list.set(names + ["newer", "newer"])
        names.append("newer")
        try saveExpecting(names, list, context, storage: storage, at: store)
    }

    @Test("Appending finds the appended objects by reference, and nothing else passes for an append")
    func appendedCount() {
        let old: [AnyObject] = (0..<5).map { _ in Tag(name: "old") }
        let (x, y) = (Tag(name: "x"), Tag(name: "y"))
        #expect(LinkDiff.appendedCount(to: old, making: old + [x, y]) == 2)
        #expect(LinkDiff.appendedCount(to: [], making: [x]) == 1)
        #expect(LinkDiff.appendedCount(to: old, making: old) == nil, "nothing appended")
        #expect(LinkDiff.appendedCount(to: old, making: old + [x, x]) == nil, "one object twice")
        #expect(LinkDiff.appendedCount(to: old, making: old + [old[3]]) == nil, "a member again")
        #expect(LinkDiff.appendedCount(to: old, making: [old[1], old[0]] + old[2...] + [x]) == nil, "a reorder")
        #expect(LinkDiff.appendedCount(to: old, making: Array(old.dropLast()) + [y, x]) == nil, "a replacement")
        #expect(LinkDiff.appendedCount(to: old, making: old + (0..<9).map { _ in Tag(name: "n") }) == nil, "more than a few")
    }

    // MARK: Helpers

    /// Saves, then expects `names` in memory and in the store, at positions
    /// 0, 1, 2, ….
    private func saveExpecting(
        _ names: [String], _ list: LongList, _ context: ModelContext, storage: Storage, at store: TestStore,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        try context.save()
        #expect(list.names == names, "in memory", sourceLocation: sourceLocation)
        #expect(try LongList.stored(storage, at: store) == names, "stored", sourceLocation: sourceLocation)
        #expect(
            try LongList.storedPositions(storage, at: store) == Array(0..<Int64(names.count)), "positions",
            sourceLocation: sourceLocation)
    }

    /// One random edit of `names`; new members are named n0, n1, …
    private func randomEdit(_ names: inout [String], made: inout Int, using generator: inout SeededGenerator) {
        func fresh() -> String {
            made += 1
            return "n\(made)"
        }
        let count = names.count
        switch Int.random(in: 0..<10, using: &generator) {
        case 0: names.append(fresh())
        case 1: names.insert(fresh(), at: 0)
        case 2 where count > 0: names.insert(fresh(), at: Int.random(in: 0...count, using: &generator))
        case 3 where count > 0: names.remove(at: Int.random(in: 0..<count, using: &generator))
        case 4 where count > 0: names.removeLast()
        case 5 where count > 1:
            let name = names.remove(at: Int.random(in: 0..<count, using: &generator))
            names.insert(name, at: Int.random(in: 0..<count, using: &generator))
        case 6 where count > 1:
            names.swapAt(Int.random(in: 0..<count, using: &generator), Int.random(in: 0..<count, using: &generator))
        case 7 where count > 10:
            let start = Int.random(in: 0..<(count - 10), using: &generator)
            names[start..<(start + 10)].reverse()
        case 8 where count > 0: names[Int.random(in: 0..<count, using: &generator)] = fresh()
        default: names.append(contentsOf: (0..<50).map { _ in fresh() })
        }
    }

    /// Sets the stored positions of the list's members (in their current
    /// order) with SQL, as another tool might have left them.
    private func setPositions(_ positions: [Int64?], storage: Storage, at store: TestStore) throws {
        let file = StoreFile(url: store.url)
        let schema = try Schema(Graph.models).resolvingRelationships()
        let members = try LongList.storedKeys(storage, at: store)
        for (key, position) in zip(members, positions) {
            let value = position.map(String.init) ?? "NULL"
            switch storage {
            case .foreignKey:
                try file.execute("UPDATE Stop SET _trip_order = \(value) WHERE _pk = \(key)")
            case .joinTable, .joinTableOtherSide:
                guard case .joinTable(let name, let isSource)? = schema.entity(named: "Trip")?.relationship(named: "tags")?.storage
                else {
                    Issue.record("Trip.tags is not stored in a join table")
                    return
                }
                // The list is Trip.tags of the only trip.
                let (member, order) =
                    isSource ? (JoinTableColumn.target, JoinTableColumn.sourceOrder) : (JoinTableColumn.source, JoinTableColumn.targetOrder)
                try file.execute(
                    "UPDATE \(quoteIdentifier(name)) SET \(quoteIdentifier(order)) = \(value) "
                        + "WHERE \(quoteIdentifier(member)) = \(key)")
            }
        }
    }
}

/// A key whose comparisons are counted.
private struct CountedKey: Hashable {
    let value: Int
    let counter: ComparisonCounter

    static func == (lhs: CountedKey, rhs: CountedKey) -> Bool {
        lhs.counter.count += 1
        return lhs.value == rhs.value
    }

    func hash(into hasher: inout Hasher) { hasher.combine(value) }
}

private final class ComparisonCounter {
    var count = 0
}
