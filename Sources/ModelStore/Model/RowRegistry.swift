/// One entity's registered objects by row key: the identity map's part for
/// one table, so that a row has at most one object in a context.
///
/// Entries do not keep their objects alive. They hold them `unowned`, and the
/// context removes an object's entry when the object's `ModelState` is freed
/// (`ModelStateOwner.modelStateWillDeinit`). Not `weak`: a weak reference
/// gives every registered object a side table, an allocation per fetched
/// object that also moves every later retain and release of it off the fast
/// path. Reads go through `loadUnlessFreed` (UnownedReference.swift), so an
/// object whose deinit has begun reads as absent, as through a weak reference,
/// until its entry is removed.
///
/// An open-addressing table with linear probing and a multiplicative hash:
/// row keys are integers chosen by SQLite, not by an attacker, so the seeded
/// hashing of `Dictionary` (about half the cost of registering a fetched
/// object) buys nothing here. Keys and occupancy live in arrays of their own,
/// so that probing copies no references.
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
    // re-entrantly (no callbacks run while a slot is written), so the
    // dynamic exclusivity check on every probe would only cost.
    @exclusivity(unchecked) private var rowIDs: [Int64]
    @exclusivity(unchecked) private var used: [Bool]
    @exclusivity(unchecked) private var entries: [Entry?]
    /// `rowIDs.count - 1`; the count is a power of two.
    private var mask: Int
    private var shift: UInt64
    /// Registered objects.
    private(set) var count = 0

    /// Whether the entity has relationships, whose objects a context must
    /// unlink when it goes (see `ModelContext.deinit`).
    let hasRelationships: Bool

    init(hasRelationships: Bool = true) {
        self.hasRelationships = hasRelationships
        (rowIDs, used, entries) = Self.emptySlots(16)
        mask = 15
        shift = 64 - 4
    }

    private static func emptySlots(_ count: Int) -> ([Int64], [Bool], [Entry?]) {
        (Array(repeating: 0, count: count), Array(repeating: false, count: count), Array(repeating: nil, count: count))
    }

    @inline(__always)
    private func home(of rowID: Int64) -> Int {
        // Fibonacci hashing: the high bits of the product spread consecutive
        // keys across the table.
        Int(truncatingIfNeeded: (UInt64(bitPattern: rowID) &* 0x9E37_79B9_7F4A_7C15) >> shift)
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
        return found ? entries[index]?.model ?? nil : nil
    }

    /// Registers `model` as the object of `rowID`, replacing any other.
    func register(_ model: any PersistentModel, rowID: Int64) {
        let (index, found) = slot(for: rowID)
        entries[index] = Entry(model: model, state: ObjectIdentifier(model._$modelState))
        guard !found else { return }
        rowIDs[index] = rowID
        used[index] = true
        count += 1
        // At most three quarters full, so that probes stay short.
        if count * 4 > rowIDs.count * 3 { grow() }
    }

    /// Registers `model` for `rowID` unless another live object already
    /// stands for the row; then returns that one and changes nothing. One
    /// probe does both (a save registers every object it inserts).
    func registerUnlessTaken(_ model: any PersistentModel, rowID: Int64) -> (any PersistentModel)? {
        let (index, found) = slot(for: rowID)
        if found, let existing = entries[index]?.model ?? nil, existing !== model { return existing }
        entries[index] = Entry(model: model, state: ObjectIdentifier(model._$modelState))
        guard !found else { return nil }
        rowIDs[index] = rowID
        used[index] = true
        count += 1
        if count * 4 > rowIDs.count * 3 { grow() }
        return nil
    }

    /// Makes room for `capacity` objects at once, so that a save or fetch
    /// of a known number of objects does not grow the table step by step.
    func reserveCapacity(_ capacity: Int) {
        while capacity * 4 > rowIDs.count * 3 { grow() }
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
        if found, entries[index]?.state == ObjectIdentifier(state) { removeEntry(at: index) }
    }

    /// Every registered object, held strongly, so that the caller may change
    /// them even if that frees some of the others.
    var models: [any PersistentModel] {
        var models: [any PersistentModel] = []
        models.reserveCapacity(count)
        for case let entry? in entries {
            if let model = entry.model { models.append(model) }
        }
        return models
    }

    /// Removes the entry at `index` and moves later entries of its probe run
    /// back, so that lookups need no tombstones (Knuth's algorithm R).
    private func removeEntry(at index: Int) {
        count -= 1
        var hole = index
        var next = (index + 1) & mask
        while used[next] {
            let home = home(of: rowIDs[next])
            // The entry may fill the hole unless its home lies cyclically
            // in (hole, next].
            let staysPut = hole <= next ? (hole < home && home <= next) : (hole < home || home <= next)
            if !staysPut {
                move(from: next, to: hole)
                hole = next
            }
            next = (next + 1) & mask
        }
        used[hole] = false
        entries[hole] = nil
    }

    private func move(from source: Int, to destination: Int) {
        rowIDs[destination] = rowIDs[source]
        used[destination] = true
        entries[destination] = entries[source]
    }

    private func grow() {
        let (oldRowIDs, oldUsed) = (rowIDs, used)
        var oldEntries: [Entry?] = []
        swap(&oldEntries, &entries)
        (rowIDs, used, entries) = Self.emptySlots(oldRowIDs.count * 2)
        mask = rowIDs.count - 1
        shift -= 1
        // Through buffers: entries are moved, not copied (a copy of an unowned
        // reference is an atomic increment, and the old array's release
        // another decrement), and no write checks the array's uniqueness.
        oldEntries.withUnsafeMutableBufferPointer { old in
            rowIDs.withUnsafeMutableBufferPointer { rowIDs in
                used.withUnsafeMutableBufferPointer { used in
                    entries.withUnsafeMutableBufferPointer { entries in
                        for slot in oldRowIDs.indices where oldUsed[slot] {
                            var index = home(of: oldRowIDs[slot])
                            while used[index] { index = (index + 1) & mask }
                            rowIDs[index] = oldRowIDs[slot]
                            used[index] = true
                            swap(&entries[index], &old[slot])
                        }
                    }
                }
            }
        }
    }
}
