import Observation

// How a write reaches `objectWillChange` subscribers and travels up
// forwarding relationships, and the API the relationship layer drives it by.
//
// A model's state has a `ChangeRelay` only while it has a subscriber or a
// forwarding parent; every other write pays for one nil test.
//
// The relationship layer calls, on the state of an object held through a
// relationship declared with `forwardsChanges: true`:
// - `addForwardingParent(_:via:)` when the object enters the relationship
//   (assigned to a to-one, added to a to-many, or loaded with its holder);
// - `removeForwardingParent(_:via:)` when it leaves it (replaced, removed, or
//   its holder deleted);
// - `removeAllForwardingParents()` when the object itself is deleted.
// Membership changes need no call of their own: they are writes of the
// holder's own relationship property, so the holder emits them and forwards
// them to its own parents.

extension ModelState {
    // MARK: - The relationship layer's API

    /// Makes this object's changes, and the changes forwarded to it, re-emit
    /// from `parent`'s `objectWillChange` with `keyPath` prepended to their
    /// relationship path, and tell observers of `parent`'s `keyPath` that it
    /// changes.
    ///
    /// `parent` is held weakly. Adding a link that exists is a no-op: an
    /// object is in a relationship once, however often it is added.
    func addForwardingParent<Parent: PersistentModel, Value>(_ parent: Parent, via keyPath: KeyPath<Parent, Value>) {
        relay().add(ParentLink(parent, keyPath), parent: parent)
    }

    /// Stops forwarding to `parent` through `keyPath`; does nothing when the
    /// link does not exist.
    func removeForwardingParent<Parent: PersistentModel, Value>(_ parent: Parent, via keyPath: KeyPath<Parent, Value>) {
        guard let changeRelay else { return }
        changeRelay.removeLink(to: ObjectIdentifier(parent), via: keyPath)
        releaseRelayIfUnused()
    }

    /// Stops forwarding to every parent.
    func removeAllForwardingParents() {
        guard let changeRelay else { return }
        changeRelay.removeAllLinks()
        releaseRelayIfUnused()
    }

    // MARK: - Subscribers

    func addSubscriber(_ subscriber: ChangeSubscriber) {
        relay().add(subscriber)
    }

    func removeSubscriber(_ subscriber: ChangeSubscriber) {
        guard let changeRelay else { return }
        changeRelay.remove(subscriber)
        releaseRelayIfUnused()
    }

    private func relay() -> ChangeRelay {
        if let changeRelay { return changeRelay }
        let relay = ChangeRelay()
        changeRelay = relay
        return relay
    }

    /// Drops a relay with nothing left to do, so that the object's writes
    /// take the fast path again.
    func releaseRelayIfUnused() {
        if let changeRelay, changeRelay.isUnused { self.changeRelay = nil }
    }

    // MARK: - Emitting; called through ModelState's inlined hooks

    /// `withMutation` when the object has a relay: emits, tells the parents'
    /// registrars `willSet`, runs the write through the object's own
    /// registrar, then tells the parents' registrars `didSet`.
    @usableFromInline
    func withForwardedMutation<Subject: Observable, Member, Result>(
        of subject: Subject, keyPath: KeyPath<Subject, Member>, _ mutation: () throws -> Result
    ) rethrows -> Result {
        let told = emitWillChange(of: subject, keyPath: keyPath)
        defer { for completion in told { completion.changeDidComplete() } }
        guard let registrarBox else { return try mutation() }
        return try registrarBox.registrar.withMutation(of: subject, keyPath: keyPath, mutation)
    }

    /// `willSet` of an in-place mutation when the object has a relay.
    @usableFromInline
    func forwardedWillSet<Subject: Observable>(_ subject: Subject, keyPath: AnyKeyPath) {
        let told = emitWillChange(of: subject, keyPath: keyPath)
        // Pushed even when empty, so that each `didSet` pops its own entry.
        relay().inPlaceMutations.append(told)
    }

    /// `didSet` of an in-place mutation when the object has a relay.
    @usableFromInline
    func forwardedDidSet() {
        // A relay made during the mutation (a subscription from inside it)
        // has no entry: its willSet was never announced, so nothing to pair.
        guard let changeRelay, let told = changeRelay.inPlaceMutations.popLast() else { return }
        for completion in told { completion.changeDidComplete() }
        releaseRelayIfUnused()
    }

    /// Delivers the event to this object's subscribers, then walks the
    /// forwarding links breadth first: each object reached for the first time
    /// delivers the event with its path, and its registrar is told that the
    /// relationship changes. Returns the links told and the `didChange`
    /// subscribers reached, to be told when the change is done.
    ///
    /// Breadth first, so that each object hears the change by its shortest
    /// route; the visited set makes cycles end with one event per object.
    private func emitWillChange(of subject: some Observable, keyPath: AnyKeyPath) -> [any ChangeCompletion] {
        guard let relay = changeRelay, let model = subject as? any PersistentModel else { return [] }
        var told: [any ChangeCompletion] = []
        guard !relay.links.isEmpty else {
            // No parents, only subscribers: no walk, and no allocation unless
            // a subscriber waits for the change to be done.
            if !relay.deliver(ModelChange(model: model, keyPath: keyPath), completions: &told) { releaseRelayIfUnused() }
            return told
        }
        var queue: [(state: ModelState, path: [AnyKeyPath])] = [(self, [])]
        // Each reached object, with the queue position of the object that
        // reached it first: further links from that same object (a parent
        // holding the child through two forwarding relationships) still tell
        // the parent's registrar, links from any other object do not.
        var reachedFrom: [ObjectIdentifier: Int] = [ObjectIdentifier(self): -1]
        // Told after the links, so that a `didChange` subscriber runs once
        // every registrar has heard the change end.
        var subscribersTold: [any ChangeCompletion] = []
        var position = 0
        while position < queue.count {
            let (state, path) = queue[position]
            guard let relay = state.changeRelay else {
                position += 1
                continue
            }
            let keptAll = relay.deliver(
                ModelChange(model: model, keyPath: keyPath, relationshipPath: path), completions: &subscribersTold)
            var hasDeadLinks = false
            for link in relay.links {
                guard let parentState = link.parentState else {
                    hasDeadLinks = true
                    continue
                }
                let parentID = ObjectIdentifier(parentState)
                if let reacher = reachedFrom[parentID] {
                    guard reacher == position else { continue }
                } else {
                    reachedFrom[parentID] = position
                    queue.append((parentState, [link.keyPath] + path))
                }
                link.parentWillChange()
                told.append(link)
            }
            if hasDeadLinks { relay.removeDeadLinks() }
            if hasDeadLinks || !keptAll { state.releaseRelayIfUnused() }
            position += 1
        }
        return subscribersTold.isEmpty ? told : told + subscribersTold
    }
}
