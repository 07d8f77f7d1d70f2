import Foundation

/// One step of a model-based sequence. Steps name objects by serial and
/// carry their values, so that a step means the same when the steps before
/// it are dropped (the shrinker does that): a step whose objects are gone,
/// or that would change nothing, is skipped (see `MBRunner.applies`).
enum MBStep: Equatable {
    /// `let x = Entity(…); context.insert(x)`
    case insert(MBEntity, serial: Int, [MBValue])
    /// A new object related to `holder` through `relationship` (appended to
    /// a to-many, or set as a to-one), which inserts it.
    case insertRelated(holder: Int, relationship: String, serial: Int, [MBValue])
    case setAttribute(Int, attribute: Int, MBValue)
    /// `holder.relationship = member` (a to-one; nil clears it).
    case setToOne(holder: Int, relationship: String, member: Int?)
    /// `holder.relationship.append(member)`, in place.
    case append(holder: Int, relationship: String, member: Int)
    /// `holder.relationship.removeAll { $0 === member }`, in place.
    case remove(holder: Int, relationship: String, member: Int)
    /// `holder.relationship = members` (a whole to-many, as a new list).
    case assign(holder: Int, relationship: String, members: [Int])
    /// The to-many's current members in another order, shuffled with `seed`.
    case reorder(holder: Int, relationship: String, seed: UInt64)
    case delete(Int)
    /// `try context.delete(model: Entity.self, where: #Predicate { $0.attribute == value })`
    /// on the entity's `bulkDeleteAttribute`.
    case deleteWhere(MBEntity, MBValue)
    case save
    case rollback
    /// Compares a fresh context's objects with the saved state, optionally
    /// loading relationships by prefetching.
    case refetch(prefetch: Bool)
    /// Drops the container and context (unsaved changes are lost) and opens the file again.
    case reopen
}

/// Makes random steps that fit the oracle's current state: they name
/// objects that exist and relationships that can change.
struct MBGenerator {
    var random: SeededGenerator
    private(set) var nextSerial = 1

    init(seed: UInt64) { random = SeededGenerator(seed: seed) }

    private mutating func pick<T>(_ values: [T]) -> T? {
        values.isEmpty ? nil : values[Int(random.next(upperBound: UInt64(values.count)))]
    }

    private mutating func chance(_ percent: UInt64) -> Bool { random.next(upperBound: 100) < percent }

    private mutating func values(for entity: MBEntity) -> [MBValue] {
        entity.attributes.map { pick($0.pool)! }
    }

    private mutating func newSerial() -> Int {
        defer { nextSerial += 1 }
        return nextSerial
    }

    /// A step for the current state; tries again until a kind of step
    /// finds the objects it needs.
    mutating func step(for oracle: MBOracle) -> MBStep {
        while true {
            if let step = attempt(oracle) { return step }
        }
    }

    private mutating func attempt(_ oracle: MBOracle) -> MBStep? {
        let all = MBEntity.allCases.flatMap { oracle.live($0) }
        // A small graph grows first: most steps need objects to act on.
        if all.count < 5 && chance(50) { return insertStep() }
        switch random.next(upperBound: 100 as UInt64) {
        case 0..<10:
            return insertStep()
        case 10..<18:
            guard let holder = pick(all), let entity = oracle.objects[holder]?.entity,
                let relationship = pick(entity.relationships)
            else { return nil }
            return .insertRelated(
                holder: holder, relationship: relationship.name, serial: newSerial(),
                values(for: relationship.destination))
        case 18..<30:
            // Deleted objects' attributes may change too (nothing is written).
            let changeable = all + oracle.deletedSerials.sorted()
            guard let serial = pick(changeable), let entity = oracle.objects[serial]?.entity else { return nil }
            let index = Int(random.next(upperBound: UInt64(entity.attributes.count)))
            return .setAttribute(serial, attribute: index, pick(entity.attributes[index].pool)!)
        case 30..<72:
            return relationshipStep(oracle, all: all)
        case 72..<79:
            // Mostly objects that hold others, where the delete rules have work.
            if chance(15) {
                let entity = pick(MBEntity.allCases)!
                return .deleteWhere(entity, pick(entity.attributes[entity.bulkDeleteAttribute].pool)!)
            }
            let holders = all.filter { oracle.objects[$0]?.relationships.contains { !$0.isEmpty } ?? false }
            return pick(holders.isEmpty || chance(25) ? all : holders).map { .delete($0) }
        case 79..<90:
            return .save
        case 90..<94:
            return .rollback
        case 94..<97:
            return .refetch(prefetch: chance(50))
        default:
            return .reopen
        }
    }

    private mutating func insertStep() -> MBStep {
        let entity = pick(MBEntity.allCases)!
        return .insert(entity, serial: newSerial(), values(for: entity))
    }

    private mutating func relationshipStep(_ oracle: MBOracle, all: [Int]) -> MBStep? {
        // Every relationship of every live object, with its members and the
        // objects it could take, so that each kind of change picks among the
        // relationships it fits.
        let slots = all.flatMap { holder in
            (oracle.objects[holder]?.entity.relationships ?? []).enumerated().map { index, relationship in
                (
                    holder: holder, relationship: relationship, current: oracle.members(holder, index),
                    candidates: oracle.live(relationship.destination)
                )
            }
        }
        let toOne = slots.filter { !$0.relationship.isToMany }
        let toMany = slots.filter { $0.relationship.isToMany }
        switch random.next(upperBound: 10 as UInt64) {
        case 0..<3:
            guard let slot = pick(toOne) else { return nil }
            let member = chance(20) ? nil : pick(slot.candidates)
            return .setToOne(holder: slot.holder, relationship: slot.relationship.name, member: member)
        case 3..<6:
            guard let slot = pick(toMany.filter { slot in slot.candidates.contains { !slot.current.contains($0) } }),
                let member = pick(slot.candidates.filter { !slot.current.contains($0) })
            else { return nil }
            return .append(holder: slot.holder, relationship: slot.relationship.name, member: member)
        case 6..<7:
            guard let slot = pick(toMany.filter { !$0.current.isEmpty }), let member = pick(slot.current) else {
                return nil
            }
            return .remove(holder: slot.holder, relationship: slot.relationship.name, member: member)
        case 7..<9:
            guard let slot = pick(toMany.filter { $0.current.count > 1 }) else { return nil }
            return .reorder(holder: slot.holder, relationship: slot.relationship.name, seed: random.next())
        default:
            guard let slot = pick(toMany) else { return nil }
            // Mostly the current members with some changes, so that an
            // assignment both keeps and moves objects.
            var members = slot.current.filter { _ in chance(70) } + slot.candidates.filter { !slot.current.contains($0) && chance(30) }
            members.shuffle(using: &random)
            return .assign(holder: slot.holder, relationship: slot.relationship.name, members: members)
        }
    }
}

extension MBOracle {
    /// What a step did to the oracle.
    enum Outcome: Equatable {
        /// The step does not fit the state (its objects are gone, or it
        /// would change nothing) and is left out.
        case skipped
        case applied
        /// A save that a `.deny` rule blocks: nothing changed.
        case denied(holder: Int, relationship: String)
    }

    /// Applies `step` as SwiftData would.
    mutating func apply(_ step: MBStep) -> Outcome {
        switch step {
        case .insert(let entity, let serial, let values):
            guard objects[serial] == nil else { return .skipped }
            insert(serial, entity, values)
        case .insertRelated(let holder, let name, let serial, let values):
            guard objects[serial] == nil, isLive(holder), case let (index, relationship)? = relationshipOf(holder, name) else {
                return .skipped
            }
            make(serial, relationship.destination, values)
            setRelationship(holder, index, to: relationship.isToMany ? members(holder, index) + [serial] : [serial], inPlace: relationship.isToMany)
        case .setAttribute(let serial, let index, let value):
            guard isLive(serial) || lifecycle[serial] == .deleted else { return .skipped }
            setAttribute(serial, index, value)
        case .setToOne(let holder, let name, let member):
            guard isLive(holder), member.map(isLive) ?? true, case let (index, _)? = relationshipOf(holder, name) else {
                return .skipped
            }
            setRelationship(holder, index, to: member.map { [$0] } ?? [])
        case .append(let holder, let name, let member):
            guard isLive(holder), isLive(member), case let (index, _)? = relationshipOf(holder, name),
                !members(holder, index).contains(member)
            else { return .skipped }
            setRelationship(holder, index, to: members(holder, index) + [member], inPlace: true)
        case .remove(let holder, let name, let member):
            guard isLive(holder), case let (index, _)? = relationshipOf(holder, name), members(holder, index).contains(member)
            else { return .skipped }
            setRelationship(holder, index, to: members(holder, index).filter { $0 != member }, inPlace: true)
        case .assign(let holder, let name, let list):
            guard isLive(holder), case let (index, _)? = relationshipOf(holder, name) else { return .skipped }
            setRelationship(holder, index, to: list.filter(isLive))
        case .reorder(let holder, let name, let seed):
            guard isLive(holder), case let (index, _)? = relationshipOf(holder, name) else { return .skipped }
            let current = members(holder, index)
            guard current.count > 1 else { return .skipped }
            var random = SeededGenerator(seed: seed)
            var shuffled = current.shuffled(using: &random)
            if shuffled == current { shuffled = Array(current.dropFirst()) + [current[0]] }
            setRelationship(holder, index, to: shuffled)
        case .delete(let serial):
            guard isLive(serial) else { return .skipped }
            delete(serial)
        case .deleteWhere(let entity, let value):
            // The fetch behind it sees unsaved values, and not deleted objects.
            let matching = live(entity).filter { objects[$0]?.attributes[entity.bulkDeleteAttribute] == value }
            guard !matching.isEmpty else { return .skipped }
            for serial in matching { delete(serial) }
        case .save:
            if let denial = save() { return .denied(holder: denial.holder, relationship: denial.relationship) }
        case .rollback, .reopen:
            rollback()
        case .refetch:
            break
        }
        return .applied
    }

    /// A to-many or to-one relationship of `holder`'s entity, by name.
    private func relationshipOf(_ holder: Int, _ name: String) -> (Int, MBRelationship)? {
        guard let entity = objects[holder]?.entity,
            let index = entity.relationships.firstIndex(where: { $0.name == name })
        else { return nil }
        return (index, entity.relationships[index])
    }
}
