import Foundation
@testable import ModelStore

// Models with forwarding relationships, made by hand until `@Relationship`
// exists: each relationship is a computed property tracked the way the
// generated accessors track attributes, whose setter links and unlinks the
// members the way the relationship layer will (`forwardsChanges: true`).
// None of them is stored; they live without a context.

@Model final class FwdOwner {
    var name: String
    @Transient var tripStorage: [FwdTrip] = []

    /// Forwards: a trip's changes (and its expenses') reach the owner.
    var trips: [FwdTrip] {
        get {
            access(keyPath: \.trips)
            return tripStorage
        }
        set { setForwardingMembers(\.tripStorage, \.trips, to: newValue) }
    }

    init(name: String) { self.name = name }
}

@Model final class FwdTrip {
    var name: String
    @Transient var expenseStorage: [FwdExpense] = []

    /// Forwards: an expense's changes reach the trip.
    var expenses: [FwdExpense] {
        get {
            access(keyPath: \.expenses)
            return expenseStorage
        }
        set { setForwardingMembers(\.expenseStorage, \.expenses, to: newValue) }
    }

    init(name: String) { self.name = name }
}

@Model final class FwdExpense {
    var title: String
    var amount: Double = 0
    var tags: [String] = []

    init(title: String, amount: Double = 0) {
        self.title = title
        self.amount = amount
    }
}

/// A node of a chain or loop: `next` forwards the next node's changes to this
/// one, as a manager relationship whose inverse forwards too would.
@Model final class FwdNode {
    var name: String
    @Transient var nextStorage: FwdNode?

    var next: FwdNode? {
        get {
            access(keyPath: \.next)
            return nextStorage
        }
        set {
            let old = nextStorage
            withMutation(keyPath: \.next) { nextStorage = newValue }
            old?._$modelState.removeForwardingParent(self, via: \FwdNode.next)
            newValue?._$modelState.addForwardingParent(self, via: \FwdNode.next)
        }
    }

    init(_ name: String) { self.name = name }
}

extension PersistentModel {
    /// Writes a to-many as the relationship layer will: a tracked write of
    /// the relationship, then members that left stop forwarding to `self`
    /// and members that joined start.
    func setForwardingMembers<Member: PersistentModel>(
        _ storage: ReferenceWritableKeyPath<Self, [Member]>, _ relationship: KeyPath<Self, [Member]>,
        to newValue: [Member]
    ) {
        let old = self[keyPath: storage]
        _$modelState.withMutation(of: self, keyPath: relationship) { self[keyPath: storage] = newValue }
        for member in old where !newValue.contains(where: { $0 === member }) {
            member._$modelState.removeForwardingParent(self, via: relationship)
        }
        for member in newValue {
            member._$modelState.addForwardingParent(self, via: relationship)
        }
    }
}

/// Collects the events one `sink` receives.
final class ChangeLog {
    private(set) var changes: [ModelChange] = []
    var subscription: ModelChangeSubscription?

    init() {}

    /// Subscribes to `model`'s `objectWillChange`; the log keeps the
    /// subscription, and its closure holds the log weakly, not the model.
    convenience init(_ model: some PersistentModel) {
        self.init()
        subscription = model.objectWillChange.sink { [weak self] in self?.record($0) }
    }

    func record(_ change: ModelChange) {
        changes.append(change)
    }

    var keyPaths: [AnyKeyPath] { changes.map(\.keyPath) }
    var paths: [[AnyKeyPath]] { changes.map(\.relationshipPath) }
    var models: [ObjectIdentifier] { changes.map { ObjectIdentifier($0.model) } }
}

/// The state's live forwarding parents, for tests of link bookkeeping.
func forwardingParentCount(of model: some PersistentModel) -> Int {
    model._$modelState.changeRelay?.links.count ?? 0
}
