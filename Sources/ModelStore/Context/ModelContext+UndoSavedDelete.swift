// Undoing a delete that a save already wrote (see ModelContext+Undo.swift).
//
// The row is gone, so the object comes back as Core Data's does: inserted
// again as a new object of the context, with the attribute values it had;
// the next save writes a new row, and its `persistentModelID` is a new one
// (temporary until then). The objects its cascade removed at that save come
// back with it, when they were in memory and reached through loaded
// relationships. Relationships come back where the objects at their other
// ends are still in the context or come back too, through the setters, so
// that the inverses (which the save emptied) hold them again and redo can
// take them back. Not restored: objects a cascade removed through a
// relationship that was not loaded, to-ones and to-manys of other objects
// that the delete rules nullified where the restored objects have no
// inverse of them, and relationships never loaded (they come back empty).

/// What undoing a saved delete restores, noted when the save applied it:
/// the objects (the deleted one first, then those its cascade removed) and
/// the loaded relationships of each as they were before the save.
struct SavedDelete {
    var members: [any PersistentModel]
    var links: [(model: any PersistentModel, relationship: RuntimeRelationship, models: [any PersistentModel])]
}

extension ModelContext {
    /// Notes, for each object deleted explicitly among `removed` (the
    /// objects a save just deleted), what undoing its delete restores.
    func noteSavedDeletes(_ removed: [any PersistentModel], into undo: UndoRecording) {
        let removedIDs = Set(removed.map { ObjectIdentifier($0) })
        for model in deleted.models where model._$modelState.owner === self {
            var members: [any PersistentModel] = [model]
            var seen: Set<ObjectIdentifier> = [ObjectIdentifier(model)]
            var links: [(model: any PersistentModel, relationship: RuntimeRelationship, models: [any PersistentModel])] = []
            var index = 0
            while index < members.count {
                let member = members[index]
                index += 1
                let state = member._$modelState
                for relationship in state.table?.relationships?.all ?? [] {
                    guard !state.isFault(relationship.ordinal),
                        let models = relationship.accessor.loadedModels(of: member)
                    else { continue }
                    links.append((member, relationship, models))
                    guard relationship.schema.deleteRule == .cascade else { continue }
                    for other in models where removedIDs.contains(ObjectIdentifier(other)) {
                        if seen.insert(ObjectIdentifier(other)).inserted { members.append(other) }
                    }
                }
            }
            undo.savedDeletes[ObjectIdentifier(model)] = SavedDelete(members: members, links: links)
        }
    }

    /// Inserts `model`, whose deletion a save wrote, as a new object, with
    /// the objects its cascade removed and the relationships among them and
    /// to objects that still exist.
    func reinsertSavedDelete(_ model: any PersistentModel) {
        guard let undo = undoRecording, let saved = undo.savedDeletes[ObjectIdentifier(model)] else { return }
        let members = saved.members.filter {
            let state = $0._$modelState
            return state.owner == nil && state.lifecycle == .deleted
        }
        guard members.first === model else { return }
        let memberIDs = Set(members.map { ObjectIdentifier($0) })
        func comesBack(_ other: any PersistentModel) -> Bool {
            let state = other._$modelState
            return memberIDs.contains(ObjectIdentifier(other)) || (state.owner === self && state.lifecycle != .deleted)
        }
        for member in members {
            let state = member._$modelState
            // A new object: no row, version or identifier of the deleted one.
            state.rowID = nil
            state.version = 0
            state.temporaryIdentifier = nil
            state.lifecycle = .detached
            // Relationships never loaded cannot be read any more (their row
            // is gone): they start empty. The loaded ones start empty too and
            // are set below, so that each is a change the inverses mirror.
            for relationship in state.table?.relationships?.all ?? [] {
                state.faults.remove(relationship.ordinal)
                state.extras?.faultKeys[relationship.ordinal] = nil
                state.extras?.prefetched[relationship.ordinal] = nil
                setLoaded([], for: relationship, of: member)
            }
        }
        for member in members { insert(member) }
        // Each write records its own undo, which redo runs before deleting
        // the objects again.
        for link in saved.links where memberIDs.contains(ObjectIdentifier(link.model)) {
            let models = link.models.filter(comesBack)
            guard !models.isEmpty else { continue }
            _ = link.relationship.accessor.setModels(models, of: link.model)
        }
    }
}
