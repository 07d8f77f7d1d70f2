import Foundation
import Testing
@testable import ModelStore

/// The connection that opened a file store stays open as the container's
/// watcher (ChangeCoordinator.swift), so that the first context opens one
/// connection, not two. (The process's file descriptors cannot show it:
/// SQLite keeps a closed connection's descriptor open while another
/// connection of the process holds a lock on the file, and reuses it.)
@Suite("The opening connection as the watcher")
struct WatcherConnectionTests {
    @Test("A container keeps its opening connection as the watcher; other processes' commits are still noticed through it")
    func openingConnectionWatches() throws {
        let store = try TestStore()
        let seed = ModelContext(try mergeContainer(store))
        seed.insert(MergeBook(title: "Emma", pages: 400))
        try seed.save()

        let container = try mergeContainer(at: store.url)
        #expect(container.store.changeCoordinator.hasWatcher, "the bootstrap connection is the watcher before any context")
        let context = ModelContext(container)
        let book = try #require(try context.fetch(FetchDescriptor<MergeBook>()).first)

        // The adopted watcher tells another container's commit from this one's.
        let theirs = try #require(try seed.fetch(FetchDescriptor<MergeBook>()).first)
        theirs.pages = 401
        try seed.save()
        _ = try context.fetch(FetchDescriptor<MergeBook>())
        #expect(book.pages == 401)
        book.title = "Emma!"
        try context.save()
        seed.processPendingChanges()
        #expect(theirs.title == "Emma!")
        book.pages = 402
        try context.save()
        #expect(try seed.fetch(FetchDescriptor<MergeBook>()).first?.pages == 402)
    }

    @Test("An in-memory store has no watcher: its connections share one cache")
    func inMemoryStoreIsNotWatched() throws {
        let container = try ModelContainer(
            for: MergeBook.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        #expect(!container.store.changeCoordinator.hasWatcher)
    }
}
