import Foundation
import Testing
@testable import ModelStore

@Suite("Identity map and identifiers")
struct IdentityTests {
    @Test(arguments: StoreKind.allCases)
    func oneRowIsOneObjectAcrossFetches(kind: StoreKind) throws {
        let store = try TestStore(kind)
        let container = try store.container()
        let writer = ModelContext(container)
        writer.insert(makeTrip("A"))
        writer.insert(makeTrip("B"))
        try writer.save()

        let context = ModelContext(container)
        let first = try context.fetch(FetchDescriptor<Trip>())
        let second = try context.fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name, order: .reverse)]))
        #expect(first.count == 2)
        #expect(first[0] === second[1])
        #expect(first[1] === second[0])
        let byID = context.model(for: first[0].persistentModelID)
        #expect(byID as? Trip === first[0])
        // A different context has its own objects for the same rows.
        let other = try ModelContext(container).fetch(FetchDescriptor<Trip>())
        #expect(other[0] !== first[0])
        #expect(other[0].persistentModelID == first[0].persistentModelID)
    }

    // SwiftData's way to load many objects by identifier. On PostgreSQL the
    // list's statement is long: a second context must get it from the
    // store's shared translations (PostgresTranslationCache) and read
    // the same objects.
    @Test("a fetch by many identifiers (identifiers.contains($0.persistentModelID)) finds exactly those objects",
          arguments: StoreKind.allCases)
    func fetchByManyIdentifiers(kind: StoreKind) throws {
        let store = try TestStore(kind)
        let container = try store.containerWithSavedTrips(1_200)
        let all = try ModelContext(container).fetch(FetchDescriptor<Trip>())
        let wanted = all.enumerated().filter { $0.offset % 2 == 0 }.map(\.element.persistentModelID)
        let names = Set(all.enumerated().filter { $0.offset % 2 == 0 }.map(\.element.name))
        let descriptor = FetchDescriptor<Trip>(predicate: #Predicate { wanted.contains($0.persistentModelID) })
        for _ in 0..<2 {
            let found = try ModelContext(container).fetch(descriptor)
            #expect(found.count == 600)
            #expect(Set(found.map(\.persistentModelID)) == Set(wanted))
            #expect(Set(found.map(\.name)) == names)
        }
        let none: [PersistentIdentifier] = []
        #expect(try ModelContext(container).fetch(FetchDescriptor<Trip>(predicate: #Predicate { none.contains($0.persistentModelID) })).isEmpty)
    }

    // An entity without relationships is registered after its rows are read
    // (so that the identity map grows once): rows that already had an object
    // must still get that object, in its place in the result.
    @Test func aFetchMixingRegisteredAndNewRowsKeepsEachRowsObject() throws {
        let store = try TestStore()
        let container = try store.containerWithSavedTrips(40)
        let context = ModelContext(container)
        let table = try context.table(for: Trip.self)
        let some = try context.fetch(
            FetchDescriptor<Trip>(predicate: #Predicate { $0.name == "T3" || $0.name == "T17" || $0.name == "T39" }))
        #expect(some.count == 3)
        #expect(context.registry(for: table).count == 3)

        let all = try context.fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)]))
        #expect(all.count == 40)
        #expect(context.registry(for: table).count == 40)
        for trip in some {
            let matches = all.filter { $0.name == trip.name }
            #expect(matches.count == 1)
            #expect(matches.first === trip, "the row's registered object, not a second one")
        }
        let again = try context.fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)]))
        #expect(zip(all, again).allSatisfy { $0 === $1 }, "every new object was registered")
        #expect(all.allSatisfy { $0.modelContext === context && !$0.persistentModelID.isTemporary })
    }

    // States hold their context through a link that the context hands to a
    // successor no app sees when it goes (see ObjectLifetimeTests): objects
    // that outlive it read no context, and can still be used.
    @Test func objectsThatOutliveTheirContextHaveNone() throws {
        let store = try TestStore()
        let container = try store.containerWithSavedTrips(3)
        var fetched: [Trip] = []
        var inserted: Trip?
        weak var weakContext: ModelContext?
        do {
            let context = ModelContext(container)
            weakContext = context
            fetched = try context.fetch(FetchDescriptor<Trip>())
            fetched[0].destination = "changed"
            let trip = makeTrip("new")
            context.insert(trip)
            inserted = trip
            #expect(fetched[1].modelContext === context)
            #expect(trip.hasChanges)
        }
        #expect(weakContext == nil)
        #expect(fetched.allSatisfy { $0.modelContext == nil })
        #expect(inserted?.modelContext == nil)
        #expect(inserted?.hasChanges == false, "no context holds the insertion any more")
        // Writes and reads still work; there is nobody to tell.
        fetched[1].destination = "later"
        #expect(fetched[1].destination == "later")
        #expect(!fetched[1].persistentModelID.isTemporary)
        fetched.removeAll()
        inserted = nil
    }

    // `@Model`'s `init(_$row:)` keeps the row (`fetchedRow()`); one written
    // by hand may instead attach a state made with the object
    // (`row.attach`), or do neither, and its fetched objects are set up all
    // the same (the latter through `_$modelState`).
    @Test func aHandWrittenInitializerThatAttachesAStateOrNothingStillGivesAFetchedObject() throws {
        try expectFetchedObjectsAreSetUp(HandWrittenNote.self)
        try expectFetchedObjectsAreSetUp(HandWrittenAttachingNote.self)
    }

    private func expectFetchedObjectsAreSetUp<Note: HandWrittenTitled>(_ type: Note.Type) throws {
        let store = try TestStore()
        let container = try store.container([Note.self])
        let writer = ModelContext(container)
        writer.insert(Note(title: "kept"))
        try writer.save()

        let context = ModelContext(container)
        let note = try #require(try context.fetch(FetchDescriptor<Note>()).first)
        #expect(note.title == "kept")
        #expect(note.modelContext === context)
        #expect(!note.persistentModelID.isTemporary)
        #expect(note._$modelState.lifecycle == .persisted)
        #expect(try context.fetch(FetchDescriptor<Note>()).first === note)
    }

    @Test func insertedObjectIsTheRowsObjectAfterSave() throws {
        let store = try TestStore()
        let context = ModelContext(try store.container())
        let trip = makeTrip()
        context.insert(trip)
        try context.save()
        #expect(try context.fetch(FetchDescriptor<Trip>()).first === trip)
    }

    @Test func cleanObjectsAreHeldWeakly() throws {
        let store = try TestStore()
        let container = try store.containerWithSavedTrips(10)

        let context = ModelContext(container)
        weak var weakTrip: Trip?
        do {
            let trips = try context.fetch(FetchDescriptor<Trip>())
            weakTrip = trips.first
            #expect(weakTrip != nil)
        }
        #expect(weakTrip == nil, "the context must not keep clean objects alive")
    }

    @Test func freedObjectsLeaveTheIdentityMap() throws {
        let store = try TestStore()
        let container = try store.containerWithSavedTrips(20)
        let context = ModelContext(container)
        let table = try context.table(for: Trip.self)
        do {
            let trips = try context.fetch(FetchDescriptor<Trip>())
            #expect(context.registry(for: table).count == 20)
            #expect(trips.count == 20)
        }
        #expect(context.registry(for: table).count == 0, "entries go away with their objects")
        let again = try context.fetch(FetchDescriptor<Trip>())
        #expect(again.count == 20)
        #expect(context.registry(for: table).count == 20)
    }

    @Test func entitiesWithoutUniqueAttributesGetTheirKeys() throws {
        let store = try TestStore()
        let container = try store.container()
        let context = ModelContext(container)
        let notes = (1...3).map { Note(text: "n\($0)") }
        notes.forEach(context.insert)
        try context.save()
        #expect(notes.map { $0.persistentModelID.rowID } == [1, 2, 3])
        let other = ModelContext(container)
        #expect(try other.model(for: notes[1].persistentModelID, as: Note.self)?.text == "n2")
    }

    @Test func changedObjectsAreHeldUntilSaved() throws {
        let store = try TestStore()
        let container = try store.container()
        let writer = ModelContext(container)
        writer.insert(makeTrip())
        try writer.save()

        let context = ModelContext(container)
        weak var weakTrip: Trip?
        do {
            let trip = try #require(try context.fetch(FetchDescriptor<Trip>()).first)
            trip.destination = "Spain"
            weakTrip = trip
        }
        #expect(weakTrip != nil, "a changed object must stay alive until it is saved")
        #expect(context.hasChanges)
        try context.save()
        #expect(weakTrip == nil, "after the save the object is clean and held weakly")
        let reloaded = try ModelContext(container).fetch(FetchDescriptor<Trip>())
        #expect(reloaded.first?.destination == "Spain")
    }

    @Test func temporaryAndPermanentIdentifiers() throws {
        let store = try TestStore()
        let container = try store.container()
        let context = ModelContext(container)
        let trip = makeTrip()
        let detachedID = trip.persistentModelID
        #expect(detachedID.isTemporary)
        context.insert(trip)
        let temporary = trip.persistentModelID
        #expect(temporary == detachedID)
        #expect(context.registeredModel(for: temporary) as Trip? === trip)
        try context.save()

        let permanent = trip.persistentModelID
        #expect(!permanent.isTemporary)
        #expect(permanent != temporary)
        #expect(permanent.entityName == "Trip")
        #expect(permanent.rowID == 1)
        #expect(permanent.description == "Trip:1")
        #expect(context.model(for: temporary) as? Trip === trip)
        #expect(context.model(for: permanent) as? Trip === trip)

        // Stable once saved: a later save does not change it.
        trip.destination = "Elsewhere"
        try context.save()
        #expect(trip.persistentModelID == permanent)

        // Another context resolves the permanent identifier to its own object.
        let other = ModelContext(container)
        let found = try #require(try other.model(for: permanent, as: Trip.self))
        #expect(found.name == "Lisbon")
        #expect(other.registeredModel(for: permanent) as Trip? === found)
    }

    @Test func identifiersAreCodableHashableAndSendable() throws {
        let store = try TestStore()
        let context = ModelContext(try store.container())
        let trip = makeTrip()
        context.insert(trip)
        try context.save()
        let identifier = trip.persistentModelID
        let data = try JSONEncoder().encode(identifier)
        let decoded = try JSONDecoder().decode(PersistentIdentifier.self, from: data)
        #expect(decoded == identifier)
        #expect(Set([identifier, decoded]).count == 1)
        let sendable: any Sendable = identifier
        #expect(sendable is PersistentIdentifier)
        #expect(context.model(for: decoded) as? Trip === trip)
    }

    @Test func identifiersAreNotReusedAfterDelete() throws {
        let store = try TestStore()
        let context = ModelContext(try store.container())
        let first = makeTrip("A")
        context.insert(first)
        try context.save()
        let firstID = first.persistentModelID
        context.delete(first)
        try context.save()
        let second = makeTrip("B")
        context.insert(second)
        try context.save()
        #expect(second.persistentModelID != firstID)
        #expect(context.model(for: firstID) == nil)
    }

    @Test func identifierOfAnotherStoreDoesNotResolve() throws {
        let firstStore = try TestStore()
        let first = ModelContext(try firstStore.container())
        let secondStore = try TestStore()
        let second = ModelContext(try secondStore.container())
        let trip = makeTrip()
        first.insert(trip)
        try first.save()
        second.insert(makeTrip())
        try second.save()
        #expect(second.model(for: trip.persistentModelID) == nil)
    }

    @Test func modelsAreHashableByIdentityAndIdentifiable() throws {
        let store = try TestStore()
        let context = ModelContext(try store.container())
        let a = makeTrip("A")
        let b = makeTrip("B")
        context.insert(a)
        context.insert(b)
        #expect(Set([a, b, a]).count == 2)
        #expect(a == a)
        #expect(a != b)
        #expect(a.id == a.persistentModelID)
        // A model may declare its own `id`; Identifiable then uses it.
        let account = Account(secret: "s")
        let id: UUID = account.id
        #expect(id == account.id)
    }

    /// The identity map holds its objects without weak references; while an
    /// object is being freed, it must still read as gone, as a weak
    /// reference would: a fetch from the object's own deinit gets a new
    /// object for the row, which then stays the row's object.
    @Test func anObjectBeingFreedIsNotHandedOut() throws {
        let store = try TestStore()
        let container = try store.container([Mortal.self])
        let writer = ModelContext(container)
        writer.insert(Mortal(name: "a"))
        try writer.save()

        let context = ModelContext(container)
        var fetchedWhileFreeing: [Mortal] = []
        var dying: ObjectIdentifier?
        do {
            let mortal = try #require(try context.fetch(FetchDescriptor<Mortal>()).first)
            dying = ObjectIdentifier(mortal)
            mortal.onDeinit = { [unowned context] in
                fetchedWhileFreeing = (try? context.fetch(FetchDescriptor<Mortal>())) ?? []
            }
        }
        let reborn = try #require(fetchedWhileFreeing.first)
        #expect(ObjectIdentifier(reborn) != dying)
        #expect(reborn.name == "a")
        #expect(try context.fetch(FetchDescriptor<Mortal>()).first === reborn)
    }
}

/// A model that runs code while it is being freed.
@Model final class Mortal {
    var name: String
    @Transient var onDeinit: (() -> Void)? = nil

    init(name: String) {
        self.name = name
    }

    deinit {
        onDeinit?()
    }
}

/// A model conformed by hand with a title, made by `init(title:)`.
protocol HandWrittenTitled: PersistentModel {
    var title: String { get }
    init(title: String)
}

/// A model conformed by hand, as `@Model` would, except that it makes its
/// state with the object and its `init(_$row:)` neither keeps the row nor
/// attaches the state.
final class HandWrittenNote: HandWrittenTitled {
    let _$modelState = ModelState()
    private(set) var title: String

    init(title: String) {
        self.title = title
    }

    required init(_$row row: PersistentRow) throws {
        title = try row.value(at: 0, as: String.self)
    }

    func _$bindValue(_ ordinal: Int, to statement: Statement, at index: Int32) throws {
        try statement.bindValue(title, as: String.self, at: index)
    }

    static var _$persistentProperties: [PropertyMetadata] {
        [.attribute(name: "title", keyPath: \HandWrittenNote.title, type: String.self, ordinal: 0, options: [], originalName: nil)]
    }
}

/// `HandWrittenNote`, but its `init(_$row:)` attaches the state it made.
final class HandWrittenAttachingNote: HandWrittenTitled {
    let _$modelState = ModelState()
    private(set) var title: String

    init(title: String) {
        self.title = title
    }

    required init(_$row row: PersistentRow) throws {
        title = try row.value(at: 0, as: String.self)
        row.attach(_$modelState)
    }

    func _$bindValue(_ ordinal: Int, to statement: Statement, at index: Int32) throws {
        try statement.bindValue(title, as: String.self, at: index)
    }

    static var _$persistentProperties: [PropertyMetadata] {
        [
            .attribute(
                name: "title", keyPath: \HandWrittenAttachingNote.title, type: String.self, ordinal: 0, options: [],
                originalName: nil)
        ]
    }
}
