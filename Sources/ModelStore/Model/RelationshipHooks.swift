// The relationship overloads of the hooks that `@Model`'s generated
// accessors call. The compiler picks these for properties whose type is a
// `RelationshipValue` and the generic ones in PersistentModel.swift for
// attributes.

extension PersistentModel {
    /// Loads relationship `ordinal` when it is a fault; called by generated
    /// getters. Nil when it is not a fault or cannot be loaded: the property
    /// then keeps its in-memory value (nil or empty), stays a fault, and the
    /// failure is reported (see LoadFailures.swift). For an object whose
    /// faults stay faults (see `StateLink.keepsFaults`), the getter returns
    /// the value without keeping it.
    ///
    /// Inlinable, so that the objects become the property's type in code
    /// specialized for it: unspecialized, the conversion asked the runtime
    /// for the array's metadata and grew it through witnesses.
    @inlinable
    @_documentation(visibility: internal)
    public func _$faultValue<Value: RelationshipValue>(_ ordinal: Int, as type: Value.Type) -> Value? {
        guard let related = _$faultModels(ordinal) else { return nil }
        if let value = related.value(as: Value.self) { return value }
        _$faultDidNotFit(ordinal, related)
        return nil
    }

    /// Loads relationship `ordinal` when it is a fault, before a generated
    /// setter or `_modify` writes it: as `_$faultValue`, but the relationship
    /// stops being a fault, whatever the load gave, so that the value written
    /// is the one read after (a fault would load the stored value again).
    @inlinable
    @_documentation(visibility: internal)
    public func _$faultValueBeforeWrite<Value: RelationshipValue>(_ ordinal: Int, as type: Value.Type) -> Value? {
        let value = _$faultValue(ordinal, as: type)
        _$modelState.resolveFault(ordinal)
        return value
    }

    /// The objects relationship fault `ordinal` resolves to, or nil; see
    /// `_$faultValue`.
    @usableFromInline
    func _$faultModels(_ ordinal: Int) -> RelatedObjects? {
        let state = _$modelState
        guard state.faults.contains(ordinal) else { return nil }
        // The table's copy of the class's relationships, when the object has
        // one, is a field read; the shared cache takes a lock.
        let relationships = state.table?.relationships ?? ModelRelationships.of(Self.self)
        guard let link = state.link, let owner = link.owner, let relationship = relationships.relationship(at: ordinal)
        else {
            // No owner: an object whose deletion was saved. Its row is gone,
            // and nothing in the store refers to it or from it.
            state.faults.remove(ordinal)
            return nil
        }
        if link.keepsFaults {
            guard let related = owner.loadRelationship(relationship, of: self) else { return nil }
            if relationship.schema.forwardsChanges {
                relationship.accessor.updateForwarding(of: self, adding: related.models, removing: [])
            }
            return related
        }
        let prefetched = state.extras?.prefetched.removeValue(forKey: ordinal)
        guard let related = prefetched ?? owner.loadRelationship(relationship, of: self) else {
            return nil
        }
        state.faults.remove(ordinal)
        state.extras?.faultKeys[ordinal] = nil
        if relationship.schema.forwardsChanges {
            relationship.accessor.updateForwarding(of: self, adding: related.models, removing: [])
        }
        return related
    }

    /// Reports a fault that resolved to objects its property cannot hold
    /// (several for a to-one: the store was edited without ModelStore) and
    /// makes it a fault again, so that it is not read as empty.
    @usableFromInline
    func _$faultDidNotFit(_ ordinal: Int, _ related: RelatedObjects) {
        let state = _$modelState
        let count = related.models.count
        state.faults.insert(ordinal)
        let table = state.table
        let error = ModelStoreError.invalidValue(
            entity: table?.name ?? Self.entityName,
            property: table.map { ordinal < $0.slots.count ? $0.slots[ordinal].name : "#\(ordinal)" } ?? "#\(ordinal)",
            row: state.rowID, reason: "\(count) related rows do not fit the relationship (several for a to-one?)",
            path: nil)
        if let owner = state.owner { owner.loadDidFail(error) } else { LoadFailures.report(error) }
    }

    /// A relationship setter's check: false when nothing changes (the same
    /// objects in the same order); otherwise records the change and mirrors
    /// it in the inverse relationship of the objects added and removed.
    @_documentation(visibility: internal)
    public func _$willChange<Value: RelationshipValue>(_ ordinal: Int, from old: Value, to new: Value) -> Bool {
        if old == new { return false }
        let state = _$modelState
        state.dropListShadow(ordinal)
        if state.recordsUndo { _$recordUndo(ordinal, from: old) }
        if !state.dirty.contains(ordinal) { _$recordChange(ordinal, from: old) }
        RelationshipMaintenance.relationshipWillChange(
            self, ordinal: ordinal, from: old._relatedObjects, to: new._relatedObjects,
            mirror: state.mirrorsRelationshipChanges)
        return true
    }

    /// Before an in-place mutation of a relationship (`trip.stops.append(stop)`):
    /// remembers the objects it held, so that the inverse can be updated after.
    /// Returns whether the registrar is to be told when the mutation ends,
    /// as the attributes' `_$willModify` does.
    ///
    /// A long list is remembered by its shadow (see ListShadow.swift), so
    /// that nothing else holds the property's array during the mutation and
    /// an append does not copy it; a short one by its array.
    @_documentation(visibility: internal)
    public func _$willModify<Value: RelationshipValue>(
        _ ordinal: Int, keyPath: @autoclosure () -> KeyPath<Self, Value>, current: Value
    ) -> Bool {
        let state = _$modelState
        let observed = state.hasRegistrar
        state.access(self, keyPath: keyPath())
        if state.recordsUndo { _$recordUndo(ordinal, from: current) }
        let objects = current._relatedObjects
        if let shadow = state.listShadow(ordinal, holding: objects) {
            if !state.dirty.contains(ordinal) {
                let saved = SavedListPrefix(shadow: shadow, count: shadow.members.count, valueType: Value.self)
                state.propertyWillChange(ordinal, from: saved, of: self)
            }
        } else {
            _$recordChange(ordinal, from: current)
            state.modifyingModels[ordinal] = objects
        }
        state.willSet(self, keyPath: keyPath(), notifiesRegistrar: observed)
        return observed
    }

    /// After an in-place mutation of a relationship: mirrors it in the
    /// inverse, and keeps the list's shadow, if it has one, in step.
    @_documentation(visibility: internal)
    public func _$didModify<Value: RelationshipValue>(
        _ ordinal: Int, keyPath: @autoclosure () -> KeyPath<Self, Value>, current: Value, observed: Bool
    ) {
        let state = _$modelState
        let new = current._relatedObjects
        if let old = state.modifyingModels.removeValue(forKey: ordinal) {
            RelationshipMaintenance.relationshipWillChange(
                self, ordinal: ordinal, from: old, to: new, mirror: state.mirrorsRelationshipChanges)
        } else if let shadow = state.extras?.listShadows[ordinal] {
            // One comparison serves the inverses and the shadow.
            let shared = ReferenceLists.commonPrefixCount(shadow.members, new)
            let changed = RelationshipMaintenance.relationshipWillChange(
                self, ordinal: ordinal, from: shadow.members, to: new, mirror: state.mirrorsRelationshipChanges,
                sharedPrefix: shared)
            // The comparison found each appended object absent from the
            // list before: the shadow can note it (see ListShadow).
            let appendedAreNew =
                changed.removed == 0 && shared == shadow.members.count
                && changed.added == new.count - shared && ListShadow.areDistinct(new[shared...])
            if !shadow.followAppend(to: new, sharing: shared, appendedAreNew: appendedAreNew) {
                state.dropListShadow(ordinal)
            }
        } else {
            RelationshipMaintenance.relationshipWillChange(
                self, ordinal: ordinal, from: [], to: new, mirror: state.mirrorsRelationshipChanges)
        }
        state.didSet(self, keyPath: keyPath(), notifiesRegistrar: observed)
    }
}

extension ModelState {
    /// Whether a relationship write updates the inverse and inserts new
    /// related objects: not for stored values being applied (a rollback, a
    /// merge), nor while the context undoes or redoes, which restores each
    /// inverse from its own recorded change.
    var mirrorsRelationshipChanges: Bool {
        if isApplyingStoredValues { return false }
        guard recordsUndo, let owner else { return true }
        return !owner.isRestoringUndo
    }
}

/// Keeps both ends of a relationship in step in memory, as Core Data does:
/// `stop.trip = trip` puts `stop` into `trip.stops`, removing it from
/// `trip.stops` sets `stop.trip` to nil, and so on for every kind.
enum RelationshipMaintenance {
    /// Called when relationship `ordinal` of `holder` goes from `old` to
    /// `new`: keeps forwarding links, and with `mirror` (a change made by
    /// the app, not a value the context loads or restores) updates the
    /// inverse and inserts new related objects into the context.
    /// `sharedPrefix`, when the caller knows it, is how many leading objects
    /// `old` and `new` share (`ReferenceLists.commonPrefixCount`). Returns
    /// how many objects of `new` are not in `old` (repeats counted) and
    /// how many of `old` are not in `new`.
    @discardableResult
    static func relationshipWillChange(
        _ holder: any PersistentModel, ordinal: Int, from old: [AnyObject], to new: [AnyObject], mirror: Bool,
        sharedPrefix: Int? = nil
    ) -> (added: Int, removed: Int) {
        let (addedObjects, removedObjects) = membershipChanges(from: old, to: new, sharedPrefix: sharedPrefix)
        let counts = (added: addedObjects.count, removed: removedObjects.count)
        guard !addedObjects.isEmpty || !removedObjects.isEmpty,
            let relationship = ModelRelationships.of(type(of: holder)).relationship(at: ordinal)
        else { return counts }
        let added = relationship.accessor.models(addedObjects)
        let removed = relationship.accessor.models(removedObjects)
        if relationship.schema.forwardsChanges {
            relationship.accessor.updateForwarding(of: holder, adding: added, removing: removed)
        }
        guard mirror else { return counts }
        adoptIntoOneContext(holder, added)
        guard let inverse = relationship.inverse else { return counts }
        let initiator = holder._$modelState.inverseInitiator
        for member in removed where member !== initiator {
            mirroring(from: holder, into: member) { inverse.accessor.remove(holder, from: member) }
        }
        for member in added where member !== initiator {
            mirroring(from: holder, into: member) {
                inverse.accessor.add(holder, to: member, isToMany: inverse.schema.isToMany)
            }
        }
        return counts
    }

    /// Runs `body`, which changes `member`'s inverse relationship, with
    /// `holder` marked as the change's origin, so that `member`'s own mirroring
    /// does not write back into `holder`.
    private static func mirroring(from holder: AnyObject, into member: any PersistentModel, _ body: () -> Void) {
        let state = member._$modelState
        let previous = state.inverseInitiator
        state.inverseInitiator = holder
        defer { state.inverseInitiator = previous }
        body()
    }

    /// Objects that become related join the context of the other end, as in
    /// SwiftData: relating a new object to a saved one inserts it.
    private static func adoptIntoOneContext(_ holder: any PersistentModel, _ added: [any PersistentModel]) {
        if let owner = holder._$modelState.owner {
            for member in added where member._$modelState.owner == nil { owner.adopt(member) }
        } else if let owner = added.lazy.compactMap({ $0._$modelState.owner }).first {
            owner.adopt(holder)
        }
    }
}
