import Foundation
import Testing
@testable import ModelStore

/// The connection that opened a file store stays open as the container's
/// watcher (ChangeCoordinator.swift), so that the first context opens one
/// connection, not two. Counted from the process's open file descriptors on
/// the store file (Linux's /proc/self/fd).
@Suite("The opening connection as the watcher")
struct WatcherConnectionTests {
    @Test("A container keeps one connection open; its first context opens one more; other processes' commits are still noticed")
    func openingConnectionWatches() throws {
        let store = try TestStore()
        let seed = ModelContext(try mergeContainer(store))
        seed.insert(MergeBook(title: "Emma", pages: 400))
        try seed.save()

        let path = store.url.path(percentEncoded: false)
        let before = try descriptors(of: path)
        let container = try mergeContainer(at: store.url)
        #expect(try descriptors(of: path) == before + 1, "the bootstrap connection stays open, for the watcher")
        let context = ModelContext(container)
        #expect(try descriptors(of: path) == before + 2, "the first context opens its own connection only")
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
    }

    /// How many of the process's open file descriptors name `path` itself
    /// (not its -wal or -shm file).
    private func descriptors(of path: String) throws -> Int {
        let resolved = URL(filePath: path).resolvingSymlinksInPath().path(percentEncoded: false)
        let folder = "/proc/self/fd"
        return try FileManager.default.contentsOfDirectory(atPath: folder).count { entry in
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "\(folder)/\(entry)")) == resolved
        }
    }
}
