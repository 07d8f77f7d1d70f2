/// One entity's registered objects by row key: the identity map's part for
/// one table, so that a row has at most one object in a context.
///
/// Entries do not keep their objects alive, and the context removes an
/// object's entry when the object's `ModelState` is freed
/// (`ModelStateOwner.modelStateWillDeinit`). An object being freed reads as
/// absent, as through a weak reference, until its entry is removed. How an
/// entry refers to its object without keeping it, and the memory of the
/// table, are `RegistrySlots`' business (Sources/ModelStore/Unsafe, with its
/// invariants): by default an address with an unowned count, 8 bytes and no
/// side table per object (a `weak` reference gives every registered object
/// a side table, an allocation per fetched object that also moves every
/// later retain and release of it off the fast path); with the
/// `SafeReferences` trait, a `weak` reference. The registry turns an entry
/// back into `any PersistentModel` with a cast to its entity's class.
///
/// An open-addressing table with linear probing: keys, slot states, and
/// entries side by side. Only the states are initialized when the table is
/// made (a fresh table is written only where it is used); a key and an
/// entry mean something only in a full slot. A removed entry leaves a
/// tombstone, so that freeing objects costs O(1) each (shifting the rest of a
/// probe run back cost a scan of the run per object); tombstones are reused by
/// later entries, and dropped when the table empties or is rebuilt. Growing
/// moves the entries, and no write checks an array's uniqueness.
///
/// Row keys are integers chosen by SQLite, mostly consecutive. The hash keeps
/// runs of eight consecutive keys in eight consecutive slots and scatters the
/// runs (Fibonacci hashing of `rowID >> 3`): registering a fetch's rows writes
/// the table in short sequential bursts instead of one cache miss per row,
/// and keys that share their low bits (multiples of a power of two) still
/// spread over the table. The hash is mapped onto the groups of eight slots
/// by a multiplication (its high bits times the number of groups), so the
/// capacity is any multiple of eight: a fetch of 100,000 objects reserves
/// 133,336 slots, not the 262,144 the next power of two would take (the
/// table is fresh memory, paid for in page faults).
final class RowRegistry {
    // Confined to the context's isolation domain and never accessed
    // re-entrantly (no callbacks run while a slot is written).
    private(set) var slots: RegistrySlots
    /// A multiple of eight, at least 16; `slots.capacity`.
    private(set) var capacity: Int
    /// `capacity / 8`: the groups of eight slots that keys hash onto.
    private var groups: UInt64
    /// Registered objects.
    private(set) var count = 0
    /// Slots whose entry was removed (`deleted`).
    private(set) var tombstones = 0

    #if DEBUG
    /// New objects whose entries are prepared (`prepareEntry`) and not yet
    /// registered or discarded: 0 whenever no fetch is running (checked by
    /// `_checkInvariants`). Debug builds only.
    private(set) var preparedEntries = 0
    #endif

    /// Whether the entity has relationships, whose objects a context must
    /// unlink when it goes (see `ModelContext.deinit`).
    let hasRelationships: Bool

    /// The object of an entry as the entity's class: `as?` to a class
    /// (a walk up its superclasses), made for the entity's own type.
    let modelAt: (AnyObject) -> (any PersistentModel)?

    /// A registry for objects of `modelType` (and its subclasses); of any
    /// model class when the type is not known.
    init(modelType: (any PersistentModel.Type)?, hasRelationships: Bool = true) {
        self.hasRelationships = hasRelationships
        modelAt = modelType.map { Self.cast(to: $0) } ?? { $0 as? any PersistentModel }
        capacity = 16
        groups = 2
        slots = RegistrySlots(capacity: 16)
    }

    deinit {
        slots.destroy(releasingEntries: true)
    }

    private static func cast<Model: PersistentModel>(to type: Model.Type) -> (AnyObject) -> (any PersistentModel)? {
        { $0 as? Model }
    }

    /// The object at `index`; nil once its deinit has begun.
    @inline(__always)
    private func object(at index: Int) -> (any PersistentModel)? {
        guard let object = slots.object(at: index) else { return nil }
        return modelAt(object)
    }

    @inline(__always)
    func home(of rowID: Int64) -> Int {
        let hash = UInt64(bitPattern: rowID >> 3) &* 0x9E37_79B9_7F4A_7C15
        let group = Int(truncatingIfNeeded: hash.multipliedFullWidth(by: groups).high)
        return group << 3 | Int(truncatingIfNeeded: rowID & 7)
    }

    /// The slot after `index`, wrapping around at the end of the table.
    @inline(__always)
    func next(after index: Int) -> Int {
        index + 1 == capacity ? 0 : index + 1
    }

    /// The slot holding `rowID`, or the slot where it would go: the first
    /// tombstone of its probe run, else the empty slot that ends the run.
    @inline(__always)
    private func slot(for rowID: Int64) -> (index: Int, found: Bool) {
        var index = home(of: rowID)
        var firstTombstone: Int?
        while true {
            switch slots.state(at: index) {
            case .empty: return (firstTombstone ?? index, false)
            case .full where slots.rowID(at: index) == rowID: return (index, true)
            case .full: break
            case .deleted: if firstTombstone == nil { firstTombstone = index }
            }
            index = next(after: index)
        }
    }

    /// The object registered for `rowID`, if any.
    subscript(rowID: Int64) -> (any PersistentModel)? {
        let (index, found) = slot(for: rowID)
        return found ? object(at: index) : nil
    }

    /// Registers `model` as the object of `rowID`, replacing any other.
    func register(_ model: any PersistentModel, rowID: Int64) {
        let (index, found) = slot(for: rowID)
        register(model as AnyObject, at: index, found: found, rowID: rowID)
    }

    /// Takes, for a new object, what its entry will hold (the default
    /// build's unowned count), while the object is hot in the cache: a
    /// fetch that registers its objects once all rows are read calls this
    /// right after making each one. Every object prepared must then be
    /// passed to `registerUnlessTaken(preparedObjectAt:of:rowID:)` or to
    /// `discardPrepared(objectAt:of:)`, once.
    @inline(__always)
    func prepareEntry(objectAt position: Int, of objects: UnsafeBufferPointer<AnyObject>) {
        RegistrySlots.takeCount(forObjectAt: position, of: objects)
        #if DEBUG
        preparedEntries += 1
        #endif
    }

    /// Gives back what `prepareEntry(objectAt:of:)` took for `objects[position]`,
    /// which will not be registered (a fetch that failed half-way).
    @inline(__always)
    func discardPrepared(objectAt position: Int, of objects: UnsafeBufferPointer<AnyObject>) {
        RegistrySlots.giveBackCount(ofObjectAt: position, of: objects)
        #if DEBUG
        preparedEntries -= 1
        #endif
    }

    /// Registers `objects[position]` (a new model of the entity, prepared by
    /// `prepareEntry(objectAt:of:)`; the buffer keeps it alive) as
    /// `registerUnlessTaken(_:rowID:)` does, and consumes what was prepared
    /// either way. A fetch registers the objects of its array this way: by
    /// position, so that no existential is formed, no object is retained for
    /// it, and the object's memory is not touched.
    @inline(__always)
    func registerUnlessTaken(preparedObjectAt position: Int, of objects: UnsafeBufferPointer<AnyObject>, rowID: Int64)
        -> (any PersistentModel)?
    {
        let (index, found) = slot(for: rowID)
        if found {
            if slots.holds(objectAt: position, of: objects, at: index) {
                // Already this object's entry, with a count of its own.
                discardPrepared(objectAt: position, of: objects)
                return nil
            }
            if let existing = object(at: index) {
                discardPrepared(objectAt: position, of: objects)
                return existing
            }
            slots.replaceEntry(countedObjectAt: position, of: objects, at: index)
        } else {
            slots.initializeEntry(countedObjectAt: position, of: objects, at: index)
            occupy(index, rowID: rowID)
        }
        #if DEBUG
        preparedEntries -= 1
        #endif
        return nil
    }

    @inline(__always)
    private func register(_ object: AnyObject, at index: Int, found: Bool, rowID: Int64) {
        if found {
            slots.replaceEntry(object, at: index)
        } else {
            slots.initializeEntry(object, at: index)
            occupy(index, rowID: rowID)
        }
    }

    /// Registers `model` for `rowID` unless another live object already
    /// stands for the row; then returns that one and changes nothing. One
    /// probe does both (a save registers every object it inserts).
    func registerUnlessTaken(_ model: any PersistentModel, rowID: Int64) -> (any PersistentModel)? {
        let (index, found) = slot(for: rowID)
        if found, let existing = object(at: index), existing !== model { return existing }
        register(model as AnyObject, at: index, found: found, rowID: rowID)
        return nil
    }

    /// Records the key of a slot that just got its entry.
    @inline(__always)
    private func occupy(_ index: Int, rowID: Int64) {
        if slots.state(at: index) == .deleted { tombstones -= 1 }
        slots.setRowID(rowID, at: index)
        slots.setState(.full, at: index)
        count += 1
        // At most three quarters of the slots taken (tombstones too), so
        // that probes stay short. Mostly tombstones: rebuild at the same size.
        if (count + tombstones) * 4 > capacity * 3 { resize(to: count * 2 > capacity ? capacity * 2 : capacity) }
    }

    /// The table's slots, filled or not: what its memory is sized by.
    var slotCount: Int { capacity }

    /// Makes room for `capacity` objects at once, so that a save or fetch
    /// of a known number of objects does not grow the table step by step.
    func reserveCapacity(_ capacity: Int) {
        // At most three quarters full, in whole groups of eight.
        let size = ((capacity * 4 + 2) / 3 + 7) & ~7
        if size > self.capacity { resize(to: size) }
    }

    /// Removes the entry of `rowID`.
    func remove(_ rowID: Int64) {
        let (index, found) = slot(for: rowID)
        if found { removeEntry(at: index) }
    }

    /// Removes the entry of `rowID` if its object is being freed or is gone;
    /// called when a state of the row's object is freed. An entry of a newer,
    /// live object for the row stays. (The freed state's object is the one
    /// being freed: a state is freed with its object, or after it.)
    func removeIfFreed(_ rowID: Int64) {
        let (index, found) = slot(for: rowID)
        if found, slots.isFreed(at: index) { removeEntry(at: index) }
    }

    /// Every registered object, held strongly, so that the caller may change
    /// them even if that frees some of the others.
    var models: [any PersistentModel] {
        var models: [any PersistentModel] = []
        models.reserveCapacity(count)
        for index in 0..<capacity where slots.state(at: index) == .full {
            if let model = object(at: index) { models.append(model) }
        }
        return models
    }

    /// Removes the entry at `index`, leaving a tombstone unless no probe run
    /// continues past the slot.
    private func removeEntry(at index: Int) {
        count -= 1
        slots.clearEntry(at: index)
        if count == 0 {
            // Empty: every slot can be empty again, without tombstones.
            slots.resetStates()
            tombstones = 0
        } else if slots.state(at: next(after: index)) == .empty {
            slots.setState(.empty, at: index)
        } else {
            slots.setState(.deleted, at: index)
            tombstones += 1
        }
    }

    private func resize(to newCapacity: Int) {
        let oldSlots = slots
        slots = RegistrySlots(capacity: newCapacity)
        capacity = newCapacity
        groups = UInt64(newCapacity / 8)
        tombstones = 0
        for slot in 0..<oldSlots.capacity where oldSlots.state(at: slot) == .full {
            var index = home(of: oldSlots.rowID(at: slot))
            while slots.state(at: index) == .full { index = next(after: index) }
            slots.move(slot, of: oldSlots, to: index)
        }
        // The entries moved with whatever they hold.
        oldSlots.destroy(releasingEntries: false)
    }
}
