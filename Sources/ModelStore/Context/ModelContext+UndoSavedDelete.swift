// Undoing a delete that a save already wrote (see ModelContext+Undo.swift).
//
// The row is gone, so the object comes back as Core Data's does: inserted
// again as a new object of the context, with the attribute values it had;
// the next save writes a new row, and its `persistentModelID` is a new one
// (temporary until then). Its relationships come back where the objects at
// their other ends are still in the context and not deleted, through the
// setters, so that the inverses (which the saved delete emptied) hold it
// again and redo can take them back. Not restored: objects the delete's
// cascade removed, the to-ones and to-manys of other objects that the
// delete rules nullified without an inverse of the object's own, and
// relationships of the object that were never loaded before the delete was
// saved (they come back empty).

extension ModelContext {
    /// Inserts `model`, whose deletion a save wrote, as a new object, with
    /// the relationships to objects that still exist restored.
    func reinsertSavedDelete(_ model: any PersistentModel) {
        let state = model._$modelState
        guard state.owner == nil, state.lifecycle == .deleted, let relationships = state.table?.relationships
        else { return }
        // What the object still held when the save let it go: the save's
        // in-memory pass dropped the other deleted objects from it, and the
        // objects that stay were left.
        var held: [(relationship: RuntimeRelationship, models: [any PersistentModel])] = []
        for relationship in relationships.all {
            guard !state.isFault(relationship.ordinal),
                let models = relationship.accessor.loadedModels(of: model)
            else { continue }
            let living = models.filter {
                let other = $0._$modelState
                return other.owner === self && other.lifecycle != .deleted
            }
            held.append((relationship, living))
        }
        // A new object: no row, version or identifier of the deleted one.
        state.rowID = nil
        state.version = 0
        state.temporaryIdentifier = nil
        state.lifecycle = .detached
        // Relationships never loaded cannot be read any more (their row is
        // gone): they start empty.
        for relationship in relationships.all where state.isFault(relationship.ordinal) {
            state.faults.remove(relationship.ordinal)
            state.extras?.faultKeys[relationship.ordinal] = nil
            state.extras?.prefetched[relationship.ordinal] = nil
            _ = relationship.accessor.setModels([], of: model)
        }
        insert(model)
        // Set through the setters, emptied first so that each is a change:
        // the inverses take the object again, and each write records its
        // own undo, which redo runs before deleting the object again.
        for (relationship, models) in held where !models.isEmpty {
            _ = relationship.accessor.setModels([], of: model)
            _ = relationship.accessor.setModels(models, of: model)
        }
    }
}
