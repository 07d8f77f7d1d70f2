import Synchronization

/// The values a `ModelReferenceValues` iterator has not returned yet, and
/// the iterator's wait for the next one.
///
/// Confined to the isolation domain of the reference's model: the observer
/// appends in the writing domain, the iterator pops in the domain it was
/// asked to run in (`next(isolation:)`), which is the same one, since
/// neither the iterator nor the model may leave it. Only the waiting
/// continuation crosses threads (a task's cancellation handler runs
/// anywhere), so it lives in a `WaiterSlot`.
final class ReferenceValueBuffer<Value> {
    private var values: [Value] = []
    /// Where `values` starts: popping moves it instead of shifting the array.
    private var head = 0
    private let waiter = WaiterSlot()

    func append(_ value: Value) {
        values.append(value)
        waiter.resume()
    }

    func popFirst() -> Value? {
        guard head < values.count else { return nil }
        let value = values[head]
        head += 1
        if head == values.count {
            values.removeAll(keepingCapacity: true)
            head = 0
        }
        return value
    }

    /// Returns after the next `append`, or once the task is cancelled.
    func waitForValue(isolation actor: isolated (any Actor)?) async {
        let waiter = self.waiter
        await withTaskCancellationHandler {
            await withCheckedContinuation(isolation: actor) { continuation in
                waiter.wait(continuation)
            }
        } onCancel: {
            waiter.cancel()
        }
    }
}

/// The continuation of a waiting iterator, resumed once by whichever comes
/// first: a value or the task's cancellation.
///
/// Invariant: after `cancel()`, a continuation is resumed as soon as it
/// waits, so that a cancellation that comes before the wait does not leave
/// the task waiting for ever.
final class WaiterSlot: Sendable {
    private struct State {
        var continuation: CheckedContinuation<Void, Never>?
        var isCancelled = false
    }

    private let state = Locked(State())

    func wait(_ continuation: CheckedContinuation<Void, Never>) {
        let resumeNow = state.withLock { state in
            if state.isCancelled { return true }
            state.continuation = continuation
            return false
        }
        if resumeNow { continuation.resume() }
    }

    func resume() {
        state.withLock { $0.continuation.take() }?.resume()
    }

    func cancel() {
        state.withLock { state in
            state.isCancelled = true
            return state.continuation.take()
        }?.resume()
    }
}

/// Raised by Observation's `onChange` when a change concerns what a tracked
/// read went through; lowered by the observer that reads again. Atomic,
/// because `onChange` must be `Sendable` (it runs in the writing domain,
/// which is the observer's).
final class ChangeSignal: Sendable {
    private let raised = Atomic<Bool>(false)

    func raise() {
        raised.store(true, ordering: .relaxed)
    }

    /// Lowers the signal; returns whether it was raised.
    func lower() -> Bool {
        raised.exchange(false, ordering: .relaxed)
    }
}
