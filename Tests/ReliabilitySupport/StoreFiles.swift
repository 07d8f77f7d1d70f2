import Foundation

/// Files of a store: copying one state aside and back, and checking that no
/// connection to it is left open.
public struct StoreFiles: Sendable {
    public let url: URL
    public var path: String { url.path(percentEncoded: false) }

    public init(url: URL) { self.url = url }
    private var companions: [String] { [path, path + "-wal", path + "-shm", path + "-journal"] }

    /// Replaces this store's content with `other`'s (its WAL too, if it
    /// has one). No connection to either may be open. The files are
    /// rewritten in place rather than replaced: the sweeps restore a store
    /// thousands of times, and creating files is what costs most then. A
    /// stale -shm file may stay: the first connection to open the store
    /// rebuilds it.
    /// - Throws: `WorkerError` when a file cannot be read or written.
    public func restore(from other: StoreFiles) throws {
        for suffix in ["", "-wal", "-journal"] {
            let source = other.path + suffix
            let target = path + suffix
            guard FileManager.default.fileExists(atPath: source) else {
                if FileManager.default.fileExists(atPath: target) { try FileManager.default.removeItem(atPath: target) }
                continue
            }
            guard let bytes = FileManager.default.contents(atPath: source) else { throw WorkerError("cannot read \(source)") }
            let descriptor = open(target, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            guard descriptor >= 0 else { throw WorkerError("cannot write \(target): errno \(errno)") }
            defer { close(descriptor) }
            let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            guard written == bytes.count else { throw WorkerError("cannot write \(target): errno \(errno)") }
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
