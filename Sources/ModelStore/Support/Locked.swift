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

/// Values made once per key and kept for the life of the process, such as
/// what the library derives from a model class. A value is made outside the
/// lock (making it may ask the cache for another key); when two threads make
/// one for the same key at once, the first stored is kept and returned to
/// both, so callers must be content with either.
final class KeptValues<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private let values = Locked<[Key: Value]>([:])

    init() {}

    /// The value kept for `key`, made by `make` on first use.
    func value(for key: Key, make: () -> Value) -> Value {
        if let kept = values.withLock({ $0[key] }) { return kept }
        let made = make()
        return values.withLock { values in
            if let kept = values[key] { return kept }
            values[key] = made
            return made
        }
    }
}
