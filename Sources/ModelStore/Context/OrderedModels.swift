/// Objects in the order they were added, with O(1) membership and removal.
/// Removal leaves a hole that listing skips, so that removing from a large
/// set stays O(1); the holes are compacted when they outnumber the objects.
///
/// Each object's position is kept in its state (`ModelState.pendingSlots`),
/// not in a dictionary: a save of N new or changed objects otherwise hashed
/// each of them into it, which cost more than its row's UPDATE.
///
/// The list of changed objects also keeps, beside each object, the last
/// saved value of its first changed property (see
/// `ModelContext.committedValue(of:state:ordinal:)`): kept in every
/// object's state, it took 40 bytes of every fetched object, changed or not.
/// A parallel array of concrete type, not a generic payload: the generic
/// slot went through the runtime's value witnesses on every append.
struct OrderedModels {
    /// Which of the object's positions this list keeps.
    enum List {
        case inserted, changed, deleted
    }

    private let list: List
    private var slots: [(any PersistentModel)?] = []
    /// For the changed list, each slot's committed value; empty otherwise.
    private var committed: [CommittedValue] = []
    private(set) var count = 0

    init(_ list: List) {
        self.list = list
    }

    var isEmpty: Bool { count == 0 }

    /// The objects in the order they were added.
    /// - Complexity: O(objects added since the last compaction).
    var models: [any PersistentModel] { slots.compactMap { $0 } }

    /// Calls `body` with each object, in the order they were added. The list
    /// as it was when the call began: objects that `body` adds or removes
    /// do not change the walk.
    func forEach(_ body: (any PersistentModel) throws -> Void) rethrows {
        // An explicit copy (one retain of the buffer), so that a change to
        // the list from `body` copies it instead of changing what is walked.
        let snapshot = slots
        for case let model? in snapshot {
            try body(model)
        }
    }

    /// The objects that `isIncluded` accepts, in the order they were added.
    /// - Complexity: O(objects added since the last compaction).
    func models(where isIncluded: (any PersistentModel) throws -> Bool) rethrows -> [any PersistentModel] {
        var result: [any PersistentModel] = []
        result.reserveCapacity(count)
        for case let model? in slots where try isIncluded(model) {
            result.append(model)
        }
        return result
    }

    mutating func append(_ model: any PersistentModel) {
        precondition(list != .changed, "changed objects come with their committed value")
        let state = model._$modelState
        guard slot(of: model, state: state) == nil else { return }
        setSlot(slots.count, of: state)
        slots.append(model)
        count += 1
    }

    /// Adds a changed object, whose state is `state`, with the last saved
    /// value of its first changed property; an object already in the list
    /// keeps its position and takes the new value.
    mutating func append(_ model: any PersistentModel, state: ModelState, committed value: consuming CommittedValue) {
        precondition(list == .changed, "only the list of changed objects keeps committed values")
        if let index = slot(of: model, state: state) {
            committed[index] = value
            return
        }
        setSlot(slots.count, of: state)
        slots.append(model)
        committed.append(value)
        count += 1
    }

    /// The committed value kept with `model` (whose state is `state`); nil
    /// when it is not in the list or has none.
    func committedValue(of model: any PersistentModel, state: ModelState) -> CommittedValue? {
        guard let index = slot(of: model, state: state), index < committed.count, committed[index].ordinal >= 0
        else { return nil }
        return committed[index]
    }

    mutating func remove(_ model: any PersistentModel) {
        let state = model._$modelState
        guard let index = slot(of: model, state: state) else { return }
        slots[index] = nil
        if index < committed.count { committed[index] = .none }
        setSlot(-1, of: state)
        count -= 1
        if slots.count > 32 && count < slots.count / 2 { compact() }
    }

    /// Empties the list. The objects keep their stale positions, which
    /// `slot(of:state:)` tells from real ones.
    mutating func removeAll() {
        slots.removeAll()
        committed.removeAll()
        count = 0
    }

    /// The object's position, if it is in the list: the position its state
    /// records, when the list holds the object there.
    private func slot(of model: any PersistentModel, state: ModelState) -> Int? {
        let index =
            switch list {
            case .inserted: Int(state.pendingSlots.inserted)
            case .changed: Int(state.pendingSlots.changed)
            case .deleted: Int(state.pendingSlots.deleted)
            }
        guard index >= 0, index < slots.count, slots[index] === model else { return nil }
        return index
    }

    private func setSlot(_ position: Int, of state: ModelState) {
        // Two billion pending objects would not fit in memory first.
        let index = Int32(position)
        switch list {
        case .inserted: state.pendingSlots.inserted = index
        case .changed: state.pendingSlots.changed = index
        case .deleted: state.pendingSlots.deleted = index
        }
    }

    private mutating func compact() {
        if !committed.isEmpty {
            committed = zip(slots, committed).compactMap { slot, value in slot == nil ? nil : value }
        }
        slots = slots.filter { $0 != nil }
        for (index, model) in slots.enumerated() {
            if let model { setSlot(index, of: model._$modelState) }
        }
    }
}
