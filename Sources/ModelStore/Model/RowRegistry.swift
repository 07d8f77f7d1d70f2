/// One entity's registered objects by row key: the identity map's part for
/// one table, so that a row has at most one object in a context.
///
/// Entries do not keep their objects alive. They hold them `unowned`, and the
/// context removes an object's entry when the object's `ModelState` is freed
/// (`ModelStateOwner.modelStateWillDeinit`). Not `weak`: a weak reference
/// gives every registered object a side table, an allocation per fetched
/// object that also moves every later retain and release of it off the fast
/// path. Reads go through `loadUnlessFreed` (UnownedReferences.swift), so an
/// object whose deinit has begun reads as absent, as through a weak reference,
/// until its entry is removed.
///
/// An open-addressing table with linear probing, in buffers that this class
/// allocates and frees itself: keys, occupancy, and entries side by side.
/// Only keys and occupancy are initialized when the table is made (9 bytes a
/// slot, not the 48 of a slot with its entry: writing a fresh table was a
/// third of the cache misses of registering a fetch); an entry exists only in
/// a used slot. Growing moves the entries bit for bit (no unowned count
/// changes, no element-wise destruction of the old buffer), and no write
/// checks an array's uniqueness.
///
/// Row keys are integers chosen by SQLite, mostly consecutive. The hash keeps
/// runs of eight consecutive keys in eight consecutive slots and scatters the
/// runs (Fibonacci hashing of `rowID >> 3`): registering a fetch's rows writes
/// the table in short sequential bursts instead of one cache miss per row,
/// and keys that share their low bits (multiples of a power of two) still
/// spread over the table.
final class RowRegistry {
    private struct Entry {
        private unowned let object: any PersistentModel
        private let address: UnsafeMutableRawPointer
        /// The state whose freeing removes the entry; compared by identity,
        /// so that a newer object registered for the row stays.
        let state: ObjectIdentifier

        init(model: any PersistentModel, state: ObjectIdentifier) {
            object = model
            address = unownedAddress(of: model)
            self.state = state
        }

        /// The object; nil once its deinit has begun.
        var model: (any PersistentModel)? { loadUnlessFreed(address) { object } }
    }

    // Confined to the context's isolation domain and never accessed
    // re-entrantly (no callbacks run while a slot is written).
    private var rowIDs: UnsafeMutablePointer<Int64>
    private var used: UnsafeMutablePointer<Bool>
    /// Initialized exactly where `used` is true.
    private var entries: UnsafeMutablePointer<Entry>
    private var capacity: Int
    /// `capacity - 1`; the capacity is a power of two, at least 16.
    private var mask: Int
    /// 64 minus log2 of the number of eight-slot groups.
    private var groupShift: UInt64
    /// Registered objects.
    private(set) var count = 0

    /// Whether the entity has relationships, whose objects a context must
    /// unlink when it goes (see `ModelContext.deinit`).
    let hasRelationships: Bool

    init(hasRelationships: Bool = true) {
        self.hasRelationships = hasRelationships
        capacity = 16
        mask = 15
        groupShift = 64 - 1
        (rowIDs, used, entries) = Self.allocateSlots(16)
    }

    deinit {
        for index in 0..<capacity where used[index] { (entries + index).deinitialize(count: 1) }
        Self.deallocate(rowIDs, used, entries)
    }

    private static func allocateSlots(
        _ count: Int
    ) -> (UnsafeMutablePointer<Int64>, UnsafeMutablePointer<Bool>, UnsafeMutablePointer<Entry>) {
        let rowIDs = UnsafeMutablePointer<Int64>.allocate(capacity: count)
        rowIDs.initialize(repeating: 0, count: count)
        let used = UnsafeMutablePointer<Bool>.allocate(capacity: count)
        used.initialize(repeating: false, count: count)
        return (rowIDs, used, UnsafeMutablePointer<Entry>.allocate(capacity: count))
    }

    private static func deallocate(
        _ rowIDs: UnsafeMutablePointer<Int64>, _ used: UnsafeMutablePointer<Bool>, _ entries: UnsafeMutablePointer<Entry>
    ) {
        rowIDs.deallocate()
        used.deallocate()
        entries.deallocate()
    }

    @inline(__always)
    private func home(of rowID: Int64) -> Int {
        let group = Int(truncatingIfNeeded: (UInt64(bitPattern: rowID >> 3) &* 0x9E37_79B9_7F4A_7C15) >> groupShift)
        return group << 3 | Int(truncatingIfNeeded: rowID & 7)
    }

    /// The slot holding `rowID`, or the free slot where it would go.
    @inline(__always)
    private func slot(for rowID: Int64) -> (index: Int, found: Bool) {
        var index = home(of: rowID)
        while used[index] {
            if rowIDs[index] == rowID { return (index, true) }
            index = (index + 1) & mask
        }
        return (index, false)
    }

    /// The object registered for `rowID`, if any.
    subscript(rowID: Int64) -> (any PersistentModel)? {
        let (index, found) = slot(for: rowID)
        return found ? entries[index].model : nil
    }

    /// Registers `model` as the object of `rowID`, replacing any other.
    func register(_ model: any PersistentModel, rowID: Int64) {
        register(model, state: model._$modelState, rowID: rowID)
    }

    /// Registers `model`, whose state is `state`, as the object of `rowID`,
    /// replacing any other.
    func register(_ model: any PersistentModel, state: ModelState, rowID: Int64) {
        let (index, found) = slot(for: rowID)
        let entry = Entry(model: model, state: ObjectIdentifier(state))
        if found {
            entries[index] = entry
        } else {
            (entries + index).initialize(to: entry)
            occupy(index, rowID: rowID)
        }
    }

    /// Registers `model` for `rowID` unless another live object already
    /// stands for the row; then returns that one and changes nothing. One
    /// probe does both (a save registers every object it inserts).
    func registerUnlessTaken(_ model: any PersistentModel, rowID: Int64) -> (any PersistentModel)? {
        let (index, found) = slot(for: rowID)
        if found, let existing = entries[index].model, existing !== model { return existing }
        let entry = Entry(model: model, state: ObjectIdentifier(model._$modelState))
        if found {
            entries[index] = entry
        } else {
            (entries + index).initialize(to: entry)
            occupy(index, rowID: rowID)
        }
        return nil
    }

    /// Records the key of a slot that just got its entry.
    @inline(__always)
    private func occupy(_ index: Int, rowID: Int64) {
        rowIDs[index] = rowID
        used[index] = true
        count += 1
        // At most three quarters full, so that probes stay short.
        if count * 4 > capacity * 3 { resize(to: capacity * 2) }
    }

    /// Makes room for `capacity` objects at once, so that a save or fetch
    /// of a known number of objects does not grow the table step by step.
    func reserveCapacity(_ capacity: Int) {
        var size = self.capacity
        while capacity * 4 > size * 3 { size *= 2 }
        if size > self.capacity { resize(to: size) }
    }

    /// Removes the entry of `rowID`.
    func remove(_ rowID: Int64) {
        let (index, found) = slot(for: rowID)
        if found { removeEntry(at: index) }
    }

    /// Removes the entry of `rowID` when it belongs to `state`; called when
    /// the state is freed, after which the entry's object must not be read.
    func remove(_ rowID: Int64, ifBelongingTo state: ModelState) {
        let (index, found) = slot(for: rowID)
        if found, entries[index].state == ObjectIdentifier(state) { removeEntry(at: index) }
    }

    /// Every registered object, held strongly, so that the caller may change
    /// them even if that frees some of the others.
    var models: [any PersistentModel] {
        var models: [any PersistentModel] = []
        models.reserveCapacity(count)
        for index in 0..<capacity where used[index] {
            if let model = entries[index].model { models.append(model) }
        }
        return models
    }

    /// Removes the entry at `index` and moves later entries of its probe run
    /// back, so that lookups need no tombstones (Knuth's algorithm R).
    private func removeEntry(at index: Int) {
        count -= 1
        (entries + index).deinitialize(count: 1)
        var hole = index
        var next = (index + 1) & mask
        while used[next] {
            let home = home(of: rowIDs[next])
            // The entry may fill the hole unless its home lies cyclically
            // in (hole, next].
            let staysPut = hole <= next ? (hole < home && home <= next) : (hole < home || home <= next)
            if !staysPut {
                rowIDs[hole] = rowIDs[next]
                (entries + hole).moveInitialize(from: entries + next, count: 1)
                hole = next
            }
            next = (next + 1) & mask
        }
        used[hole] = false
    }

    private func resize(to newCapacity: Int) {
        let (oldRowIDs, oldUsed, oldEntries) = (rowIDs, used, entries)
        let oldCapacity = capacity
        (rowIDs, used, entries) = Self.allocateSlots(newCapacity)
        capacity = newCapacity
        mask = newCapacity - 1
        groupShift = UInt64(64 - (newCapacity >> 3).trailingZeroBitCount)
        for slot in 0..<oldCapacity where oldUsed[slot] {
            var index = home(of: oldRowIDs[slot])
            while used[index] { index = (index + 1) & mask }
            rowIDs[index] = oldRowIDs[slot]
            used[index] = true
            (entries + index).moveInitialize(from: oldEntries + slot, count: 1)
        }
        // Every entry was moved out; nothing is left to destroy.
        Self.deallocate(oldRowIDs, oldUsed, oldEntries)
    }
}
