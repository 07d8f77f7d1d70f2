/// One change of one tracked property, announced before the value changes.
///
/// Every model emits these from its `objectWillChange`. A change travels up
/// relationships declared with `forwardsChanges: true`: an expense's change
/// is also emitted by the trip that holds it, and by the trip's owner if that
/// relationship forwards too. Each object hears of one change at most once,
/// by the shortest route.
///
/// An event holds the changed object strongly, so an event kept (for
/// instance in the buffer of an `objectWillChange.values` sequence nobody
/// reads) keeps that object alive until it is dropped.
public struct ModelChange {
    /// The object whose property is about to change.
    public let model: any PersistentModel

    /// The property of `model` that is about to change, such as
    /// `\Expense.amount`.
    public let keyPath: AnyKeyPath

    /// The relationships the change travelled through to reach the object
    /// that emits it, starting at that object: for an expense's change seen
    /// at the owner, `[\Owner.trips, \Trip.expenses]`, so that following the
    /// path from the receiver leads to `model`. Empty for a change of the
    /// receiver's own property.
    public let relationshipPath: [AnyKeyPath]

    /// Creates an event; the library makes them, tests may too.
    public init(model: any PersistentModel, keyPath: AnyKeyPath, relationshipPath: [AnyKeyPath] = []) {
        self.model = model
        self.keyPath = keyPath
        self.relationshipPath = relationshipPath
    }

    /// True when the receiver's own property changes, false when the change
    /// was forwarded from a related object.
    public var isDirect: Bool { relationshipPath.isEmpty }
}

/// A model's `objectWillChange`: subscribe with `sink(_:)` or iterate
/// `values`.
///
/// Events are delivered synchronously, inside the setter and before the new
/// value is stored, in the isolation domain that writes the property (the
/// model's context's). Neither the events nor the sequence are `Sendable`,
/// so the compiler keeps them in that domain.
///
/// Changes that the context writes back (rollback, an upsert that lands on an
/// object already in the context) are emitted too: the values do change, and
/// Observation reports them as well.
///
/// The publisher does not keep its object alive; once the object is freed,
/// `sink(_:)` returns a cancelled subscription and `values` an ended sequence.
public struct ModelChangePublisher {
    private weak var state: ModelState?

    init(state: ModelState) {
        self.state = state
    }

    /// Calls `receive` before each change of the object, and before each
    /// change forwarded to it, until the returned subscription is cancelled
    /// or released.
    ///
    /// `receive` runs inside the setter, before the value changes: reading the
    /// property there gives the old value. It may read and write models,
    /// subscribe and cancel. The subscription holds only what `receive`
    /// captures; capture the model weakly if the closure outlives interest
    /// in it, or the closure keeps the model alive.
    public func sink(_ receive: @escaping (ModelChange) -> Void) -> ModelChangeSubscription {
        let subscriber = ChangeSubscriber(.closure(receive))
        guard let state else {
            subscriber.receiver = nil
            return ModelChangeSubscription(state: nil, subscriber: subscriber)
        }
        state.addSubscriber(subscriber)
        return ModelChangeSubscription(state: state, subscriber: subscriber)
    }

    /// The same events as `sink(_:)`, as an `AsyncSequence`.
    ///
    /// Events are buffered without limit from the moment this property is
    /// read. Iterate the sequence in the isolation domain that owns the
    /// model: `ModelChange` is not `Sendable`, so the compiler refuses to
    /// move the sequence elsewhere. The sequence ends when the object is
    /// freed; the library forgets a sequence that is no longer iterated at
    /// the object's next change.
    public var values: AsyncStream<ModelChange> {
        let (stream, continuation) = AsyncStream.makeStream(of: ModelChange.self)
        guard let state else {
            continuation.finish()
            return stream
        }
        state.addSubscriber(ChangeSubscriber(.stream(continuation)))
        return stream
    }
}

/// Keeps a `sink(_:)` closure subscribed: cancelling it, or releasing the
/// last reference to it, unsubscribes the closure and releases it.
///
/// It holds its object weakly, so it may outlive the object; cancelling it
/// then does nothing.
public final class ModelChangeSubscription {
    private weak var state: ModelState?
    private let subscriber: ChangeSubscriber

    init(state: ModelState?, subscriber: ChangeSubscriber) {
        self.state = state
        self.subscriber = subscriber
    }

    deinit {
        cancel()
    }

    /// Stops the events, at once: a change being delivered when this is
    /// called does not reach the closure any more. Calling it again does
    /// nothing.
    public func cancel() {
        guard subscriber.receiver != nil else { return }
        // Dropping the closure here, not only when the state forgets the
        // subscriber, releases what it captured even if the state is gone.
        subscriber.receiver = nil
        state?.removeSubscriber(subscriber)
    }

    /// True once `cancel()` was called or the object was freed before the
    /// subscription was made.
    public var isCancelled: Bool { subscriber.receiver == nil }
}

extension PersistentModel {
    /// Emits an event before any tracked property of this object changes,
    /// and before each change forwarded to it by a relationship declared
    /// with `forwardsChanges: true`. See `ModelChange` for the event and
    /// `ModelChangePublisher` for delivery.
    ///
    /// Reading this property costs nothing; only subscribing makes the
    /// object do any work on its writes.
    public var objectWillChange: ModelChangePublisher {
        ModelChangePublisher(state: _$modelState)
    }
}
