import Foundation
import Observation
import Testing
@testable import ModelStore

@Suite("Merging saves between contexts", .timeLimit(.minutes(10)))
struct ContextMergeTests {
    /// A container with one shelf of two books, saved.
    private func seeded(_ kind: StoreKind = .file) throws -> (ModelContainer, shelf: PersistentIdentifier, books: [PersistentIdentifier]) {
        let container = try mergeContainer(TestStore(kind))
        let context = ModelContext(container)
        let shelf = MergeShelf(name: "Fiction")
        let emma = MergeBook(title: "Emma", pages: 400, shelf: shelf)
        let odes = MergeBook(title: "Odes", pages: 80, shelf: shelf)
        context.insert(shelf)
        try context.save()
        return (container, shelf.persistentModelID, [emma.persistentModelID, odes.persistentModelID])
    }

    @Test("Another context's save reaches this context's objects at its next fetch", arguments: StoreKind.allCases)
    func valuesMerge(kind: StoreKind) throws {
        let (container, _, books) = try seeded(kind)
        let reader = ModelContext(container)
        let writer = ModelContext(container)
        let book = try #require(reader.model(for: books[0]) as? MergeBook)
        #expect(book.title == "Emma")

        let written = try #require(writer.model(for: books[0]) as? MergeBook)
        written.title = "Emma (annotated)"
        try writer.save()

        #expect(book.title == "Emma", "nothing changes in the middle of the app's code")
        let fetched = try reader.fetch(FetchDescriptor<MergeBook>(predicate: #Predicate { $0.pages > 100 }))
        #expect(fetched.count == 1 && fetched[0] === book, "one row, one object")
        #expect(book.title == "Emma (annotated)")
        #expect(!reader.hasChanges, "merged values are not changes")
    }

    @Test("processPendingChanges() merges too")
    func processPendingChangesMerges() throws {
        let (container, _, books) = try seeded()
        let reader = ModelContext(container)
        let writer = ModelContext(container)
        let book = try #require(reader.model(for: books[1]) as? MergeBook)
        try #require(writer.model(for: books[1]) as? MergeBook).pages = 96
        try writer.save()
        reader.processPendingChanges()
        #expect(book.pages == 96)
    }

    @Test("Unsaved changes are kept, with the committed value this context read (for conflicts); rollback returns to the new stored state")
    func unsavedChangesKept() throws {
        let (container, _, books) = try seeded()
        let reader = ModelContext(container)
        let writer = ModelContext(container)
        let book = try #require(reader.model(for: books[0]) as? MergeBook)
        book.pages = 999

        let written = try #require(writer.model(for: books[0]) as? MergeBook)
        written.pages = 420
        written.title = "Emma, 2nd ed."
        try writer.save()

        reader.processPendingChanges()
        #expect(book.title == "Emma, 2nd ed.", "an unchanged property takes the stored value")
        #expect(book.pages == 999, "a changed one keeps the unsaved value")
        #expect(reader.changedPropertyNames(of: book) == ["pages"])
        #expect(reader.committedValue(of: book, \.pages) == 400, "what this context read: a save sees the conflict")
        reader.rollback()
        #expect(book.pages == 420)
        #expect(book.title == "Emma, 2nd ed.")
    }

    @Test("Deleted objects are marked deleted, gone from fetches and from loaded relationships", arguments: StoreKind.allCases)
    func deletesMerge(kind: StoreKind) throws {
        let (container, shelfID, books) = try seeded(kind)
        let reader = ModelContext(container)
        let writer = ModelContext(container)
        let shelf = try #require(reader.model(for: shelfID) as? MergeShelf)
        #expect(shelf.books.count == 2)
        let odes = try #require(reader.model(for: books[1]) as? MergeBook)

        writer.delete(try #require(writer.model(for: books[1]) as? MergeBook))
        try writer.save()

        let remaining = try reader.fetch(FetchDescriptor<MergeBook>())
        #expect(remaining.map(\.title) == ["Emma"])
        #expect(odes.isDeleted)
        #expect(odes.modelContext == nil)
        #expect(shelf.books.map(\.title) == ["Emma"])
        #expect(reader.model(for: books[1]) == nil)
    }

    @Test("Inserted rows appear in fetches, and loaded to-many relationships take their new members", arguments: StoreKind.allCases)
    func insertsAndToManyMembershipMerge(kind: StoreKind) throws {
        let (container, shelfID, books) = try seeded(kind)
        let reader = ModelContext(container)
        let writer = ModelContext(container)
        let shelf = try #require(reader.model(for: shelfID) as? MergeShelf)
        #expect(Set(shelf.books.map(\.title)) == ["Emma", "Odes"])
        let emma = try #require(reader.model(for: books[0]) as? MergeBook)

        // One new book on the shelf; one book moved to a new shelf.
        let writerShelf = try #require(writer.model(for: shelfID) as? MergeShelf)
        writerShelf.books.append(MergeBook(title: "Persuasion", pages: 300))
        let other = MergeShelf(name: "Classics")
        writer.insert(other)
        try #require(writer.model(for: books[0]) as? MergeBook).shelf = other
        try writer.save()

        #expect(try reader.fetchCount(FetchDescriptor<MergeBook>()) == 3)
        #expect(Set(shelf.books.map(\.title)) == ["Odes", "Persuasion"])
        #expect(emma.shelf?.name == "Classics")
        #expect(emma.shelf?.books.map(\.title) == ["Emma"])
        #expect(!reader.hasChanges)
    }

    @Test("Observers hear of merged values, through Observation and objectWillChange")
    func observersAreTold() throws {
        let (container, _, books) = try seeded()
        let reader = ModelContext(container)
        let writer = ModelContext(container)
        let book = try #require(reader.model(for: books[0]) as? MergeBook)

        let observed = Collected<String>()
        withObservationTracking {
            _ = book.title
        } onChange: {
            observed.append("title")
        }
        var willChange = 0
        let subscription = book.objectWillChange.sink { _ in willChange += 1 }

        try #require(writer.model(for: books[0]) as? MergeBook).title = "Emma!"
        try writer.save()
        #expect(observed.elements.isEmpty)
        reader.processPendingChanges()
        #expect(observed.elements == ["title"])
        #expect(willChange == 1, "one property changed")
        _ = subscription
    }

    @Test("A context created after a save, or that never read, has nothing to merge; contexts let go of are not kept")
    func contextsComeAndGo() throws {
        let (container, _, books) = try seeded()
        weak var gone: ModelContext?
        do {
            let context = ModelContext(container)
            _ = try context.fetch(FetchDescriptor<MergeBook>())
            gone = context
        }
        #expect(gone == nil, "the container holds its contexts weakly")
        let writer = ModelContext(container)
        try #require(writer.model(for: books[0]) as? MergeBook).pages = 1
        try writer.save()
        let late = ModelContext(container)
        #expect(try late.fetch(FetchDescriptor<MergeBook>(predicate: #Predicate { $0.pages == 1 })).count == 1)
    }

    @Test("erase() marks every object of every context deleted")
    func eraseInvalidatesAll() throws {
        let (container, _, books) = try seeded()
        let reader = ModelContext(container)
        let book = try #require(reader.model(for: books[0]) as? MergeBook)
        try container.erase()
        #expect(try reader.fetch(FetchDescriptor<MergeBook>()).isEmpty)
        #expect(book.isDeleted)
    }
}

/// Merges and conflict detection together: a merged object expects the
/// stored row's version at its next save, unless it had unsaved changes
/// (then the save finds the conflict and the merge policy decides).
@Suite("Merges and row versions")
struct MergeVersionTests {
    /// A file store holding one saved book.
    private func savedBook() throws -> (ModelContainer, MergeBook) {
        let container = try mergeContainer(TestStore(.file))
        let setup = ModelContext(container)
        let book = MergeBook(title: "Emma", pages: 400, shelf: nil)
        setup.insert(book)
        try setup.save()
        return (container, book)
    }

    @Test("An object refreshed by a merge saves later changes without a conflict")
    func mergedObjectSavesCleanly() throws {
        let (container, book) = try savedBook()
        let reader = ModelContext(container)
        let writer = ModelContext(container)
        let read = try #require(reader.model(for: book.persistentModelID) as? MergeBook)
        try #require(writer.model(for: book.persistentModelID) as? MergeBook).title = "Emma (annotated)"
        try writer.save()
        _ = try reader.fetch(FetchDescriptor<MergeBook>())
        read.pages = 420
        try reader.save()
        let check = try #require(ModelContext(container).model(for: book.persistentModelID) as? MergeBook)
        #expect(check.title == "Emma (annotated)" && check.pages == 420)
    }

    /// Also: the context going away with those unsaved changes (its rollback
    /// in deinit must not read rows through the dying context).
    @Test("An object with unsaved changes when another save merges in conflicts at its save under .error")
    func unsavedChangesStillConflict() throws {
        let (container, book) = try savedBook()
        let reader = ModelContext(container)
        let writer = ModelContext(container)
        let read = try #require(reader.model(for: book.persistentModelID) as? MergeBook)
        read.pages = 999
        try #require(writer.model(for: book.persistentModelID) as? MergeBook).pages = 420
        try writer.save()
        _ = try reader.fetch(FetchDescriptor<MergeBook>())
        #expect {
            try reader.save()
        } throws: { error in
            guard case ModelStoreError.saveConflicts = error else { return false }
            return true
        }
    }
}
