import Foundation

/// A value behind a lock: every lock in the library is one of these.
///
/// An `NSLock` (a pthread mutex) rather than `Synchronization.Mutex`: the
/// Thread Sanitizer, which CI runs over the concurrent paths, knows pthread
/// mutexes, and does not see `Mutex`'s futex as a lock (it reported every
/// access under one as a race). `@unchecked Sendable`: `value` is only touched
/// inside `withLock`, which holds `lock`.
final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
