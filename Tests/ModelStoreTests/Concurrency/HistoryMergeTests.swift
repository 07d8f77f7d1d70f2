import Foundation
import Testing
@testable import ModelStore
@testable import ModelStoreDynamic

/// Other processes' commits merged through the change history: only the
/// rows they changed are read again. Two containers on one file stand for
/// two processes (see CrossProcessMergeTests.swift); the reliability tests
/// run the other side in a child process.
@Suite("Merging other processes' commits through the history", .timeLimit(.minutes(1)))
struct HistoryMergeTests {
    /// A store of 40 books, held by a context that has read them all.
    private struct Holder {
        let store: TestStore
        let container: ModelContainer
        let context: ModelContext
        let books: [MergeBook]

        init() throws {
            store = try TestStore()
            container = try mergeContainer(store)
            context = ModelContext(container)
            for number in 0..<40 { context.insert(MergeBook(title: "B\(number)", pages: number)) }
            try context.save()
            books = try context.fetch(FetchDescriptor<MergeBook>(sortBy: [SortDescriptor(\.pages)]))
        }

        /// A context of a container of its own: another process.
        func otherProcess(author: String? = nil) throws -> ModelContext {
            let context = ModelContext(try mergeContainer(at: store.url))
            context.author = author
            return context
        }
    }

    private func book(_ pages: Int, in context: ModelContext) throws -> MergeBook {
        try #require(try context.fetch(FetchDescriptor<MergeBook>(predicate: #Predicate { $0.pages == pages })).first)
    }

    @Test("Another process's save is merged row by row: only the changed objects are read again")
    func narrowMergeReadsChangedRowsOnly() throws {
        let holder = try Holder()
        let other = try holder.otherProcess(author: "importer")
        try book(3, in: other).title = "Three"
        try book(7, in: other).pages = 700
        other.delete(try book(9, in: other))
        try other.save()
        let seen = Collected<StoreChanges>()
        let observation = holder.container.observeChanges { seen.append($0) }

        let before = holder.context.merging
        #expect(try holder.context.fetchCount(FetchDescriptor<MergeBook>()) == 39)
        #expect(holder.context.merging.fullRefreshes == before.fullRefreshes, "no reload of every object")
        #expect(holder.context.merging.rowsReread - before.rowsReread == 2, "the two updated rows, of the 40 held")
        #expect(holder.books[3].title == "Three")
        #expect(holder.books[7].pages == 700)
        #expect(holder.books[9].isDeleted)
        let changes = try #require(seen.elements.first)
        #expect(seen.elements.count == 1)
        #expect(!changes.invalidatedAll)
        #expect(changes.author == "importer")
        #expect(Set(changes.updatedIdentifiers) == [holder.books[3].persistentModelID, holder.books[7].persistentModelID])
        #expect(changes.updatedPropertyNames[holder.books[3].persistentModelID] == ["title"])
        #expect(changes.deletedIdentifiers == [holder.books[9].persistentModelID])
        observation.cancel()
    }

    @Test("Several saves of another process are merged together, at a save of this context too")
    func severalSavesMergedAtSave() throws {
        let holder = try Holder()
        let other = try holder.otherProcess()
        for step in 0..<3 {
            try book(step, in: other).title = "Step \(step)"
            try other.save()
        }
        other.insert(MergeBook(title: "New", pages: 1000))
        try other.save()
        holder.books[20].title = "Mine"
        try holder.context.save()
        #expect(holder.context.merging.fullRefreshes == 0)
        #expect(holder.books[0...2].map(\.title) == ["Step 0", "Step 1", "Step 2"])
        #expect(try holder.context.fetchCount(FetchDescriptor<MergeBook>()) == 41)
        #expect(try book(20, in: other).title == "Mine")
    }

    @Test("store-tool's edits (the dynamic layer) record history and are merged narrowly")
    func dynamicStoreEditsMergedNarrowly() throws {
        let holder = try Holder()
        let dynamic = try DynamicStore(path: holder.store.url.path(percentEncoded: false), readOnly: false)
        let id = try #require(try dynamic.objectIDs("MergeBook", filter: "pages == 5").first)
        _ = try dynamic.update(id, [DynamicEdit(property: "title", operation: .set, value: "Five")])
        let seen = Collected<StoreChanges>()
        let observation = holder.container.observeChanges { seen.append($0) }
        holder.context.processPendingChanges()
        #expect(holder.books[5].title == "Five")
        #expect(holder.context.merging.fullRefreshes == 0)
        #expect(holder.context.merging.rowsReread == 1)
        #expect(seen.elements.map(\.author) == ["store-tool"])
        observation.cancel()
    }

    @Test("A commit that records no history (erase) falls back to reading every object again")
    func commitWithoutHistoryRefreshesAll() throws {
        let holder = try Holder()
        try mergeContainer(at: holder.store.url).erase()
        let seen = Collected<StoreChanges>()
        let observation = holder.container.observeChanges { seen.append($0) }
        #expect(try holder.context.fetchCount(FetchDescriptor<MergeBook>()) == 0)
        #expect(holder.context.merging.fullRefreshes == 1)
        #expect(holder.books.filter { !$0.isDeleted }.isEmpty)
        #expect(seen.elements.map(\.invalidatedAll) == [true])
        observation.cancel()
    }

    @Test("Another process erases, then saves, before this context looks: the erase is not missed")
    func eraseFollowedBySave() throws {
        let holder = try Holder()
        let before = try #require(try holder.context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).last).token
        let other = try holder.otherProcess()
        try other.container.erase()
        other.insert(MergeBook(title: "After", pages: 1))
        try other.save()
        #expect(try holder.context.fetch(FetchDescriptor<MergeBook>()).map(\.title) == ["After"])
        #expect(holder.context.merging.fullRefreshes == 1)
        #expect(holder.books.filter { !$0.isDeleted }.isEmpty)
        // A reader of the history learns of the erase too.
        #expect(throws: SwiftDataError.historyTokenExpired) {
            try holder.context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.token > before }))
        }
    }

    @Test("History pruned past this container's position: the merge falls back to a full refresh, then narrows again")
    func prunedHistoryRefreshesAll() throws {
        let holder = try Holder()
        let other = try holder.otherProcess()
        try book(1, in: other).title = "One"
        try other.save()
        try other.deleteHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        try book(2, in: other).title = "Two"
        try other.save()
        holder.context.processPendingChanges()
        #expect(holder.context.merging.fullRefreshes == 1)
        #expect(holder.books[1].title == "One", "the pruned transaction's change is read by the refresh")
        #expect(holder.books[2].title == "Two")

        let reread = holder.context.merging.rowsReread
        try book(4, in: other).title = "Four"
        try other.save()
        holder.context.processPendingChanges()
        #expect(holder.context.merging.fullRefreshes == 1, "the position is known again")
        #expect(holder.context.merging.rowsReread - reread == 1)
        #expect(holder.books[4].title == "Four")
    }

    @Test("This process's own pruning is not taken for another process's commit")
    func ownPruningIsNotForeign() throws {
        let holder = try Holder()
        let second = ModelContext(holder.container)
        _ = try second.fetch(FetchDescriptor<MergeBook>())
        try second.deleteHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        holder.context.processPendingChanges()
        _ = try second.fetchCount(FetchDescriptor<MergeBook>())
        #expect(holder.context.merging.fullRefreshes == 0)
        #expect(second.merging.fullRefreshes == 0)
        // And another process's save after it is still merged narrowly.
        let other = try holder.otherProcess()
        try book(6, in: other).title = "Six"
        try other.save()
        holder.context.processPendingChanges()
        #expect(holder.context.merging.fullRefreshes == 0)
        #expect(holder.books[6].title == "Six")
    }

    @Test("A foreign commit noticed at a sibling context's save reaches every context of the container narrowly")
    func foreignCommitNoticedBySave() throws {
        let holder = try Holder()
        let sibling = ModelContext(holder.container)
        let siblingBook = try book(10, in: sibling)
        let other = try holder.otherProcess()
        try book(8, in: other).title = "Eight"
        try other.save()
        siblingBook.pages = 1010
        try sibling.save()
        #expect(try book(8, in: sibling).title == "Eight")
        holder.context.processPendingChanges()
        #expect(holder.books[8].title == "Eight")
        #expect(holder.books[10].pages == 1010)
        #expect(holder.context.merging.fullRefreshes == 0)
        #expect(holder.context.merging.rowsReread == 2)
        #expect(sibling.merging.fullRefreshes == 0)
    }
}
