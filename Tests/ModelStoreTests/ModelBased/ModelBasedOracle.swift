import Foundation

/// The plain in-memory model the model-based test compares ModelStore with:
/// the object graph as values (objects by serial, relationships as lists of
/// serials), with SwiftData's semantics written out directly.
///
/// - Inverses are kept in step at once (Core Data's inverse maintenance):
///   setting a to-one moves the object to the end of the new holder's
///   to-many and out of the old one's; adding to a many-to-many adds to the
///   other side's end; a to-many holds an object once.
/// - Relating a new object to one in the context inserts it.
/// - Writing a value equal to the current one is no change; a property
///   changed and set back stays changed until the save.
/// - Deleting a saved object marks it; the delete rules run at `save()`
///   (cascade at any depth, nullify, deny), as the README says. Until then
///   relationships still hold it. Deleting a new object takes it out of the
///   context at once; at the save, references to it are dropped and its
///   cascades run, as Core Data's delete propagation does for it.
/// - A `.deny` that blocks makes the save throw and change nothing.
/// - `save()` makes the current state the saved state; `rollback()` (and
///   reopening the store) brings the saved state back.
struct MBOracle {
    enum Lifecycle: Equatable {
        /// Inserted, not saved yet.
        case inserted
        /// Saved and in the context.
        case persisted
        /// Saved, and deleted since: gone at the next save.
        case deleted
        /// Inserted and deleted again: out of the context; it stays only as
        /// long as relationships still refer to it.
        case discarded
    }

    struct Object: Equatable {
        let entity: MBEntity
        var attributes: [MBValue]
        /// By relationship index; a to-one holds none or one serial.
        var relationships: [[Int]]
    }

    /// Every object in memory that the context knows of, or that a
    /// relationship still refers to, by serial.
    private(set) var objects: [Int: Object] = [:]
    private(set) var lifecycle: [Int: Lifecycle] = [:]
    /// The names of the properties changed since the last save, per object.
    private(set) var dirty: [Int: Set<String>] = [:]
    /// The inserted objects, in the order they were inserted.
    private(set) var insertedOrder: [Int] = []
    /// The saved objects as the store holds them.
    private(set) var saved: [Int: Object] = [:]
    /// The objects a save deleted (deleted, or reached by a cascade): they
    /// stay `isDeleted`. Inserted objects deleted again are not among them.
    private(set) var deletedBySaves: Set<Int> = []

    // MARK: Queries

    /// Objects in the context that a fetch returns: inserted or saved, not deleted.
    func isLive(_ serial: Int) -> Bool {
        lifecycle[serial] == .inserted || lifecycle[serial] == .persisted
    }

    func live(_ entity: MBEntity) -> [Int] {
        objects.keys.filter { isLive($0) && objects[$0]?.entity == entity }.sorted()
    }

    var deletedSerials: Set<Int> { Set(lifecycle.filter { $0.value == .deleted }.keys) }

    /// Saved objects with changed properties (deleted ones are not listed, as
    /// `changedModelsArray` does not list them).
    var changedSerials: Set<Int> {
        Set(dirty.filter { !$0.value.isEmpty && lifecycle[$0.key] == .persisted }.keys)
    }

    var hasChanges: Bool {
        !insertedOrder.isEmpty || !deletedSerials.isEmpty || !changedSerials.isEmpty
    }

    /// `model.hasChanges`.
    func objectHasChanges(_ serial: Int) -> Bool {
        switch lifecycle[serial] {
        case .inserted, .deleted: true
        case .persisted: !(dirty[serial] ?? []).isEmpty
        case .discarded, nil: false
        }
    }

    func members(_ serial: Int, _ relationship: Int) -> [Int] {
        objects[serial]?.relationships[relationship] ?? []
    }

    // MARK: Changes

    /// Inserts a new object (and nothing else: a new object of the test
    /// reaches no other object when it is inserted).
    mutating func insert(_ serial: Int, _ entity: MBEntity, _ attributes: [MBValue]) {
        objects[serial] = Object(
            entity: entity, attributes: attributes,
            relationships: Array(repeating: [], count: entity.relationships.count))
        lifecycle[serial] = .inserted
        insertedOrder.append(serial)
    }

    /// Makes a new object without inserting it; relating it inserts it.
    mutating func make(_ serial: Int, _ entity: MBEntity, _ attributes: [MBValue]) {
        insert(serial, entity, attributes)
        lifecycle[serial] = nil
        insertedOrder.removeLast()
    }

    mutating func setAttribute(_ serial: Int, _ index: Int, _ value: MBValue) {
        guard let object = objects[serial], object.attributes[index] != value else { return }
        objects[serial]?.attributes[index] = value
        dirty[serial, default: []].insert(object.entity.attributes[index].name)
    }

    /// Sets a relationship to exactly `new`, as the app's write through the
    /// property does, with the inverse kept in step. `initiator` is the
    /// object whose own change this mirrors: it is not written back into.
    /// `inPlace` is an in-place mutation (`append`, `removeAll`), which
    /// counts as a change even when it changes nothing.
    mutating func setRelationship(
        _ serial: Int, _ index: Int, to new: [Int], initiator: Int? = nil, inPlace: Bool = false
    ) {
        guard let object = objects[serial] else { return }
        let old = object.relationships[index]
        let relationship = object.entity.relationships[index]
        if inPlace { dirty[serial, default: []].insert(relationship.name) }
        guard old != new else { return }
        dirty[serial, default: []].insert(relationship.name)
        objects[serial]?.relationships[index] = new
        let added = new.filter { !old.contains($0) }
        let removed = old.filter { !new.contains($0) }
        // Relating objects brings them into one context.
        if isInContext(serial) {
            for member in added where lifecycle[member] == nil { adopt(member) }
        } else if added.contains(where: isInContext) {
            adopt(serial)
        }
        guard let inverseName = relationship.inverse,
            let inverse = relationship.destination.relationships.firstIndex(where: { $0.name == inverseName })
        else { return }
        let isToMany = relationship.destination.relationships[inverse].isToMany
        for member in removed where member != initiator {
            let current = members(member, inverse)
            if current.contains(serial) {
                setRelationship(member, inverse, to: current.filter { $0 != serial }, initiator: serial)
            }
        }
        for member in added where member != initiator {
            let current = members(member, inverse)
            if isToMany {
                if !current.contains(serial) { setRelationship(member, inverse, to: current + [serial], initiator: serial) }
            } else if current != [serial] {
                setRelationship(member, inverse, to: [serial], initiator: serial)
            }
        }
    }

    /// In the context: inserted, saved, or deleted and not yet saved.
    func isInContext(_ serial: Int) -> Bool {
        lifecycle[serial] == .inserted || lifecycle[serial] == .persisted || lifecycle[serial] == .deleted
    }

    private mutating func adopt(_ serial: Int) {
        lifecycle[serial] = .inserted
        insertedOrder.append(serial)
    }

    mutating func delete(_ serial: Int) {
        switch lifecycle[serial] {
        case .inserted:
            lifecycle[serial] = .discarded
            insertedOrder.removeAll { $0 == serial }
            dirty[serial] = nil
        case .persisted:
            lifecycle[serial] = .deleted
        case .deleted, .discarded, nil:
            break
        }
    }

    /// What a save does, or the holder and relationship of a `.deny` that
    /// blocks it (then nothing changes).
    mutating func save() -> (holder: Int, relationship: String)? {
        var gone = Set<Int>()
        var pending: [Int] = []
        for (serial, state) in lifecycle where state == .deleted || state == .discarded {
            gone.insert(serial)
            pending.append(serial)
        }
        pending.sort()
        var denials: [(holder: Int, relationship: String, members: [Int])] = []
        while !pending.isEmpty {
            let serial = pending.removeFirst()
            guard let object = objects[serial] else { continue }
            for (index, relationship) in object.entity.relationships.enumerated() {
                switch relationship.deleteRule {
                case .cascade:
                    for member in object.relationships[index] where lifecycle[member] != .discarded {
                        if gone.insert(member).inserted { pending.append(member) }
                    }
                case .deny:
                    // A new object deleted again was never stored: nothing to protect.
                    if lifecycle[serial] != .discarded {
                        denials.append((serial, relationship.name, object.relationships[index]))
                    }
                case .nullify:
                    break
                }
            }
        }
        for denial in denials where denial.members.contains(where: { !gone.contains($0) }) {
            return (denial.holder, denial.relationship)
        }
        for serial in gone {
            if lifecycle[serial] != .discarded { deletedBySaves.insert(serial) }
            objects[serial] = nil
            lifecycle[serial] = nil
        }
        for (serial, var object) in objects {
            if lifecycle[serial] == .inserted { lifecycle[serial] = .persisted }
            for index in object.relationships.indices { object.relationships[index].removeAll { gone.contains($0) } }
            objects[serial] = object
        }
        // Objects outside the context (made, never related) are not saved.
        for (serial, _) in objects where lifecycle[serial] == nil { objects[serial] = nil }
        dirty = [:]
        insertedOrder = []
        saved = objects
        return nil
    }

    /// Back to the saved state: `rollback()`, or a store opened again.
    mutating func rollback() {
        objects = saved
        lifecycle = saved.mapValues { _ in .persisted }
        dirty = [:]
        insertedOrder = []
    }
}
