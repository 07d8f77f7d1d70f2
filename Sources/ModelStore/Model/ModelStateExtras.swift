// The fields of a model's state that few objects ever use, kept out of line.
// (Relationship faults are among them: objects of entities without
// relationships never have any, and those with them only until loaded.)
//
// Every object has a state, and a save or fetch of N objects allocates,
// initializes, touches and frees N of them: a temporary identifier (nobody
// asked for most objects' one), the committed values of a second changed
// property, and the bookkeeping of relationship mutations took 80 of the
// state's 280 bytes and a release each when it was freed.

/// What `ModelStateExtras` holds for one object; made when one of its fields
/// is first set to something.
final class ModelStateExtras {
    // Unchecked exclusivity, as in `ModelState`, whose object confines it
    // to its context's isolation domain; the runtime's check cost about 80
    // instructions per access (a prefetch sets one field per holder).
    /// The identifier before the object is saved; made on first request.
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    var temporaryIdentifier: PersistentIdentifier?
    /// The last saved values of the changed properties after the first.
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    var moreCommitted: [Int: Any] = [:]
    /// The object whose relationship change is being mirrored into this one,
    /// so that mirroring does not bounce back to it.
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    var inverseInitiator: AnyObject?
    /// The related objects before an in-place mutation (`trip.stops.append`),
    /// by ordinal, until the mutation ends.
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    var modifyingModels: [Int: [AnyObject]] = [:]
    /// Long to-many lists' shadows, by ordinal (see ListShadow.swift).
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    var listShadows: OrdinalMap<ListShadow> = OrdinalMap()
    /// The row keys of to-one faults: which object to load on first access.
    /// Read and removed through `state.extras?`, so that a state without
    /// extras gets none from a removal.
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    var faultKeys: OrdinalMap<Int64> = OrdinalMap()
    /// Objects prefetched for relationship faults, by ordinal: the fault
    /// resolves from them on first access instead of reading the store.
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    var prefetched: OrdinalMap<RelatedObjects> = OrdinalMap()
    /// For an object whose faults stay faults (see `StateLink.keepsFaults`),
    /// the row keys each relationship holds, by ordinal, in order: what it
    /// held when its context went, or what it loaded first since.
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    var loadedKeys: OrdinalMap<[Int64]> = OrdinalMap()
}

extension ModelState {
    func makeExtras() -> ModelStateExtras {
        if let extras { return extras }
        let made = ModelStateExtras()
        extras = made
        return made
    }

    /// The identifier before the object is saved; made on first request.
    var temporaryIdentifier: PersistentIdentifier? {
        get { extras?.temporaryIdentifier }
        set {
            guard newValue != nil || extras != nil else { return }
            makeExtras().temporaryIdentifier = newValue
        }
    }

    /// The object whose relationship change is being mirrored into this one,
    /// so that mirroring does not bounce back to it.
    var inverseInitiator: AnyObject? {
        get { extras?.inverseInitiator }
        set {
            guard newValue != nil || extras != nil else { return }
            makeExtras().inverseInitiator = newValue
        }
    }

    /// The related objects before an in-place mutation, by ordinal, until the
    /// mutation ends. Changed in place (`_modify`), not copied.
    var modifyingModels: [Int: [AnyObject]] {
        get { extras?.modifyingModels ?? [:] }
        set {
            guard !newValue.isEmpty || extras != nil else { return }
            makeExtras().modifyingModels = newValue
        }
        _modify { yield &makeExtras().modifyingModels }
    }
}
