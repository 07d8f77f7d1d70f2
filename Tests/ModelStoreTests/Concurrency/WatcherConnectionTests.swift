import Foundation
import Testing
@testable import ModelStore

/// The connection that opened a file store stays open for the container's
/// first context, and the watcher (ChangeCoordinator.swift) is opened
/// without parsing the schema, so that opening a container and reading
/// parses the schema once. (The process's file descriptors cannot show
/// it: SQLite keeps a closed connection's descriptor open while another
/// connection of the process holds a lock on the file, and reuses it.)
@Suite("The opening connection and the watcher")
struct WatcherConnectionTests {
    @Test("A container's first context gets its opening connection; the watcher parses no schema, and other processes' commits are still noticed through it")
    func openingConnectionWatches() throws {
        let store = try TestStore()
        let seed = ModelContext(try mergeContainer(store))
        seed.insert(MergeBook(title: "Emma", pages: 400))
        try seed.save()

        let container = try mergeContainer(at: store.url)
        #expect(container.store.hasSpareConnection, "the opening connection waits for the first context")
        #expect(!container.store.changeCoordinator.hasWatcher)
        let context = ModelContext(container)
        let book = try #require(try context.fetch(FetchDescriptor<MergeBook>()).first)
        #expect(!container.store.hasSpareConnection, "the first context took the opening connection")
        #expect(container.store.changeCoordinator.hasWatcher)
        #expect(!container.store.changeCoordinator.watcherHasParsedSchema)

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
