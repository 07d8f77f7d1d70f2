/// A set of object identities, for the passes that deduplicate or compare
/// long relationship lists (every save of a changed to-many does).
///
/// Open addressing with linear probing over a power-of-two table kept at
/// most half full, and a multiplicative (Fibonacci) hash of the address.
/// `Set<ObjectIdentifier>` hashes each address with SipHash, a defence
/// against keys chosen to collide; addresses are not chosen by anyone, and
/// SipHash cost a save of a long to-many more than everything else it did.
/// Only insertion and lookup: nothing is ever removed.
struct IdentitySet {
    /// Addresses; 0 marks an empty slot (no object lives at address 0).
    private var slots: [UInt]
    private var count = 0
    private var shift: UInt

    /// An empty set with room for `capacity` objects before it grows.
    init(capacity: Int) {
        var size = 16
        while size < capacity * 2 { size <<= 1 }
        slots = Array(repeating: 0, count: size)
        shift = UInt(UInt.bitWidth - size.trailingZeroBitCount)
    }

    /// Adds `object`; false when it was already in the set.
    /// - Complexity: O(1) on average.
    @discardableResult
    mutating func insert(_ object: AnyObject) -> Bool {
        if (count + 1) * 2 > slots.count { grow() }
        let inserted = place(address(object))
        if inserted { count += 1 }
        return inserted
    }

    /// True when `object` is in the set.
    /// - Complexity: O(1) on average.
    func contains(_ object: AnyObject) -> Bool {
        let key = address(object)
        var index = home(key)
        while true {
            let slot = slots[index]
            if slot == key { return true }
            if slot == 0 { return false }
            index = (index + 1) & (slots.count - 1)
        }
    }

    private func address(_ object: AnyObject) -> UInt {
        UInt(bitPattern: ObjectIdentifier(object))
    }

    private func home(_ key: UInt) -> Int {
        // The golden ratio's multiplier spreads neighbouring addresses (which
        // differ only in their low bits) over the whole table.
        Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> shift)
    }

    private mutating func place(_ key: UInt) -> Bool {
        var index = home(key)
        while true {
            let slot = slots[index]
            if slot == key { return false }
            if slot == 0 {
                slots[index] = key
                return true
            }
            index = (index + 1) & (slots.count - 1)
        }
    }

    private mutating func grow() {
        let old = slots
        slots = Array(repeating: 0, count: old.count * 2)
        shift -= 1
        for key in old where key != 0 { _ = place(key) }
    }
}
