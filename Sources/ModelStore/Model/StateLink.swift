/// What a model object's state holds of its context and entity: the context
/// keeps one link per entity table, the states hold their link strongly, and
/// when the context goes, the links of its objects that are still alive pass
/// to a context that takes them over (see ModelContext+Succession.swift), so
/// that an object outliving its context still loads what it has not loaded.
///
/// Not a weak or unowned reference to the context itself: a weak one gave
/// the context a side table (and every retain and release of it the slow
/// path); an unowned one cost two calls into the runtime's unowned count
/// per fetched object (about a hundred instructions) and one more per read.
/// A strong reference to the link costs an ordinary retain, and one link for
/// owner and table one retain per fetched object instead of two (each an
/// atomic operation on a line that every object of the fetch shares).
@usableFromInline
final class StateLink {
    // Confined, as the states that read it, to the context's isolation
    // domain. Unowned(unsafe): valid while set. A context's own links do
    // not keep it alive (its objects must not: the app lets go of the
    // context); it changes or clears them in its deinit, before anything it
    // runs there can read them. A link handed to a successor holds it in
    // `successor` as well. One of the unsafe mechanisms listed in the
    // Reliability article; weak under the SafeReferences trait, where a
    // broken invariant reads nil instead of freed memory.
    #if MODELSTORE_SAFE_REFERENCES
    private(set) weak var owner: (any ModelStateOwner)?
    #else
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    private(set) unowned(unsafe) var owner: (any ModelStateOwner)?
    #endif
    /// The entity's table; nil for an object whose type is not in its
    /// context's schema (its save throws).
    let table: EntityTable?
    /// Whether the objects' relationship faults stay faults once loaded:
    /// the owner is a context that took over the objects of one that went
    /// (or is going). Their getters return what the owner loads without
    /// keeping it, so that such objects never hold each other, and a graph
    /// of them that the app lets go of is freed (objects that hold each
    /// other, a trip its stops and each stop its trip, would otherwise keep
    /// each other alive, and their context with them). A write keeps its
    /// value, as on any object.
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    private(set) var keepsFaults: Bool
    /// The owner when it took over from a context that went: held strongly,
    /// so that it lives while any object of the gone context does.
    private var successor: (any ModelStateOwner)?
    /// True while the owner has an undo manager: the objects' setters then
    /// report every change (not only the first since the save) to the owner,
    /// which registers its undo. A flag on the link rather than a question
    /// to the owner, so that a context without undo costs a write one load
    /// and one test (see `ModelState.recordsUndo`).
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    @usableFromInline var recordsUndo = false

    init(owner: (any ModelStateOwner)?, table: EntityTable?, keepsFaults: Bool = false) {
        self.owner = owner
        self.table = table
        self.keepsFaults = keepsFaults
    }

    /// Takes row `rowID`'s entry out of the owner's identity map while its
    /// object is freed (the deinits of `FetchedRow` and `ModelState`). A
    /// method of the link, so that the link, the owner and the table are
    /// borrowed for the call, not retained and released around it.
    func objectWillBeFreed(rowID: Int64) {
        guard let owner, let table else { return }
        owner.modelStateWillDeinit(table: table, rowID: rowID)
    }

    /// Called by the owner's deinit first: from now on, loaded relationships
    /// are not kept (see `keepsFaults`).
    func ownerWillClose() {
        keepsFaults = true
    }

    /// Called by the owner's deinit when no object holds the link any more:
    /// states read no owner.
    func ownerWillDeinit() {
        owner = nil
        successor = nil
    }

    /// Called by the owner's deinit when objects of the link are still
    /// alive: `successor`, which holds the owner's identity map now, loads
    /// for them and lives as long as the link.
    func hand(to successor: any ModelStateOwner) {
        owner = successor
        self.successor = successor
        keepsFaults = true
        recordsUndo = false
    }
}
