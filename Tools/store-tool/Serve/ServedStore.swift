import ModelStore
import ModelStoreDynamic

/// The store `serve` shows. Each request opens it anew, as one run of a
/// command does, and closes it when done: a `DynamicStore` belongs to one
/// isolation domain, requests run concurrently, and a fresh open also sees
/// what other processes (a migration, another store-tool) did meanwhile.
/// Concurrent writes are serialized by SQLite's lock, as two commands are.
struct ServedStore: Sendable {
    /// The store file.
    let path: String
    /// Opened read-only (`serve --read-only`): no edit forms, every POST refused.
    let isReadOnly: Bool
    /// How long a write waits for another process's lock (`--wait`).
    let busyTimeout: Duration

    /// Runs `body` on the store opened for this request.
    /// - Throws: what opening throws (as the commands report it), and what `body` throws.
    func use<T>(writing: Bool = false, _ body: (DynamicStore) throws -> T) throws -> T {
        let store = try DynamicStore(path: path, readOnly: isReadOnly || !writing, busyTimeout: busyTimeout)
        return try body(store)
    }
}
