import Observation

/// Where an object stands with respect to its context and store.
enum ModelLifecycle: Sendable {
    /// Created, not inserted into any context.
    case detached
    /// Inserted into a context, not yet saved.
    case inserted
    /// Has a row in the store.
    case persisted
    /// Deleted in its context; the row goes away at the next save.
    case deleted
}

/// The context-facing side of a model object, so that the Model layer does
/// not depend on the Context layer above it.
protocol ModelStateOwner: AnyObject {
    /// The link its objects of `table` hold (see `StateLink`): one per
    /// owner and table (nil: a type that is not in the owner's schema).
    func stateLink(for table: EntityTable?) -> StateLink
    /// Called once when an object's first property becomes dirty since the
    /// last save, so that the context keeps the object until it is saved,
    /// with that property's last saved value when the object has a row.
    /// `state` is the object's (passed so that it is not asked for again).
    func modelDidBecomeDirty(_ model: any PersistentModel, state: ModelState, committed: consuming CommittedValue)
    /// Called when the state of a saved object is freed, which happens while
    /// its object is freed, so that the context removes the row's entry (its
    /// identity map holds objects unowned; see `RowRegistry`). A context
    /// removes an object's entry before it stops being its owner.
    func modelStateWillDeinit(table: EntityTable, rowID: Int64)
    /// Loads the objects a fault stands for (an unloaded relationship). Nil
    /// when they cannot be read; the owner keeps the error.
    func loadRelationship(_ relationship: RuntimeRelationship, of model: any PersistentModel) -> RelatedObjects?
    /// Inserts an object that became related to one of the owner's objects.
    func adopt(_ model: any PersistentModel)
    /// Reads an attribute that a partial fetch left unread. Nil when it
    /// cannot be read; the owner keeps the error.
    func loadAttribute(_ ordinal: Int, of model: any PersistentModel) -> Any?
    /// Reports a value that could not be loaded (see `LoadFailures`).
    func loadDidFail(_ error: any Error)
    /// Called before property `ordinal` of `model` changes from `old`, while
    /// the owner records undo (`StateLink.recordsUndo`), so that it
    /// registers the change's undo. `wasDirty`: the property had unsaved
    /// changes before this one.
    func modelWillChange(_ model: any PersistentModel, ordinal: Int, from old: Any, wasDirty: Bool)
    /// True while the owner undoes or redoes changes: relationship writes
    /// then leave inverses alone, since the inverses' own changes are
    /// undone too.
    var isRestoringUndo: Bool { get }
}

/// The per-object state of a model object (`_$modelState`): the
/// observation registrar, the link to the owning context, the row, and the
/// change-tracking bits. `@Model` makes it on the object's first use of it;
/// until then a fetched object keeps only its row (see `FetchedRow`).
///
/// Dirty tracking is a bit set indexed by property ordinal; the value a
/// property had when it was last saved is kept only for properties that
/// changed, so tracking costs nothing for objects that are only read: the
/// first changed property's in the context's list of changed objects, the
/// others' in the state's extras.
///
/// Public only because the code that `@Model` generates in an app's
/// module names it; hidden from the documentation, not API.
@_documentation(visibility: internal)
public final class ModelState {
    /// The Observation registrar, made when a property is first read inside
    /// a tracking scope (see ObservationProbe.swift).
    ///
    /// Making a registrar allocates (about 1,300 instructions), which would
    /// be most of the cost of fetching an object and reading it once.
    /// Observers can only register by reading a property inside a tracking
    /// scope, so an object never read in one has no observers, and its writes
    /// need not notify anyone.
    ///
    /// The registrar lives in a box of its own: `ObservationRegistrar` is a
    /// resilient type, so an optional one held here was tested, copied and
    /// assigned through the runtime's value witnesses on every access (more
    /// than making it cost); a reference is tested and used in place.
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    @usableFromInline var registrarBox: RegistrarBox?

    /// The object's Observation registrar.
    public var registrar: ObservationRegistrar { makeRegistrarBox().registrar }

    @usableFromInline
    func makeRegistrarBox() -> RegistrarBox {
        if let registrarBox { return registrarBox }
        let box = RegistrarBox()
        registrarBox = box
        return box
    }

    /// Reports a read of `keyPath` to Observation; called by generated getters.
    ///
    /// The key path is made only when Observation needs it: building one
    /// (`swift_getKeyPath`, a retain and a release) cost as much as the rest
    /// of an untracked read of an object without a registrar.
    @inlinable
    public func access<Subject: Observable, Member>(_ subject: Subject, keyPath: @autoclosure () -> KeyPath<Subject, Member>) {
        if let registrarBox {
            registrarBox.registrar.access(subject, keyPath: keyPath())
        } else {
            accessWithoutRegistrar(subject, keyPath: keyPath)
        }
    }

    /// A read of an object that has no registrar yet: one is made only when
    /// the read can register an observer. Out of line, so that the getters
    /// stay small.
    @usableFromInline
    func accessWithoutRegistrar<Subject: Observable, Member>(_ subject: Subject, keyPath: () -> KeyPath<Subject, Member>) {
        guard ObservationProbe.isTracking else { return }
        accessMakingRegistrar(subject, keyPath: keyPath())
    }

    // Apart, so that an untracked read does not set up what this needs
    // (ObservationRegistrar is resilient: its metadata is asked for, and
    // stack space made, on entry to any function that holds one).
    @inline(never)
    private func accessMakingRegistrar<Subject: Observable, Member>(_ subject: Subject, keyPath: KeyPath<Subject, Member>) {
        makeRegistrarBox().registrar.access(subject, keyPath: keyPath)
    }

    /// Runs a write of `keyPath`, telling observers and `objectWillChange`
    /// (also up forwarding relationships); called by generated setters.
    @inlinable
    public func withMutation<Subject: Observable, Member, Result>(
        of subject: Subject, keyPath: KeyPath<Subject, Member>, _ mutation: () throws -> Result
    ) rethrows -> Result {
        if changeRelay != nil { return try withForwardedMutation(of: subject, keyPath: keyPath, mutation) }
        guard let registrarBox else { return try mutation() }
        return try registrarBox.registrar.withMutation(of: subject, keyPath: keyPath, mutation)
    }

    /// Tells observers and `objectWillChange` that `keyPath` will change in
    /// place. With `notifiesRegistrar` false only `objectWillChange` and the
    /// forwarding parents are told: see `PersistentModel._$willModify`.
    /// The key path is made only when somebody is told.
    @inlinable
    public func willSet<Subject: Observable, Member>(
        _ subject: Subject, keyPath: @autoclosure () -> KeyPath<Subject, Member>, notifiesRegistrar: Bool = true
    ) {
        if changeRelay != nil { forwardedWillSet(subject, keyPath: keyPath()) }
        if notifiesRegistrar, let registrarBox { registrarBox.registrar.willSet(subject, keyPath: keyPath()) }
    }

    /// Tells observers that `keyPath` changed in place; `notifiesRegistrar`
    /// as for `willSet`.
    @inlinable
    public func didSet<Subject: Observable, Member>(
        _ subject: Subject, keyPath: @autoclosure () -> KeyPath<Subject, Member>, notifiesRegistrar: Bool = true
    ) {
        if notifiesRegistrar, let registrarBox { registrarBox.registrar.didSet(subject, keyPath: keyPath()) }
        if changeRelay != nil { forwardedDidSet() }
    }

    /// True when the object has an Observation registrar, which observers
    /// need: without one, nobody observes the object (nothing read it inside
    /// a tracking scope).
    @inlinable var hasRegistrar: Bool { registrarBox != nil }

    /// `objectWillChange` subscribers and forwarding parents; nil while there
    /// are none, so that a write then costs one more nil test, like the
    /// registrar's. Unchecked exclusivity for the same reason as `dirty`.
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    @usableFromInline var changeRelay: ChangeRelay?

    // The fields below are read and written for every saved or changed
    // object. Their exclusivity is unchecked, as `dirty`'s is: the state is
    // confined to its context's isolation domain, no access to them spans a
    // call, and the runtime's check cost more than the save's own work on
    // them (two calls into the runtime per access). Unchecked in release
    // builds only: debug builds (the tests) check every access, and so
    // verify those invariants (see the Reliability article).
    /// The owning context and the entity's table (see `StateLink`); nil for
    /// an object that was never inserted or fetched.
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    @usableFromInline var link: StateLink?
    /// True when the owning context has an undo manager, which hears of
    /// every change (see `PersistentModel._$recordUndo`).
    @inlinable var recordsUndo: Bool { link?.recordsUndo == true }
    /// The owning context; nil when there is none. For an object whose
    /// context went, the context that took it over (which the app does not
    /// see: `modelContext` is nil).
    var owner: (any ModelStateOwner)? { link?.owner }
    /// The entity's table; kept after the object leaves its context, so that
    /// a saved object keeps its identifier.
    var table: EntityTable? { link?.table }

    /// Leaves the owning context; the object keeps its table.
    func leaveOwner() {
        guard let link, link.owner != nil else { return }
        // Rare (a delete saved, an insert rolled back, an upsert's stand-in),
        // so a link of its own rather than one more kept by the table.
        self.link = link.table.map { StateLink(owner: nil, table: $0) }
    }
    /// The row's key once the object is saved.
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    var rowID: Int64?
    /// The row's version (`_version`) as this object last read or wrote it:
    /// a save's UPDATE and DELETE of the row expect it, so that a row that
    /// somebody else wrote since is a conflict (ModelContext+Conflicts.swift).
    /// Whoever gives the object newer stored values must set it too.
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    var version: Int64 = 0
    // The small fields side by side, so that they share one word.
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    var lifecycle: ModelLifecycle = .detached
    /// Set while the context writes values back (rollback, merge), so that the
    /// writes do not count as changes.
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    var isApplyingStoredValues = false
    /// Where the object is in its context's lists of pending changes; see
    /// `OrderedModels`.
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    var pendingSlots = PendingSlots()
    // Read on every tracked write; unchecked exclusivity because the state is
    // confined to its context's isolation domain and the bit set is never
    // accessed re-entrantly.
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    @usableFromInline var dirty = PropertyBitSet()

    /// The relationships not loaded yet (faults), by ordinal. Read by every
    /// generated getter, hence inline and unchecked like `dirty`.
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    @usableFromInline var faults = PropertyBitSet()
    /// The fields few objects ever use (see ModelStateExtras.swift); nil
    /// until one of them is set.
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    var extras: ModelStateExtras?

    /// True when relationship `ordinal` is not loaded yet; called by generated accessors.
    @inlinable
    public func isFault(_ ordinal: Int) -> Bool { faults.contains(ordinal) }

    /// Makes property `ordinal` stop being a fault, without loading it: it
    /// is about to be written.
    @usableFromInline
    func resolveFault(_ ordinal: Int) {
        guard faults.contains(ordinal) else { return }
        faults.remove(ordinal)
        guard let extras else { return }
        extras.faultKeys[ordinal] = nil
        extras.loadedKeys[ordinal] = nil
        extras.prefetched[ordinal] = nil
    }

    /// Creates the state of a new object; `@Model` calls it.
    public init() {}

    /// Creates the state of a fetched object from what its row left (see
    /// `FetchedRow`): saved, in its context; or, for an object that was not
    /// fetched, the state of a new object. `@Model` calls it on the object's
    /// first use of its state.
    public init(fetched row: borrowing FetchedRow) {
        if let link = row.link {
            self.link = link
            rowID = row.rowID
            version = row.version
            lifecycle = .persisted
        }
    }

    /// Reports a read of `keyPath` of an object that has no state yet (see
    /// `FetchedRow`); called by generated getters. Outside a tracking scope
    /// there is nothing to do; inside one, the read makes the state and its
    /// registrar, as a read of an object with a state would.
    ///
    /// Inlinable, so that the generated getter asks the probe directly: as a
    /// generic call, passing the subject, the key path's closure and their
    /// types cost as much as the probe's answer.
    @inlinable
    public static func accessWithoutState<Subject: PersistentModel, Member>(
        _ subject: Subject, keyPath: @autoclosure () -> KeyPath<Subject, Member>
    ) {
        guard ObservationProbe.isTracking else { return }
        subject._$modelState.access(subject, keyPath: keyPath())
    }

    deinit {
        if let link, let rowID { link.objectWillBeFreed(rowID: rowID) }
    }

    /// Records that property `ordinal` is about to change from `old`.
    /// Called from the inlinable `PersistentModel._$willModify`.
    @usableFromInline
    func propertyWillChange<Value>(_ ordinal: Int, from old: Value, of model: some PersistentModel) {
        // The bit test comes first: it is the common case for an object that
        // is already dirty, and it is cheaper than loading the weak owner.
        guard !dirty.contains(ordinal), !isApplyingStoredValues, let owner else { return }
        let wasClean = dirty.isEmpty
        dirty.insert(ordinal)
        // A deleted object keeps its row until the save, and a rollback
        // undeletes it: its saved values are kept as a persisted object's are.
        let hasRow = lifecycle == .persisted || lifecycle == .deleted
        if wasClean {
            // Most saves change one property per object: its saved value
            // goes with the object into the context's list of changed
            // objects, and no dictionary is allocated.
            owner.modelDidBecomeDirty(
                model, state: self, committed: hasRow ? CommittedValue(ordinal: ordinal, value: old) : .none)
        } else if hasRow {
            makeExtras().moreCommitted[ordinal] = old
        }
    }

    /// Forgets all changes: the object's values are now the saved ones.
    func markClean() {
        // Tested before written: a save marks every inserted object clean,
        // and most of them never changed since they were made.
        if !dirty.isEmpty { dirty = PropertyBitSet() }
        if let extras, !extras.moreCommitted.isEmpty { extras.moreCommitted = [:] }
    }
}

/// The Observation registrar of one object, held by reference; see
/// `ModelState.registrarBox`.
@usableFromInline
final class RegistrarBox {
    @usableFromInline let registrar = ObservationRegistrar()

    init() {}
}

/// An object's positions in its context's lists of inserted, changed and
/// deleted objects, so that those lists need no dictionary to find it. A
/// position is only a hint, checked against the list: a list that was
/// emptied leaves stale ones behind.
///
/// 32-bit, so that the three fit beside the state's other small fields.
struct PendingSlots {
    var inserted: Int32 = -1
    var changed: Int32 = -1
    var deleted: Int32 = -1
}
