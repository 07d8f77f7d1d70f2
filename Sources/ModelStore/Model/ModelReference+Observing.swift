import Observation

// How a reference observes its value.
//
// Two mechanisms together, because neither says alone what a reference needs
// ("the value at this path has a new value, and here it is"):
// - Observation's `withObservationTracking`, around a read of the value,
//   says which changes concern it: its `onChange` fires (at `willSet`) only
//   for the properties the read went through, whatever the path (a nested
//   key path, an index), without the reference having to know which stored
//   property a key path starts with (Swift does not tell).
// - A `didChange` subscriber of the object's change relay says when a change
//   is done: it runs after the new value is stored, synchronously in the
//   writing domain, so the new value can be read and delivered there.
// So after each change of the object, the observer asks whether the tracked
// read was concerned; if so it reads again (tracking anew: `onChange` fires
// once) and delivers the value, unless it equals the last one delivered
// (when `Value` is `Equatable`: a change of `tags[0]` does not concern an
// observer of `tags[2]`).

extension ModelReference {
    /// Calls `onChange` with the new value after each change of it, until the
    /// returned subscription is cancelled or released.
    ///
    /// `onChange` runs synchronously in the isolation domain that writes the
    /// object, after the new value is stored: within the setter of a write
    /// through the model, a reference, a rollback, a merge or an undo. When
    /// `Value` is `Equatable`, a change that leaves the value equal (another
    /// element of the same array, a write of an equal value) is not
    /// delivered; otherwise every change of the property the reference goes
    /// through is.
    ///
    /// The subscription keeps the object (and what `onChange` captures)
    /// alive until it is cancelled or released. Changes of other objects are
    /// not seen, even when the reference's key path goes through a
    /// relationship into one: see `init(_:_:)`.
    public func observe(_ onChange: @escaping (Value) -> Void) -> ModelChangeSubscription {
        ReferenceObserver(self, deliver: onChange).subscribe()
    }

    /// The new values of the reference, as an `AsyncSequence`: each value
    /// `observe(_:)` would deliver, in order, buffered without limit from the
    /// moment iteration starts.
    ///
    /// Iterate it in the isolation domain that owns the model; neither the
    /// sequence nor its iterator is `Sendable`, so the compiler refuses to
    /// move them elsewhere. The sequence ends (returns nil) when the
    /// iterating task is cancelled; leaving the loop, or releasing the
    /// iterator, stops the observation.
    public var values: ModelReferenceValues<Root, Value> {
        ModelReferenceValues(reference: self)
    }
}

/// The new values of a `ModelReference`; see `ModelReference.values`.
public struct ModelReferenceValues<Root: PersistentModel, Value>: AsyncSequence {
    /// A value of the reference after a change.
    public typealias Element = Value
    /// The sequence never throws.
    public typealias Failure = Never

    let reference: ModelReference<Root, Value>

    /// Starts observing the reference: values are buffered from now on.
    public func makeAsyncIterator() -> Iterator {
        Iterator(reference)
    }

    /// Iterates the new values of a reference, in the isolation domain that
    /// owns its model.
    public struct Iterator: AsyncIteratorProtocol {
        /// The iterator never throws.
        public typealias Failure = Never

        private let buffer: ReferenceValueBuffer<Value>
        private let subscription: ModelChangeSubscription

        init(_ reference: ModelReference<Root, Value>) {
            let buffer = ReferenceValueBuffer<Value>()
            self.buffer = buffer
            subscription = reference.observe { buffer.append($0) }
        }

        /// The next new value, waiting for one if none is buffered; nil once
        /// the task is cancelled.
        public mutating func next(isolation actor: isolated (any Actor)?) async -> Value? {
            while true {
                if let value = buffer.popFirst() { return value }
                if Task.isCancelled { return nil }
                await buffer.waitForValue(isolation: actor)
            }
        }

        /// The next new value; as `next(isolation:)` without an actor.
        public mutating func next() async -> Value? {
            await next(isolation: nil)
        }
    }
}

@available(*, unavailable)
extension ModelReferenceValues: Sendable {}

@available(*, unavailable)
extension ModelReferenceValues.Iterator: Sendable {}

/// Observes one reference for `observe(_:)`; see the comment at the top of
/// this file.
final class ReferenceObserver<Root: PersistentModel, Value> {
    private let reference: ModelReference<Root, Value>
    private let deliver: (Value) -> Void
    private let concerned: ChangeSignal
    /// The value last read: delivered, or read when observation began.
    private var last: Value

    init(_ reference: ModelReference<Root, Value>, deliver: @escaping (Value) -> Void) {
        let concerned = ChangeSignal()
        self.reference = reference
        self.deliver = deliver
        self.concerned = concerned
        last = Self.trackedRead(of: reference, raising: concerned)
    }

    /// Subscribes to the completion of the object's changes. The subscriber
    /// holds this observer, which holds the object: the object lives as long
    /// as the subscription does.
    func subscribe() -> ModelChangeSubscription {
        let state = reference.model._$modelState
        let subscriber = ChangeSubscriber(.didChange({ [self] in modelDidChange() }))
        state.addSubscriber(subscriber)
        return ModelChangeSubscription(state: state, subscriber: subscriber)
    }

    private func modelDidChange() {
        guard concerned.lower() else { return }
        let value = Self.trackedRead(of: reference, raising: concerned)
        if ModelReferencePath.areEqual(value, last) == true { return }
        last = value
        deliver(value)
    }

    /// Reads the value so that the next change of what the read went through
    /// raises `signal`.
    private static func trackedRead(of reference: ModelReference<Root, Value>, raising signal: ChangeSignal) -> Value {
        withObservationTracking {
            reference.value
        } onChange: {
            signal.raise()
        }
    }
}
