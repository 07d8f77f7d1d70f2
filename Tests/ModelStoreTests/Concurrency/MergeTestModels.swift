import Foundation
import ModelStore

// Models of the tests of contexts working together (merges, notifications).

@Model final class MergeShelf {
    var name: String
    @Relationship(deleteRule: .cascade, inverse: \MergeBook.shelf) var books: [MergeBook] = []

    init(name: String) {
        self.name = name
    }
}

@Model final class MergeBook {
    var title: String
    var pages: Int
    var shelf: MergeShelf?

    init(title: String, pages: Int, shelf: MergeShelf? = nil) {
        self.title = title
        self.pages = pages
        self.shelf = shelf
    }
}

@Model final class MergeCounter {
    var worker: Int
    var step: Int

    init(worker: Int, step: Int) {
        self.worker = worker
        self.step = step
    }
}

/// A container of the merge tests' models.
func mergeContainer(_ store: TestStore) throws -> ModelContainer {
    try store.container([MergeShelf.self, MergeBook.self, MergeCounter.self])
}

/// A second container on the same file: it stands for another process
/// (it has its own connections and no link to the first container).
func mergeContainer(at url: URL) throws -> ModelContainer {
    try ModelContainer(
        for: Schema([MergeShelf.self, MergeBook.self, MergeCounter.self]), configurations: [ModelConfiguration(url: url)])
}

/// Collects what a notification or observer delivers, from any thread.
final class Collected<Element: Sendable>: @unchecked Sendable {
    // Guarded by `lock`; @unchecked Sendable because of it.
    private let lock = NSLock()
    private var storage: [Element] = []

    func append(_ element: Element) {
        lock.withLock { storage.append(element) }
    }

    var elements: [Element] { lock.withLock { storage } }
}
