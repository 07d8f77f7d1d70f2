// UNSAFE CODE, CONTAINED. This file is one of the few in ModelStore that
// manage memory or object lifetimes by hand; each says, next to the code,
// what keeps it correct. Callers see a small API with no raw pointers in it
// (a fetch hands over its array's buffer and a position in it).
//
// What it implements: the slot storage of `RowRegistry`, the identity map's
// table for one entity: for each slot a row key, a state (empty, full,
// deleted) and an entry that refers to a model object WITHOUT keeping it
// alive. Two builds:
//
// - Default: three buffers that this type allocates and frees itself, and
//   entries that are object addresses holding one *unowned* reference count
//   each (through the runtime entry points declared in
//   Sources/CSwiftRuntime/runtime.h). An entry is 8 bytes and registering an
//   object allocates nothing.
// - `MODELSTORE_SAFE_REFERENCES` (the `SafeReferences` package trait):
//   Swift arrays and `weak` references, ordinary ARC, no runtime entry
//   points (RegistrySlots+SafeReferences.swift). Slower, same behaviour.
//
// Invariants the default build relies on:
// 1. Lifetime. An entry holds one unowned count on its object, taken in
//    `initializeEntry`/`replaceEntry`, or ahead of the entry by `takeCount`
//    (a fetch's new objects; that count is then stored by the `counted`
//    forms of those two or handed back by `giveBackCount`, exactly once).
//    The entry gives it back exactly once, in `clearEntry`, `replaceEntry`
//    or `destroy(releasingEntries: true)`; `move` hands the count over with
//    the address. An unowned count keeps
//    the object's memory allocated (not the object), so the address stays
//    valid to ask `swift_tryRetain`, which retains the object only if its
//    deinit has not begun: a freed object reads as absent, as through a weak
//    reference. The registry clears an object's entry when its `ModelState`
//    is freed (`ModelStateOwner.modelStateWillDeinit`).
// 2. Native objects. Every entry is a native Swift class instance (a model
//    class), which the unowned-count entry points require.
// 3. Initialization. Only the states are initialized when the buffers are
//    made; a row key and an entry are read only in a slot the caller has
//    filled (`full`), and the caller writes both before marking it full.
// 4. Exclusivity. The buffers belong to one registry, which belongs to one
//    context and is used only in that context's isolation domain; no call
//    back into the caller happens while a slot is being written, so no two
//    accesses to a slot overlap. Indices are in `0..<capacity` (checked in
//    debug builds).
// 5. Addresses read from a buffer. `address(of:in:)` reads a strong
//    reference's bits (the object's address) from a caller's buffer of
//    `AnyObject`, which keeps the object alive during the call: nothing is
//    retained or released, and the position is checked against the buffer.
#if !MODELSTORE_SAFE_REFERENCES
import CSwiftRuntime

/// The state of one slot of a `RowRegistry`.
enum RegistrySlotState: UInt8 {
    case empty, full, deleted
}

/// The slots of a `RowRegistry`: row keys, slot states and entries that
/// refer to objects without keeping them alive. A value with reference
/// semantics over buffers: copies share them, and exactly one owner calls
/// `destroy`.
struct RegistrySlots {
    private let rowIDs: UnsafeMutablePointer<Int64>
    private let states: UnsafeMutablePointer<RegistrySlotState>
    /// Object addresses with one unowned count each; meaningful only where
    /// the state is `full` (invariant 3).
    private let entries: UnsafeMutablePointer<UnsafeMutableRawPointer?>
    /// The number of slots.
    let capacity: Int

    /// Allocates `capacity` slots, all empty.
    init(capacity: Int) {
        self.capacity = capacity
        rowIDs = UnsafeMutablePointer<Int64>.allocate(capacity: capacity)
        states = UnsafeMutablePointer<RegistrySlotState>.allocate(capacity: capacity)
        states.initialize(repeating: .empty, count: capacity)
        entries = UnsafeMutablePointer<UnsafeMutableRawPointer?>.allocate(capacity: capacity)
    }

    /// Frees the buffers; with `releasingEntries`, first gives back the
    /// unowned count of every full slot's entry (false when `move` has
    /// handed them all to other slots).
    func destroy(releasingEntries: Bool) {
        if releasingEntries {
            for index in 0..<capacity where states[index] == .full { clearEntry(at: index) }
        }
        rowIDs.deallocate()
        states.deallocate()
        entries.deallocate()
    }

    @inline(__always)
    func state(at index: Int) -> RegistrySlotState {
        assert(index >= 0 && index < capacity, "registry slot \(index) out of 0..<\(capacity)")
        return states[index]
    }

    @inline(__always)
    func setState(_ state: RegistrySlotState, at index: Int) {
        assert(index >= 0 && index < capacity, "registry slot \(index) out of 0..<\(capacity)")
        states[index] = state
    }

    /// Makes every slot empty; only when no slot is full (no entry would
    /// lose its count).
    func resetStates() {
        states.update(repeating: .empty, count: capacity)
    }

    /// The row key of a full slot.
    @inline(__always)
    func rowID(at index: Int) -> Int64 {
        assert(index >= 0 && index < capacity, "registry slot \(index) out of 0..<\(capacity)")
        return rowIDs[index]
    }

    @inline(__always)
    func setRowID(_ rowID: Int64, at index: Int) {
        assert(index >= 0 && index < capacity, "registry slot \(index) out of 0..<\(capacity)")
        rowIDs[index] = rowID
    }

    /// The entry's object, retained; nil once its deinit has begun.
    @inline(__always)
    func object(at index: Int) -> AnyObject? {
        guard let address = entries[index], swift_tryRetain(address) != nil else { return nil }
        return Unmanaged<AnyObject>.fromOpaque(address).takeRetainedValue()
    }

    /// Whether the entry's object is being freed or is gone.
    @inline(__always)
    func isFreed(at index: Int) -> Bool {
        guard let address = entries[index], swift_tryRetain(address) != nil else { return true }
        Unmanaged<AnyObject>.fromOpaque(address).release()
        return false
    }

    /// Whether the slot's entry refers to `object`; by address, without
    /// retaining either.
    @inline(__always)
    func holds(_ object: AnyObject, at index: Int) -> Bool {
        entries[index] == Unmanaged.passUnretained(object).toOpaque()
    }

    /// Whether the slot's entry refers to `objects[position]`, read by
    /// address: no retain, since the buffer keeps the object alive.
    @inline(__always)
    func holds(objectAt position: Int, of objects: UnsafeBufferPointer<AnyObject>, at index: Int) -> Bool {
        entries[index] == Self.address(of: position, in: objects)
    }

    /// The address of `objects[position]`, read from the buffer's bits
    /// without a retain (a strong reference is the object's address). A
    /// fetch registers every object of its array, and loading each one as a
    /// reference would retain and release it for nothing.
    @inline(__always)
    private static func address(of position: Int, in objects: UnsafeBufferPointer<AnyObject>) -> UnsafeMutableRawPointer {
        precondition(objects.indices.contains(position), "object \(position) out of 0..<\(objects.count)")
        // A non-empty buffer (the position is in it) has a base address.
        return UnsafeRawPointer(objects.baseAddress.unsafelyUnwrapped + position).load(as: UnsafeMutableRawPointer.self)
    }

    /// Whether a full slot has an entry at all (invariant checks).
    func hasEntry(at index: Int) -> Bool {
        entries[index] != nil
    }

    /// Stores an entry for `object` in a slot that is not full (whose entry
    /// is garbage). The caller keeps `object` alive during the call.
    @inline(__always)
    func initializeEntry(_ object: AnyObject, at index: Int) {
        initializeEntry(address: Unmanaged.passUnretained(object).toOpaque(), at: index)
    }

    /// Takes the unowned count that an entry for `object` will hold, ahead
    /// of the entry. A fetch that registers its objects once all rows are
    /// read takes each one's count right after making it, while the object's
    /// memory is still in the cache: taken at registration, the count would
    /// touch every object again, a cache miss per object once a large
    /// fetch's first objects have left the cache. The count is then stored
    /// by `initializeEntry(countedObjectAt:of:at:)` or
    /// `replaceEntry(countedObjectAt:of:at:)`, or given back by
    /// `giveBackCount(ofObjectAt:of:)`: exactly one of the three (invariant 1).
    @inline(__always)
    static func takeCount(forObjectAt position: Int, of objects: UnsafeBufferPointer<AnyObject>) {
        _ = swift_unownedRetain(address(of: position, in: objects))
    }

    /// Gives back a count taken by `takeCount(forObjectAt:of:)` for `objects[position]`
    /// that no entry will hold.
    @inline(__always)
    static func giveBackCount(ofObjectAt position: Int, of objects: UnsafeBufferPointer<AnyObject>) {
        swift_unownedRelease(address(of: position, in: objects))
    }

    /// Stores an entry for `objects[position]`, whose count `takeCount(forObjectAt:of:)`
    /// took, in a slot that is not full; read by address (the buffer keeps
    /// the object alive), so the object itself is not touched.
    @inline(__always)
    func initializeEntry(countedObjectAt position: Int, of objects: UnsafeBufferPointer<AnyObject>, at index: Int) {
        assert(index >= 0 && index < capacity, "registry slot \(index) out of 0..<\(capacity)")
        entries[index] = Self.address(of: position, in: objects)
    }

    @inline(__always)
    private func initializeEntry(address: UnsafeMutableRawPointer, at index: Int) {
        assert(index >= 0 && index < capacity, "registry slot \(index) out of 0..<\(capacity)")
        entries[index] = swift_unownedRetain(address)
    }

    /// Replaces the entry of a full slot, giving back the old one's count.
    @inline(__always)
    func replaceEntry(_ object: AnyObject, at index: Int) {
        replaceEntry(address: Unmanaged.passUnretained(object).toOpaque(), at: index)
    }

    /// Replaces the entry of a full slot, which does not refer to
    /// `objects[position]`, with that object, whose count `takeCount(forObjectAt:of:)`
    /// took; gives back the old entry's count.
    @inline(__always)
    func replaceEntry(countedObjectAt position: Int, of objects: UnsafeBufferPointer<AnyObject>, at index: Int) {
        clearEntry(at: index)
        entries[index] = Self.address(of: position, in: objects)
    }

    @inline(__always)
    private func replaceEntry(address objectAddress: UnsafeMutableRawPointer, at index: Int) {
        // Retain the new object's memory first: it may be the same object.
        let address = swift_unownedRetain(objectAddress)
        clearEntry(at: index)
        entries[index] = address
    }

    /// Gives back the entry's unowned count; the slot then has no entry.
    @inline(__always)
    func clearEntry(at index: Int) {
        if let address = entries[index] { swift_unownedRelease(address) }
        entries[index] = nil
    }

    /// Copies full slot `index` of `source` (key, entry and its count) into
    /// slot `target`, which is not full, and marks it full. The source slot
    /// no longer owns its count: `source` must be destroyed without
    /// releasing entries.
    @inline(__always)
    func move(_ index: Int, of source: RegistrySlots, to target: Int) {
        rowIDs[target] = source.rowIDs[index]
        states[target] = .full
        entries[target] = source.entries[index]
    }
}
#endif
