// Self-checks of the identity map, in the manner of swift-collections'
// `_checkInvariants()`: compiled in debug builds only (a release build's are
// empty and inlined away), called where the invariants must hold: after a
// save, after a fetch registers its rows, and by tests after workloads.

extension RowRegistry {
    /// Checks the table's invariants and stops the program with a message
    /// naming the first one broken: no prepared entry is left over, the
    /// counts match the slots, each key is
    /// in one full slot that its probe run reaches, each full slot has an
    /// entry, and each live object is of the entity's class. Does nothing in
    /// a release build.
    ///
    /// - Complexity: O(*n*) for a table of *n* slots (times the probe runs'
    ///   length), in debug builds.
    #if DEBUG
    func _checkInvariants() {
        precondition(capacity >= 16 && capacity % 8 == 0, "registry capacity \(capacity) is not a multiple of 8 of at least 16")
        precondition(slots.capacity == capacity, "registry capacity \(capacity) differs from its slots' \(slots.capacity)")
        var full = 0
        var deleted = 0
        var keys = Set<Int64>()
        keys.reserveCapacity(count)
        for index in 0..<capacity {
            switch slots.state(at: index) {
            case .empty:
                continue
            case .deleted:
                deleted += 1
                continue
            case .full:
                full += 1
            }
            let rowID = slots.rowID(at: index)
            precondition(keys.insert(rowID).inserted, "row \(rowID) has two slots in the registry")
            precondition(slots.hasEntry(at: index), "row \(rowID)'s full slot \(index) has no entry")
            // A lookup of the key probes from its home slot and stops at the
            // first empty slot: none may lie between home and the key.
            var probe = home(of: rowID)
            while probe != index {
                precondition(slots.state(at: probe) != .empty, "row \(rowID) in slot \(index) is unreachable from slot \(home(of: rowID))")
                probe = next(after: probe)
            }
            // An object being freed reads as absent until its state's deinit
            // removes the entry; a live one is of the entity's class (a fetch
            // returns registered objects as an array of it). Not its state's
            // row key: asking would make the state of an object that has none
            // yet (see FetchedRow).
            if let object = slots.object(at: index) {
                precondition(modelAt(object) != nil, "\(type(of: object)) registered for row \(rowID) is not of the entity's class")
            }
        }
        precondition(preparedEntries == 0, "\(preparedEntries) prepared entries were neither registered nor discarded")
        precondition(full == count, "registry counts \(count) objects, its slots hold \(full)")
        precondition(deleted == tombstones, "registry counts \(tombstones) tombstones, its slots hold \(deleted)")
        precondition((count + tombstones) * 4 <= capacity * 3, "registry more than three quarters full: \(count) + \(tombstones) of \(capacity)")
    }
    #else
    @inline(__always)
    func _checkInvariants() {}
    #endif
}
