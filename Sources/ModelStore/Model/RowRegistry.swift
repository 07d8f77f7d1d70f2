import CSwiftRuntime

/// One entity's registered objects by row key: the identity map's part for
/// one table, so that a row has at most one object in a context.
///
/// Entries do not keep their objects alive. Each is the object's address with
/// one unowned reference count taken on it (as an `unowned` reference holds
/// it, which keeps the memory, not the object), and the context removes an
/// object's entry when the object's `ModelState` is freed
/// (`ModelStateOwner.modelStateWillDeinit`). Not `weak`: a weak reference
/// gives every registered object a side table, an allocation per fetched
/// object that also moves every later retain and release of it off the fast
/// path. Reads retain the object only if its deinit has not begun
/// (`swift_tryRetain`), so an object being
/// freed reads as absent, as through a weak reference, until its entry is
/// removed. An entry is 8 bytes, not the 24 of an `unowned` existential and
/// its address: the registry was a fifth of a fetch's memory, and fresh
/// memory costs its page faults. The registry turns an address back into
/// `any PersistentModel` with a cast to its entity's class.
///
/// An open-addressing table with linear probing, in buffers that this class
/// allocates and frees itself: keys, slot states, and entries side by side.
/// Only the states are initialized when the table is made (writing a fresh
/// table was a third of the cache misses of registering a fetch); a key and
/// an entry mean something only in a full slot. A removed entry leaves a
/// tombstone, so that freeing objects costs O(1) each (shifting the rest of a
/// probe run back cost a scan of the run per object); tombstones are reused by
/// later entries, and dropped when the table empties or is rebuilt. Growing
/// copies the addresses with their unowned counts, and no write checks an
/// array's uniqueness.
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
    private enum SlotState: UInt8 {
        case empty, full, deleted
    }

    // Confined to the context's isolation domain and never accessed
    // re-entrantly (no callbacks run while a slot is written).
    private var rowIDs: UnsafeMutablePointer<Int64>
    private var states: UnsafeMutablePointer<SlotState>
    /// The registered objects' addresses; meaningful where the state is `full`.
    private var entries: UnsafeMutablePointer<UnsafeMutableRawPointer?>
    /// A multiple of eight, at least 16.
    private var capacity: Int
    /// `capacity / 8`: the groups of eight slots that keys hash onto.
    private var groups: UInt64
    /// Registered objects.
    private(set) var count = 0
    /// Slots whose entry was removed (`deleted`).
    private var tombstones = 0

    /// Whether the entity has relationships, whose objects a context must
    /// unlink when it goes (see `ModelContext.deinit`).
    let hasRelationships: Bool

    /// The object at an address as the entity's class: `as?` to a class
    /// (a walk up its superclasses), made for the entity's own type.
    private let modelAt: (AnyObject) -> (any PersistentModel)?

    /// A registry for objects of `modelType` (and its subclasses); of any
    /// model class when the type is not known.
    init(modelType: (any PersistentModel.Type)?, hasRelationships: Bool = true) {
        self.hasRelationships = hasRelationships
        modelAt = modelType.map { Self.cast(to: $0) } ?? { $0 as? any PersistentModel }
        capacity = 16
        groups = 2
        (rowIDs, states, entries) = Self.allocateSlots(16)
    }

    deinit {
        for index in 0..<capacity where states[index] == .full { release(index) }
        Self.deallocate(rowIDs, states, entries)
    }

    private static func cast<Model: PersistentModel>(to type: Model.Type) -> (AnyObject) -> (any PersistentModel)? {
        { $0 as? Model }
    }

    /// The object at `index`; nil once its deinit has begun.
    @inline(__always)
    private func object(at index: Int) -> (any PersistentModel)? {
        guard let address = entries[index], swift_tryRetain(address) != nil else { return nil }
        return modelAt(Unmanaged<AnyObject>.fromOpaque(address).takeRetainedValue())
    }

    /// Whether the object at `index` is being freed or is gone.
    @inline(__always)
    private func isFreed(_ index: Int) -> Bool {
        guard let address = entries[index], swift_tryRetain(address) != nil else { return true }
        Unmanaged<AnyObject>.fromOpaque(address).release()
        return false
    }

    /// Gives up the entry's unowned count.
    @inline(__always)
    private func release(_ index: Int) {
        if let address = entries[index] { swift_unownedRelease(address) }
        entries[index] = nil
    }

    private static func allocateSlots(
        _ count: Int
    ) -> (UnsafeMutablePointer<Int64>, UnsafeMutablePointer<SlotState>, UnsafeMutablePointer<UnsafeMutableRawPointer?>) {
        let rowIDs = UnsafeMutablePointer<Int64>.allocate(capacity: count)
        let states = UnsafeMutablePointer<SlotState>.allocate(capacity: count)
        states.initialize(repeating: .empty, count: count)
        let entries = UnsafeMutablePointer<UnsafeMutableRawPointer?>.allocate(capacity: count)
        return (rowIDs, states, entries)
    }

    private static func deallocate(
        _ rowIDs: UnsafeMutablePointer<Int64>, _ states: UnsafeMutablePointer<SlotState>,
        _ entries: UnsafeMutablePointer<UnsafeMutableRawPointer?>
    ) {
        rowIDs.deallocate()
        states.deallocate()
        entries.deallocate()
    }

    @inline(__always)
    private func home(of rowID: Int64) -> Int {
        let hash = UInt64(bitPattern: rowID >> 3) &* 0x9E37_79B9_7F4A_7C15
        let group = Int(truncatingIfNeeded: hash.multipliedFullWidth(by: groups).high)
        return group << 3 | Int(truncatingIfNeeded: rowID & 7)
    }

    /// The slot after `index`, wrapping around at the end of the table.
    @inline(__always)
    private func next(after index: Int) -> Int {
        index + 1 == capacity ? 0 : index + 1
    }

    /// The slot holding `rowID`, or the slot where it would go: the first
    /// tombstone of its probe run, else the empty slot that ends the run.
    @inline(__always)
    private func slot(for rowID: Int64) -> (index: Int, found: Bool) {
        var index = home(of: rowID)
        var firstTombstone: Int?
        while true {
            switch states[index] {
            case .empty: return (firstTombstone ?? index, false)
            case .full where rowIDs[index] == rowID: return (index, true)
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
        register(Unmanaged.passUnretained(model as AnyObject).toOpaque(), at: index, found: found, rowID: rowID)
    }

    /// Registers the model object at `address` (which must be one of the
    /// entity's models, alive) as `registerUnlessTaken(_:rowID:)` does.
    func registerUnlessTaken(address: UnsafeMutableRawPointer, rowID: Int64) -> (any PersistentModel)? {
        let (index, found) = slot(for: rowID)
        if found, entries[index] != address, let existing = object(at: index) { return existing }
        register(address, at: index, found: found, rowID: rowID)
        return nil
    }

    @inline(__always)
    private func register(_ objectAddress: UnsafeMutableRawPointer, at index: Int, found: Bool, rowID: Int64) {
        let address = swift_unownedRetain(objectAddress)
        if found {
            release(index)
            entries[index] = address
        } else {
            entries[index] = address
            occupy(index, rowID: rowID)
        }
    }

    /// Registers `model` for `rowID` unless another live object already
    /// stands for the row; then returns that one and changes nothing. One
    /// probe does both (a save registers every object it inserts).
    func registerUnlessTaken(_ model: any PersistentModel, rowID: Int64) -> (any PersistentModel)? {
        let (index, found) = slot(for: rowID)
        if found, let existing = object(at: index), existing !== model { return existing }
        register(Unmanaged.passUnretained(model as AnyObject).toOpaque(), at: index, found: found, rowID: rowID)
        return nil
    }

    /// Records the key of a slot that just got its entry.
    @inline(__always)
    private func occupy(_ index: Int, rowID: Int64) {
        if states[index] == .deleted { tombstones -= 1 }
        rowIDs[index] = rowID
        states[index] = .full
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
        if found, isFreed(index) { removeEntry(at: index) }
    }

    /// Every registered object, held strongly, so that the caller may change
    /// them even if that frees some of the others.
    var models: [any PersistentModel] {
        var models: [any PersistentModel] = []
        models.reserveCapacity(count)
        for index in 0..<capacity where states[index] == .full {
            if let model = object(at: index) { models.append(model) }
        }
        return models
    }

    /// Removes the entry at `index`, leaving a tombstone unless no probe run
    /// continues past the slot.
    private func removeEntry(at index: Int) {
        count -= 1
        release(index)
        if count == 0 {
            // Empty: every slot can be empty again, without tombstones.
            states.update(repeating: .empty, count: capacity)
            tombstones = 0
        } else if states[next(after: index)] == .empty {
            states[index] = .empty
        } else {
            states[index] = .deleted
            tombstones += 1
        }
    }

    private func resize(to newCapacity: Int) {
        let (oldRowIDs, oldStates, oldEntries) = (rowIDs, states, entries)
        let oldCapacity = capacity
        (rowIDs, states, entries) = Self.allocateSlots(newCapacity)
        capacity = newCapacity
        groups = UInt64(newCapacity / 8)
        tombstones = 0
        for slot in 0..<oldCapacity where oldStates[slot] == .full {
            var index = home(of: oldRowIDs[slot])
            while states[index] == .full { index = next(after: index) }
            rowIDs[index] = oldRowIDs[slot]
            states[index] = .full
            entries[index] = oldEntries[slot]
        }
        // The addresses moved with their unowned counts.
        Self.deallocate(oldRowIDs, oldStates, oldEntries)
    }
}
