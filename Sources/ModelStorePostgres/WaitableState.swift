import Foundation

/// A value guarded by a lock, with a condition to wait on until the value
/// is ready: what the change listener (its counter, which tests wait for)
/// and the connection pool (its idle executors, which a checkout waits for)
/// share.
///
/// Every `withLock` wakes every waiter when it unlocks, whether or not it
/// changed anything: each waiter checks its own predicate again, so no
/// change can be missed, and a broadcast with nobody waiting costs little.
///
/// `@unchecked Sendable` whatever `Value` is: `value` is read and written
/// only while `condition` is locked, and leaves the lock only through what
/// a body returns. A type that returns non-`Sendable` parts of its value
/// (the pool's executors) says why handing them to another thread is safe.
final class WaitableState<Value>: @unchecked Sendable {
    private let condition = NSCondition()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with the value locked, then wakes every waiter.
    func withLock<T, E: Error>(_ body: (inout Value) throws(E) -> T) throws(E) -> T {
        condition.lock()
        defer {
            condition.broadcast()
            condition.unlock()
        }
        return try body(&value)
    }

    /// Waits, with the lock released while waiting, until `isReady` holds
    /// or `deadline` passes, then runs `body` with the value locked and
    /// whether it became ready (false: the deadline passed first). Wakes
    /// every waiter when it unlocks.
    func withLock<T, E: Error>(
        waitingUntil deadline: ContinuousClock.Instant,
        for isReady: (Value) -> Bool,
        _ body: (inout Value, _ isReady: Bool) throws(E) -> T
    ) throws(E) -> T {
        condition.lock()
        defer {
            condition.broadcast()
            condition.unlock()
        }
        var ready = isReady(value)
        while !ready {
            let remaining = deadline - ContinuousClock.now
            guard remaining > .zero else { break }
            // NSCondition waits until a wall-clock date; the loop checks
            // the monotonic deadline again after each wake-up, so a clock
            // change or a spurious wake-up only costs another turn.
            _ = condition.wait(until: Date(timeIntervalSinceNow: remaining.seconds))
            ready = isReady(value)
        }
        return try body(&value, ready)
    }
}

extension Duration {
    /// The duration in seconds, as `TimeInterval` wants it.
    var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }

    /// The duration in nanoseconds, as SwiftNIO's `TimeAmount` wants it;
    /// `Int64.max` (about 292 years) for a longer one.
    var nanoseconds: Int64 {
        let (whole, overflow) = components.seconds.multipliedReportingOverflow(by: 1_000_000_000)
        guard !overflow else { return components.seconds < 0 ? .min : .max }
        let (total, overflowAgain) = whole.addingReportingOverflow(components.attoseconds / 1_000_000_000)
        return overflowAgain ? (whole < 0 ? .min : .max) : total
    }
}
