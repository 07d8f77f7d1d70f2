// The safe build of `RegistrySlots` (see RegistrySlots.swift for what the
// type is and the invariants of the default build), selected by the
// `SafeReferences` package trait, which defines MODELSTORE_SAFE_REFERENCES:
// `swift build --traits default,SafeReferences`. Swift arrays, bounds-checked, and
// `weak` entries: ordinary ARC, no runtime entry points declared by hand, no
// buffer managed by hand. A weak reference reads nil once its object's
// deinit has begun, which is what the default build's `swift_tryRetain`
// gives, so both builds behave the same; this one gives every registered
// object a side table and checks each array write for uniqueness.
#if MODELSTORE_SAFE_REFERENCES

/// The state of one slot of a `RowRegistry`.
enum RegistrySlotState: UInt8 {
    case empty, full, deleted
}

/// The slots of a `RowRegistry`: row keys, slot states and weak entries.
/// Copies share the storage, as the default build's buffers are shared.
struct RegistrySlots {
    /// One slot's entry: `isSet` tells an entry whose object went (nil)
    /// from no entry at all.
    private struct Entry {
        weak var object: AnyObject?
        var isSet = false
    }

    private final class Storage {
        var rowIDs: [Int64]
        var states: [RegistrySlotState]
        var entries: [Entry]

        init(capacity: Int) {
            rowIDs = Array(repeating: 0, count: capacity)
            states = Array(repeating: .empty, count: capacity)
            entries = Array(repeating: Entry(), count: capacity)
        }
    }

    private let storage: Storage
    /// The number of slots.
    let capacity: Int

    /// Makes `capacity` slots, all empty.
    init(capacity: Int) {
        self.capacity = capacity
        storage = Storage(capacity: capacity)
    }

    /// Drops the entries; ARC frees the rest.
    func destroy(releasingEntries: Bool) {
        storage.entries = []
    }

    func state(at index: Int) -> RegistrySlotState { storage.states[index] }

    func setState(_ state: RegistrySlotState, at index: Int) { storage.states[index] = state }

    /// Makes every slot empty.
    func resetStates() {
        storage.states = Array(repeating: .empty, count: capacity)
    }

    func rowID(at index: Int) -> Int64 { storage.rowIDs[index] }

    func setRowID(_ rowID: Int64, at index: Int) { storage.rowIDs[index] = rowID }

    /// The entry's object; nil once its deinit has begun.
    func object(at index: Int) -> AnyObject? { storage.entries[index].object }

    /// Whether the entry's object is being freed or is gone.
    func isFreed(at index: Int) -> Bool { storage.entries[index].object == nil }

    /// Whether the slot's entry refers to `object`.
    func holds(_ object: AnyObject, at index: Int) -> Bool { storage.entries[index].object === object }

    /// Whether the slot's entry refers to `objects[position]`.
    func holds(objectAt position: Int, of objects: UnsafeBufferPointer<AnyObject>, at index: Int) -> Bool {
        holds(objects[position], at: index)
    }

    /// Nothing to take: a weak entry holds no count.
    static func takeCount(forObjectAt position: Int, of objects: UnsafeBufferPointer<AnyObject>) {}

    /// Nothing to give back.
    static func giveBackCount(ofObjectAt position: Int, of objects: UnsafeBufferPointer<AnyObject>) {}

    /// Stores an entry for `objects[position]` in a slot that is not full.
    func initializeEntry(countedObjectAt position: Int, of objects: UnsafeBufferPointer<AnyObject>, at index: Int) {
        initializeEntry(objects[position], at: index)
    }

    /// Replaces the entry of a full slot with `objects[position]`.
    func replaceEntry(countedObjectAt position: Int, of objects: UnsafeBufferPointer<AnyObject>, at index: Int) {
        replaceEntry(objects[position], at: index)
    }

    /// Whether a full slot has an entry at all (invariant checks).
    func hasEntry(at index: Int) -> Bool { storage.entries[index].isSet }

    /// Stores an entry for `object` in a slot that is not full.
    func initializeEntry(_ object: AnyObject, at index: Int) {
        storage.entries[index] = Entry(object: object, isSet: true)
    }

    /// Replaces the entry of a full slot.
    func replaceEntry(_ object: AnyObject, at index: Int) {
        storage.entries[index] = Entry(object: object, isSet: true)
    }

    /// Clears the slot's entry.
    func clearEntry(at index: Int) {
        storage.entries[index] = Entry()
    }

    /// Copies full slot `index` of `source` into slot `target` and marks it
    /// full.
    func move(_ index: Int, of source: RegistrySlots, to target: Int) {
        storage.rowIDs[target] = source.storage.rowIDs[index]
        storage.states[target] = .full
        storage.entries[target] = source.storage.entries[index]
    }
}
#endif
