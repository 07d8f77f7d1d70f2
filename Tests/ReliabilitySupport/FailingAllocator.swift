import CSQLite

/// SQLite's default memory allocator, wrapped so that the N-th allocation
/// (malloc or realloc) after arming fails, once or from then on. Only
/// SQLite's allocations go through it: the Swift side's own allocations
/// cannot be made to fail (Swift stops the program when malloc fails).
///
/// Test-only. `install()` must run before anything in the process uses
/// SQLite (sqlite3_config refuses to change the allocator after
/// sqlite3_initialize). The counters are plain static variables because the
/// worker uses SQLite from one thread.
public enum FailingAllocator {
    private nonisolated(unsafe) static var original = sqlite3_mem_methods()
    private nonisolated(unsafe) static var position: Int?
    private nonisolated(unsafe) static var persistent = false
    private nonisolated(unsafe) static var seen = 0
    private nonisolated(unsafe) static var failed = 0

    /// Wraps SQLite's allocator.
    /// - Throws: `WorkerError` when SQLite was already initialized.
    public static func install() throws {
        guard modelstore_config_get_malloc(&original) == SQLITE_OK else {
            throw WorkerError("SQLITE_CONFIG_GETMALLOC failed: SQLite is already initialized")
        }
        var methods = original
        methods.xMalloc = { size in
            FailingAllocator.fails() ? nil : FailingAllocator.original.xMalloc(size)
        }
        methods.xRealloc = { pointer, size in
            // A failed realloc leaves the block as it was, as realloc does.
            FailingAllocator.fails() ? nil : FailingAllocator.original.xRealloc(pointer, size)
        }
        guard modelstore_config_malloc(&methods) == SQLITE_OK else {
            throw WorkerError("SQLITE_CONFIG_MALLOC failed: SQLite is already initialized")
        }
    }

    /// Fails allocation number `position` (1-based, counted from now), or
    /// every allocation from it on when `persistent`.
    public static func arm(failing position: Int, persistent: Bool) {
        self.position = position
        self.persistent = persistent
        seen = 0
        failed = 0
    }

    /// Lets every allocation succeed again.
    /// - Returns: how many allocations failed since `arm`.
    @discardableResult
    public static func disarm() -> Int {
        position = nil
        return failed
    }

    private static func fails() -> Bool {
        guard let position else { return false }
        seen += 1
        guard seen == position || (persistent && seen > position) else { return false }
        failed += 1
        return true
    }
}
