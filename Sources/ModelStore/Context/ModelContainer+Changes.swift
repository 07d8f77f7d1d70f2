extension ModelContainer {
    /// Every save of the container's contexts from now on, in commit order,
    /// as an `AsyncSequence`: which objects it inserted, updated (with the
    /// properties written) and deleted, and the saving context's `author`.
    /// A commit of another process (another instance of the app,
    /// `store-tool`) comes as one element whose `invalidatedAll` is true,
    /// when a context of this container first notices it (at its next
    /// fetch, save or `processPendingChanges()`); `erase()` too.
    ///
    /// Each access makes a new sequence; it buffers what arrives until it is
    /// read, and ends when the task iterating it is cancelled.
    ///
    /// ```swift
    /// for await changes in container.changes {
    ///     print(changes.insertedIdentifiers, changes.author ?? "")
    /// }
    /// ```
    public var changes: AsyncStream<StoreChanges> {
        let (stream, continuation) = AsyncStream.makeStream(of: StoreChanges.self)
        let coordinator = store.changeCoordinator
        let key = coordinator.addObserver { continuation.yield($0) }
        continuation.onTermination = { _ in coordinator.removeObserver(key) }
        return stream
    }

    /// Calls `observer` after every save of the container's contexts, on
    /// the saving context's thread, once the save committed (and for other
    /// processes' commits, as `changes` describes), until the returned
    /// observation is cancelled or freed. The observer must not wait for
    /// the saving context.
    ///
    /// ```swift
    /// let observation = container.observeChanges { changes in log(changes) }
    /// // …
    /// observation.cancel()
    /// ```
    public func observeChanges(_ observer: @escaping @Sendable (StoreChanges) -> Void) -> ChangeObservation {
        let coordinator = store.changeCoordinator
        return ChangeObservation(coordinator: coordinator, key: coordinator.addObserver(observer))
    }
}

/// An observer added by `ModelContainer.observeChanges(_:)`: it is called
/// until `cancel()` is called or this object is freed.
public final class ChangeObservation: Sendable {
    private let coordinator: ChangeCoordinator
    private let key: Int

    init(coordinator: ChangeCoordinator, key: Int) {
        self.coordinator = coordinator
        self.key = key
    }

    /// Stops the observer; it is not called again once this returns (a call
    /// already running on another thread finishes).
    public func cancel() {
        coordinator.removeObserver(key)
    }

    deinit {
        coordinator.removeObserver(key)
    }
}
