import Observation

// The machinery behind `objectWillChange` and forwarding (see
// ChangeForwarding.swift for how it is driven).

/// Told once a change announced before it happened is done (the value is
/// stored): a forwarding parent's registrar, or a subscriber that hears of
/// changes after them.
protocol ChangeCompletion: AnyObject {
    func changeDidComplete()
}

/// A subscriber of one object's `objectWillChange`, or of the completion of
/// its changes (`didChange`, which `ModelReference` observes by).
final class ChangeSubscriber: ChangeCompletion {
    enum Receiver {
        case closure((ModelChange) -> Void)
        case stream(AsyncStream<ModelChange>.Continuation)
        /// Called after each change of the object (its own, or one forwarded
        /// to it), once the new value is stored.
        case didChange(() -> Void)
    }

    /// Nil once cancelled. A change being delivered checks it, so that a
    /// subscriber cancelled by an earlier subscriber hears nothing more.
    var receiver: Receiver?

    init(_ receiver: Receiver) {
        self.receiver = receiver
    }

    /// Runs a `didChange` receiver; a subscriber cancelled since the change
    /// was announced hears nothing.
    func changeDidComplete() {
        if case .didChange(let receive) = receiver { receive() }
    }
}

/// One relationship through which this object's changes are re-emitted by
/// the object that holds it.
protocol ForwardingLink: ChangeCompletion {
    /// The parent's identity when the link was made; a freed parent's
    /// identity may be reused, so matches are confirmed with `holds(_:)`.
    var parentID: ObjectIdentifier { get }
    /// The parent's relationship property that holds the child.
    var keyPath: AnyKeyPath { get }
    /// The parent's state; nil once the parent is freed.
    var parentState: ModelState? { get }
    func holds(_ parent: AnyObject) -> Bool
    /// Tells the parent's Observation registrar, if it has one, that the
    /// relationship property will change (its contents do).
    func parentWillChange()
    /// Tells the parent's Observation registrar that it did change.
    func parentDidChange()
}

extension ForwardingLink {
    func changeDidComplete() { parentDidChange() }
}

/// A `ForwardingLink` that keeps the typed key path, which the registrar's
/// `willSet` and `didSet` need, and the parent weakly: the parent usually
/// holds the child strongly, and a strong link back would be a cycle.
final class ParentLink<Parent: PersistentModel, Value>: ForwardingLink {
    private weak var parent: Parent?
    private let relationship: KeyPath<Parent, Value>
    let parentID: ObjectIdentifier

    init(_ parent: Parent, _ relationship: KeyPath<Parent, Value>) {
        self.parent = parent
        self.relationship = relationship
        parentID = ObjectIdentifier(parent)
    }

    var keyPath: AnyKeyPath { relationship }
    var parentState: ModelState? { parent?._$modelState }
    func holds(_ parent: AnyObject) -> Bool { self.parent === parent }

    func parentWillChange() {
        guard let parent else { return }
        parent._$modelState.registrarBox?.registrar.willSet(parent, keyPath: relationship)
    }

    func parentDidChange() {
        guard let parent else { return }
        parent._$modelState.registrarBox?.registrar.didSet(parent, keyPath: relationship)
    }
}

/// An object's subscribers and forwarding parents.
@usableFromInline
final class ChangeRelay {
    private(set) var subscribers: [ChangeSubscriber] = []
    /// The forwarding parents, in the order they were linked (removal moves
    /// the last link into the gap).
    private(set) var links: [any ForwardingLink] = []
    /// Where each link is in `links`; made only once there are many links
    /// (an object held by thousands of forwarding to-manys), since a short
    /// array is searched faster than it is hashed.
    private var linkIndex: [LinkKey: Int]?
    /// The links told `willSet` (and the `didChange` subscribers reached)
    /// by each in-place mutation in progress, so that its `didSet` tells the
    /// same ones.
    var inPlaceMutations: [[any ChangeCompletion]] = []

    private struct LinkKey: Hashable {
        let parent: ObjectIdentifier
        let keyPath: AnyKeyPath
    }

    private static let indexThreshold = 16

    var isUnused: Bool { subscribers.isEmpty && links.isEmpty && inPlaceMutations.isEmpty }

    deinit {
        // The object is being freed: nothing will be emitted any more, so
        // the sequences end rather than wait for ever.
        for subscriber in subscribers {
            if case .stream(let continuation) = subscriber.receiver { continuation.finish() }
        }
    }

    func add(_ subscriber: ChangeSubscriber) {
        subscribers.append(subscriber)
    }

    func remove(_ subscriber: ChangeSubscriber) {
        subscribers.removeAll { $0 === subscriber }
    }

    /// Returns false when it dropped a sequence nobody iterates any more,
    /// so that the caller can drop a relay left with nothing to do. Appends
    /// the `didChange` subscribers to `completions`, to be told once the
    /// change is done.
    func deliver(_ change: ModelChange, completions: inout [any ChangeCompletion]) -> Bool {
        var keptAll = true
        // Iterating a copy: a subscriber may subscribe or cancel meanwhile.
        for subscriber in subscribers {
            switch subscriber.receiver {
            case .closure(let receive):
                receive(change)
            case .stream(let continuation):
                // The stream is consumed in the isolation domain that owns the
                // model (neither it nor its elements are Sendable), so the
                // event stays in this domain although `yield` asks for a
                // disconnected value.
                nonisolated(unsafe) let event = change
                if case .terminated = continuation.yield(event) {
                    subscriber.receiver = nil
                    remove(subscriber)
                    keptAll = false
                }
            case .didChange:
                completions.append(subscriber)
            case nil:
                break
            }
        }
        return keptAll
    }

    /// Adds `link` unless a link to the same live parent through the same key
    /// path exists; a dead link whose parent's identity was reused is replaced.
    func add(_ link: any ForwardingLink, parent: AnyObject) {
        if let index = index(of: link.parentID, link.keyPath) {
            if links[index].holds(parent) { return }
            links[index] = link
            return
        }
        links.append(link)
        if linkIndex != nil {
            linkIndex?[LinkKey(parent: link.parentID, keyPath: link.keyPath)] = links.count - 1
        } else if links.count > Self.indexThreshold {
            rebuildIndex()
        }
    }

    func removeLink(to parent: ObjectIdentifier, via keyPath: AnyKeyPath) {
        guard let index = index(of: parent, keyPath) else { return }
        removeLink(at: index)
    }

    func removeAllLinks() {
        links = []
        linkIndex = nil
    }

    /// Forgets the links whose parents were freed.
    func removeDeadLinks() {
        links.removeAll { $0.parentState == nil }
        if linkIndex != nil { rebuildIndex() }
    }

    private func index(of parent: ObjectIdentifier, _ keyPath: AnyKeyPath) -> Int? {
        if let linkIndex { return linkIndex[LinkKey(parent: parent, keyPath: keyPath)] }
        return links.firstIndex { $0.parentID == parent && $0.keyPath == keyPath }
    }

    private func removeLink(at index: Int) {
        let removed = links[index]
        links.swapAt(index, links.count - 1)
        links.removeLast()
        guard linkIndex != nil else { return }
        linkIndex?[LinkKey(parent: removed.parentID, keyPath: removed.keyPath)] = nil
        if index < links.count {
            linkIndex?[LinkKey(parent: links[index].parentID, keyPath: links[index].keyPath)] = index
        }
    }

    private func rebuildIndex() {
        var index: [LinkKey: Int] = [:]
        for (position, link) in links.enumerated() {
            index[LinkKey(parent: link.parentID, keyPath: link.keyPath)] = position
        }
        linkIndex = index
    }
}
