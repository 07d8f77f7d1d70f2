import Foundation
import Testing
@testable import ModelStore

/// Long to-many lists changed in place (`trip.stops.append(stop)`, through
/// the generated `_modify`), which keep a shadow of their members instead of
/// a copy of the property's array (ListShadow.swift): every edit still
/// mirrors into the inverse, is stored in order, reads back as the committed
/// value and is rolled back and undone, and a shadow left behind by a write
/// that did not go through `_modify` is never trusted.
@Suite("In-place changes of long lists")
struct InPlaceListTests {
    typealias Storage = LargeToManyTests.Storage
    typealias Trip = Graph.Trip
    typealias Stop = Graph.Stop

    /// Long enough for a shadow.
    static let size = ListShadow.minimumCount * 3

    @Test("Random in-place edits of a long list mirror into the inverse and are stored exactly", arguments: Storage.allCases)
    func randomEdits(storage: Storage) throws {
        let store = try TestStore()
        var generator = SeededGenerator(seed: 25)
        var context = ModelContext(try store.graphContainer())
        var list = try LongList(storage, in: context, count: Self.size)
        try context.save()
        var names = list.names
        var made = 0
        for round in 0..<40 {
            if round % 10 == 9 {
                // A fresh context: the list compared with is the one loaded.
                context = ModelContext(try store.graphContainer())
                list = try LongList(storage, loadedIn: context)
            } else if round % 10 == 4 {
                // A write through the setter leaves the shadow behind.
                try list.set(names.reversed())
                names.reverse()
            }
            for _ in 0..<Int.random(in: 1...3, using: &generator) {
                let edit = randomEdit(count: names.count, made: &made, using: &generator)
                list.edit(edit)
                edit.apply(to: &names, new: edit.newName)
                #expect(list.names == names, "round \(round), \(edit): the list in memory")
                #expect(list.inverseDisagreements == [], "round \(round), \(edit): the inverses")
            }
            try context.save()
            names = uniqued(names)
            #expect(list.names == names, "round \(round): the list after the save")
            #expect(try LongList.stored(storage, at: store) == names, "round \(round): the list stored")
        }
    }

    @Test("Appending in place to a long list changes its array where it is, without copying it")
    func appendKeepsTheArray() throws {
        let store = try TestStore()
        let context = ModelContext(try store.graphContainer())
        let trip = try savedTrip(in: context)
        trip.stops.reserveCapacity(Self.size * 2)
        try context.save()
        let before = trip.stops.withUnsafeBufferPointer { $0.baseAddress }
        let ordinal = try stopsOrdinal(of: trip)
        let shadow = try #require(trip._$modelState.extras?.listShadows[ordinal], "reserving capacity made a shadow")
        trip.stops.append(Stop(title: "new"))
        #expect(trip.stops.withUnsafeBufferPointer { $0.baseAddress } == before, "the append copied the list")
        try context.save()
        trip.stops.append(Stop(title: "newer"))
        #expect(trip.stops.withUnsafeBufferPointer { $0.baseAddress } == before, "the append after a save copied the list")
        #expect(
            trip._$modelState.extras?.listShadows[ordinal] === shadow,
            "the shadow did not follow the appends: each made a new one, a copy of the list")
        #expect(trip.stops.last?.trip === trip)
        try context.save()
        #expect(try LongList.stored(.foreignKey, at: store).suffix(2) == ["new", "newer"])
        trip.stops = Array(trip.stops.dropLast())
        #expect(
            trip._$modelState.extras?.listShadows[ordinal] == nil,
            "setting the list kept the shadow of the one it replaced, and its members")
    }

    @Test("A long list changed in place reads back its saved value, and a rollback restores it and its inverses")
    func committedValueAndRollback() throws {
        let store = try TestStore()
        let context = ModelContext(try store.graphContainer())
        let trip = try savedTrip(in: context)
        let saved = trip.stops
        let removed = trip.stops[3]
        trip.stops.append(Stop(title: "new"))
        trip.stops.remove(at: 3)
        trip.stops.append(Stop(title: "newer"))
        #expect(removed.trip == nil)
        let committed = try #require(context.committedValue(of: trip, \.stops))
        #expect(committed.map(ObjectIdentifier.init) == saved.map(ObjectIdentifier.init))
        context.rollback()
        #expect(trip.stops.map(ObjectIdentifier.init) == saved.map(ObjectIdentifier.init))
        #expect(removed.trip === trip)
        trip.stops.append(Stop(title: "after"))
        try context.save()
        #expect(try LongList.stored(.foreignKey, at: store) == saved.map(\.title) + ["after"])
    }

    @Test("Undo and redo of an in-place append to a long list")
    func undoAndRedo() throws {
        let store = try TestStore()
        let context = ModelContext(try store.graphContainer())
        let undoManager = UndoManager()
        context.undoManager = undoManager
        let trip = try savedTrip(in: context)
        let saved = trip.stops.map(\.title)
        undoManager.removeAllActions()
        let stop = Stop(title: "new")
        trip.stops.append(stop)
        #expect(trip.stops.map(\.title) == saved + ["new"])
        undoManager.undo()
        #expect(trip.stops.map(\.title) == saved)
        undoManager.redo()
        #expect(trip.stops.map(\.title) == saved + ["new"])
        #expect(stop.trip === trip)
        try context.save()
        #expect(try LongList.stored(.foreignKey, at: store) == saved + ["new"])
    }

    @Test("A list that another context's save changed is not compared with its old shadow", arguments: [Storage.foreignKey, .joinTable])
    func mergedListIsNotTrustedToItsShadow(storage: Storage) throws {
        let store = try TestStore()
        let container = try store.graphContainer()
        let context = ModelContext(container)
        let list = try LongList(storage, in: context, count: Self.size)
        try context.save()
        list.edit(.append("mine"))
        try context.save()
        // Another context of the container appends, and this one merges it.
        let other = try LongList(storage, loadedIn: ModelContext(container))
        other.edit(.append("theirs"))
        try other.context.save()
        context.processPendingChanges()
        #expect(list.names.suffix(2) == ["mine", "theirs"])
        list.edit(.remove(at: 0))
        list.edit(.append("again"))
        try context.save()
        let expected = Array(list.names)
        #expect(expected.suffix(3) == ["mine", "theirs", "again"])
        #expect(try LongList.stored(storage, at: store) == expected)
        #expect(list.inverseDisagreements == [])
    }

    @Test("A shadow that no longer holds the list (written around the accessors) is made anew, not trusted")
    func staleShadow() throws {
        let store = try TestStore()
        let context = ModelContext(try store.graphContainer())
        let trip = try savedTrip(in: context)
        trip.stops.append(Stop(title: "new"))
        try context.save()
        // A shadow of another list, as a write that bypassed the accessors
        // would leave: every member but the first, and a stranger.
        let stranger = Stop(title: "stranger")
        let ordinal = try stopsOrdinal(of: trip)
        let stale = ListShadow(copying: Array(trip.stops.dropFirst()) + [stranger])
        trip._$modelState.makeExtras().listShadows[ordinal] = stale
        let first = trip.stops[0]
        trip.stops.remove(at: 0)
        #expect(first.trip == nil, "the member removed is told")
        #expect(stranger.trip == nil, "a stranger to the list is not")
        trip.stops.append(Stop(title: "last"))
        try context.save()
        #expect(try LongList.stored(.foreignKey, at: store) == trip.stops.map(\.title))
        #expect(try LongList.stored(.foreignKey, at: store).suffix(2) == ["new", "last"])
    }

    @Test("A list's shadow keeps no object alive once the app and the context let go of them")
    func shadowIsFreed() throws {
        let store = try TestStore()
        let container = try store.graphContainer()
        weak var weakContext: ModelContext?
        weak var weakTrip: Trip?
        weak var weakStop: Stop?
        do {
            let context = ModelContext(container)
            weakContext = context
            let trip = try savedTrip(in: context)
            trip.stops.append(Stop(title: "new"))
            try context.save()
            trip.stops.append(Stop(title: "newer"))
            let ordinal = try stopsOrdinal(of: trip)
            #expect(trip._$modelState.extras?.listShadows[ordinal] != nil)
            weakTrip = trip
            weakStop = trip.stops[5]
        }
        #expect(weakContext == nil)
        #expect(weakTrip == nil, "the trip and its stops hold each other through the shadow")
        #expect(weakStop == nil)
    }

    @Test("Identity comparisons of reference lists, within their limits")
    func referenceLists() {
        let objects: [AnyObject] = (0..<40).map { _ in Stop(title: "x") }
        let other = Stop(title: "other")
        var changed = objects
        changed[17] = other
        #expect(ReferenceLists.commonPrefixCount(objects, objects) == 40)
        #expect(ReferenceLists.commonPrefixCount(objects, changed) == 17)
        #expect(ReferenceLists.commonPrefixCount(objects, changed, upTo: 10) == 10)
        #expect(ReferenceLists.commonPrefixCount(objects, Array(objects.prefix(5))) == 5)
        #expect(ReferenceLists.commonPrefixCount(objects, []) == 0)
        #expect(ReferenceLists.commonPrefixCount(objects, objects, upTo: -1) == 0)
        #expect(ReferenceLists.contains(objects[39], in: objects))
        #expect(!ReferenceLists.contains(objects[39], in: objects, upTo: 39))
        #expect(!ReferenceLists.contains(other, in: objects))
        #expect(ReferenceLists.contains(other, in: changed[10...]))
        #expect(!ReferenceLists.contains(other, in: changed[18...]))
        #expect(!ReferenceLists.contains(other, in: [], upTo: 5))
    }

    @Test("An in-place append of a stop the list holds already is stored once, at its first place, after new ones")
    func appendingAMemberAgainAfterNewOnes() throws {
        let store = try TestStore()
        let context = ModelContext(try store.graphContainer())
        let trip = try savedTrip(in: context)
        let first = trip.stops[0]
        trip.stops.append(Stop(title: "new"))
        trip.stops.append(first)
        trip.stops.append(Stop(title: "newer"))
        try context.save()
        let expected = (0..<Self.size).map { "s\($0)" } + ["new", "newer"]
        #expect(try LongList.stored(.foreignKey, at: store) == expected)
        #expect(trip.stops.map(\.title) == expected)
    }

    @Test("A shadow knows which appended members repeat nothing, and a save trusts only those")
    func shadowTracksNewAppends() {
        let list: [AnyObject] = (0..<ListShadow.minimumCount).map { _ in NSObject() }
        let shadow = ListShadow(copying: list)
        let new = NSObject()
        #expect(shadow.followAppend(to: list + [new], sharing: list.count, appendedAreNew: true))
        #expect(shadow.knownNewAppended(after: list.count, making: list + [new]) == 1)
        #expect(shadow.knownNewAppended(after: list.count, making: list + [NSObject()]) == nil, "not the shadow's list")
        #expect(shadow.knownNewAppended(after: list.count + 1, making: list + [new]) == nil, "nothing appended")
        #expect(shadow.followAppend(to: list + [new, list[0]], sharing: list.count + 1, appendedAreNew: false))
        #expect(shadow.knownNewAppended(after: list.count, making: list + [new, list[0]]) == nil, "a repeat was appended")
        #expect(ListShadow.areDistinct([new, list[0], list[1]][...]))
        #expect(!ListShadow.areDistinct([new, list[0], new][...]))
        let many = (0..<20).map { _ in NSObject() as AnyObject }
        #expect(ListShadow.areDistinct(many[...]))
        #expect(!ListShadow.areDistinct((many + [many[3]])[...]))
    }

    // MARK: Helpers

    /// A trip with `size` new stops, inserted into `context` and saved.
    private func savedTrip(in context: ModelContext) throws -> Trip {
        let trip = Trip(name: "Lisbon")
        context.insert(trip)
        trip.stops = (0..<Self.size).map { Stop(title: "s\($0)") }
        try context.save()
        return trip
    }

    /// The ordinal of `Trip.stops`, which keys its shadow.
    private func stopsOrdinal(of trip: Trip) throws -> Int {
        try #require(trip._$modelState.table?.slots.firstIndex { $0.name == "stops" })
    }

    /// One random in-place edit of a list of `count`; new members are named
    /// i0, i1, …
    private func randomEdit(count: Int, made: inout Int, using generator: inout SeededGenerator) -> InPlaceEdit {
        func fresh() -> String {
            made += 1
            return "i\(made)"
        }
        guard count > 2 else { return .append(fresh()) }
        let index = Int.random(in: 0..<count, using: &generator)
        switch Int.random(in: 0..<10, using: &generator) {
        case 0..<4: return .append(fresh())
        case 4: return .appendAgain(index)
        case 5: return .insert(fresh(), at: index)
        case 6: return .remove(at: index)
        case 7: return .swap(index, Int.random(in: 0..<count, using: &generator))
        case 8: return .replace(at: index, with: fresh())
        default: return .removeLast(min(2, count))
        }
    }

    /// `names` without repeats, keeping the first of each: what a save stores.
    private func uniqued(_ names: [String]) -> [String] {
        var seen = Set<String>()
        return names.filter { seen.insert($0).inserted }
    }
}
