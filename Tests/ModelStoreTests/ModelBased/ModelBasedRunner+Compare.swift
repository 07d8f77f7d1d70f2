import Foundation
@testable import ModelStore

// The comparisons of the model-based test: the working context against the
// oracle's current state (after every step), and a fresh context's view of
// the store against the oracle's saved state (after saves, refetches and
// reopens).

extension MBRunner {
    /// Compares the working context with the oracle: which objects a fetch
    /// returns, every attribute, the pending-change state of the context and
    /// of each object, and with `relationships`, every relationship's
    /// contents and order.
    func compareContext(relationships: Bool) throws {
        var real: [Int: AnyObject] = [:]
        for entity in MBEntity.allCases {
            // Unsorted here (sorting costs more than the rest of the fetch);
            // the fresh contexts of `compareStored` fetch sorted.
            let fetched = try fetchAll(entity, in: context, prefetch: false, sorted: false)
                .map { (serial: MBSchema.identify($0).serial, object: $0) }.sorted { $0.serial < $1.serial }
            let serials = fetched.map(\.serial)
            let expected = oracle.live(entity)
            if serials != expected {
                throw fail("fetch \(entity.className)", "fetch(\(entity.className)) returned \(names(serials)), expected \(names(expected))")
            }
            let count = try fetchCount(entity, in: context)
            if count != expected.count {
                throw fail("fetchCount \(entity.className)", "fetchCount(\(entity.className)) is \(count), expected \(expected.count)")
            }
            for (serial, object) in fetched {
                // One row, one object: the object the app holds is the one a fetch returns.
                if let kept = held[serial], kept !== object {
                    throw fail("identity \(entity.className)", "fetch(\(entity.className)) returned another object for \(name(serial)) than the one held")
                }
                real[serial] = object
                if mode.holdsObjects { held[serial] = object as? any PersistentModel }
            }
        }
        // Held objects the oracle no longer has (deleted and saved, rolled
        // back, or inserted and deleted again) are out of the context.
        for (serial, object) in held.sorted(by: { $0.key < $1.key }) where !oracle.isInContext(serial) {
            if object.modelContext != nil || object.hasChanges {
                throw fail(
                    "held object left",
                    "\(name(serial)) is gone, but its modelContext is \(String(describing: object.modelContext)) and hasChanges \(object.hasChanges)")
            }
            if oracle.deletedBySaves.contains(serial) && !object.isDeleted {
                throw fail("held object isDeleted", "\(name(serial)) was deleted by a save, but isDeleted is false")
            }
        }
        for object in context.deletedModelsArray { real[MBSchema.identify(object).serial] = object }
        try comparePendingState(real)
        for (serial, object) in real.sorted(by: { $0.key < $1.key }) {
            guard let expected = oracle.objects[serial] else { continue }
            try compareAttributes(object, serial: serial, expected: expected.attributes, state: "")
            if relationships { try compareRelationships(object, serial: serial, expected: expected, state: "") }
            try compareObjectState(object, serial: serial)
        }
    }

    private func comparePendingState(_ real: [Int: AnyObject]) throws {
        let inserted = context.insertedModelsArray.map { MBSchema.identify($0).serial }
        if inserted != oracle.insertedOrder {
            throw fail("insertedModelsArray", "insertedModelsArray is \(names(inserted)), expected \(names(oracle.insertedOrder))")
        }
        let changed = context.changedModelsArray.map { MBSchema.identify($0).serial }
        if Set(changed) != oracle.changedSerials || changed.count != Set(changed).count {
            throw fail("changedModelsArray", "changedModelsArray is \(names(changed)), expected \(names(oracle.changedSerials.sorted()))")
        }
        let deleted = context.deletedModelsArray.map { MBSchema.identify($0).serial }
        if Set(deleted) != oracle.deletedSerials || deleted.count != Set(deleted).count {
            throw fail("deletedModelsArray", "deletedModelsArray is \(names(deleted)), expected \(names(oracle.deletedSerials.sorted()))")
        }
        if context.hasChanges != oracle.hasChanges {
            throw fail("hasChanges", "context.hasChanges is \(context.hasChanges), expected \(oracle.hasChanges)")
        }
    }

    /// `hasChanges`, `isDeleted`, the changed properties and their committed values of one object.
    private func compareObjectState(_ object: AnyObject, serial: Int) throws {
        guard let model = object as? any PersistentModel, let entity = oracle.objects[serial]?.entity else { return }
        let who = name(serial)
        if model.hasChanges != oracle.objectHasChanges(serial) {
            throw fail("model.hasChanges", "\(who).hasChanges is \(model.hasChanges), expected \(oracle.objectHasChanges(serial))")
        }
        let isDeleted = oracle.lifecycle[serial] == .deleted
        if model.isDeleted != isDeleted {
            throw fail("model.isDeleted", "\(who).isDeleted is \(model.isDeleted), expected \(isDeleted)")
        }
        guard oracle.lifecycle[serial] == .persisted else { return }
        let changed = Set(context.changedPropertyNames(of: model))
        let expected = oracle.dirty[serial] ?? []
        if changed != expected {
            throw fail("changedPropertyNames", "changedPropertyNames(of: \(who)) is \(changed.sorted()), expected \(expected.sorted())")
        }
        guard let saved = oracle.saved[serial] else {
            throw fail("oracle", "\(who) is saved but has no saved state in the oracle")
        }
        for (index, attribute) in entity.attributes.enumerated() {
            let committed = attribute.committed(context, object)
            if committed != saved.attributes[index] {
                throw fail(
                    "committedValue \(entity.className).\(attribute.name)",
                    "committedValue(of: \(who), \\.\(attribute.name)) is \(committed.map { "\($0)" } ?? "nil (none)"), expected \(saved.attributes[index])")
            }
        }
    }

    private func compareAttributes(_ object: AnyObject, serial: Int, expected: [MBValue], state: String) throws {
        let entity = MBSchema.identify(object).entity
        for (index, attribute) in entity.attributes.enumerated() {
            let value = attribute.get(object)
            if value != expected[index] {
                throw fail(
                    "\(state)attribute \(entity.className).\(attribute.name)",
                    "\(state)\(name(serial)).\(attribute.name) is \(value), expected \(expected[index])")
            }
        }
    }

    private func compareRelationships(_ object: AnyObject, serial: Int, expected: MBOracle.Object, state: String) throws {
        for (index, relationship) in expected.entity.relationships.enumerated() {
            let members = relationship.get(object).map { MBSchema.identify($0).serial }
            if members != expected.relationships[index] {
                throw fail(
                    "\(state)relationship \(expected.entity.className).\(relationship.name)",
                    "\(state)\(name(serial)).\(relationship.name) is \(names(members)), expected \(names(expected.relationships[index]))")
            }
        }
    }

    /// Compares what a fresh context reads from the store with the oracle's
    /// saved state, every attribute and relationship (loaded on access, or
    /// prefetched with `prefetch`).
    func compareStored(prefetch: Bool) throws {
        guard let container else { throw fail("container", "no container") }
        let fresh = ModelContext(container)
        for entity in MBEntity.allCases {
            let fetched = try fetchAll(entity, in: fresh, prefetch: prefetch)
            let serials = fetched.map { MBSchema.identify($0).serial }
            let expected = oracle.saved.filter { $0.value.entity == entity }.keys.sorted()
            if serials != expected {
                throw fail("stored: fetch \(entity.className)", "the store holds \(entity.className) \(names(serials)), expected \(names(expected))")
            }
            for (serial, object) in zip(serials, fetched) {
                guard let saved = oracle.saved[serial] else { continue }
                try compareAttributes(object, serial: serial, expected: saved.attributes, state: "stored: ")
                try compareRelationships(object, serial: serial, expected: saved, state: "stored: ")
            }
        }
        if fresh.hasChanges { throw fail("stored: hasChanges", "a fresh context that only read has changes") }
        if let error = fresh.lastFaultError { throw fail("stored: fault", "a relationship failed to load: \(error)") }
    }

    private func fetchAll(_ entity: MBEntity, in context: ModelContext, prefetch: Bool, sorted: Bool = true) throws
        -> [AnyObject]
    {
        switch entity {
        case .owner:
            var descriptor = FetchDescriptor<MBOwner>(sortBy: sorted ? [SortDescriptor(\.serial)] : [])
            if prefetch { descriptor.relationshipKeyPathsForPrefetching = [\.items, \.tags, \.favorite] }
            return try context.fetch(descriptor)
        case .item:
            var descriptor = FetchDescriptor<MBItem>(sortBy: sorted ? [SortDescriptor(\.serial)] : [])
            if prefetch { descriptor.relationshipKeyPathsForPrefetching = [\.owner, \.tag] }
            return try context.fetch(descriptor)
        case .tag:
            var descriptor = FetchDescriptor<MBTag>(sortBy: sorted ? [SortDescriptor(\.serial)] : [])
            if prefetch { descriptor.relationshipKeyPathsForPrefetching = [\.owners, \.items] }
            return try context.fetch(descriptor)
        }
    }

    private func fetchCount(_ entity: MBEntity, in context: ModelContext) throws -> Int {
        switch entity {
        case .owner: try context.fetchCount(FetchDescriptor<MBOwner>())
        case .item: try context.fetchCount(FetchDescriptor<MBItem>())
        case .tag: try context.fetchCount(FetchDescriptor<MBTag>())
        }
    }
}
