import Foundation
import ModelStore

/// A graph store opened the way an app opens it: a container, one context,
/// and every object fetched into it by key. Releasing the session closes
/// its connections.
final class SaveSession {
    let container: ModelContainer
    let context: ModelContext
    private(set) var objects: GraphObjects
    /// The state the context's objects hold (what the store holds once the pending edits are saved).
    private(set) var state: GraphState

    /// Opens the store at `url` (creating it when it does not exist) and fetches every object.
    /// - Throws: what opening the store or fetching throws.
    init(_ url: URL) throws {
        container = try Graph.container(url)
        context = ModelContext(container)
        objects = GraphObjects(try GraphObjects.fetch(context))
        state = GraphState(objects)
    }

    /// Makes `edits` on the context's objects, without saving.
    /// - Throws: `WorkerError` when an edit names an object the context does not hold.
    func apply(_ edits: [GraphEdit]) throws {
        for edit in edits { try objects.apply(edit, in: context) }
        state = state.applying(edits)
    }

    /// Saves the pending edits; after a success, forgets the objects the save deleted.
    /// - Throws: what `ModelContext.save()` throws.
    func save() throws {
        try context.save()
        objects.keep(only: state.keys)
    }
}

/// Files of a store: copying one state aside and back, and checking that no
/// connection to it is left open.
public struct StoreFiles: Sendable {
    public let url: URL
    public var path: String { url.path(percentEncoded: false) }

    public init(url: URL) { self.url = url }
    private var companions: [String] { [path, path + "-wal", path + "-shm", path + "-journal"] }

    /// Replaces this store's files with copies of `other`'s (its WAL too, if it has one).
    /// - Throws: what the file manager throws.
    public func restore(from other: StoreFiles) throws {
        let manager = FileManager.default
        for file in companions where manager.fileExists(atPath: file) { try manager.removeItem(atPath: file) }
        for (source, target) in zip(other.companions, companions) where source.hasSuffix("-shm") == false {
            if manager.fileExists(atPath: source) { try manager.copyItem(atPath: source, toPath: target) }
        }
    }

    /// The number of file descriptors of this process open on the store's
    /// files: zero once every connection to it has closed.
    public func openDescriptors() -> Int {
        let folder = "/proc/self/fd"
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return 0 }
        let names = Set(companions)
        return entries.filter { entry in
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "\(folder)/\(entry)")).map(names.contains) ?? false
        }.count
    }
}
