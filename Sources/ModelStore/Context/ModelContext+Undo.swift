#if canImport(Darwin)
import Foundation
#endif

// Undo and redo of a context's changes, through `ModelContext.undoManager`.
//
// What is recorded: every write of a stored property through a model's
// setter (attributes and relationships, the inverse writes that relationship
// maintenance makes included: each is a property change of its own object),
// and every insert and delete. A change registers, with the undo manager,
// the operation that reverses it; the manager groups the operations (per
// event, or explicitly), and what an operation registers while it is undone
// becomes its redo.
//
// What an undo does:
// - A property takes its earlier value through its setter, so observers
//   (Observation and `objectWillChange`) are told and the change is tracked
//   as any other. Relationship writes do not update inverses while undoing:
//   the inverses' own recorded changes restore them, in reverse order.
// - A property whose change made it dirty, undone with no save since the
//   change, is clean again: an object back at its saved values has no
//   changes. Otherwise (a save came in between) the restored value is a
//   change, which the next save writes.
// - An insert is undone by a delete, a delete by an insert (undelete). A
//   delete's cascade rules apply at the save, so undoing a delete before the
//   save leaves nothing to restore. A deletion a save already wrote is undone
//   by inserting the object again as a new one (new row, new identifier), as
//   Core Data does; see ModelContext+UndoSavedDelete.swift for what comes back.
// - Other contexts' saves (merged into this one, see ModelContext+Merge.swift)
//   are never undone silently: a property that a merge updated after the
//   change was recorded keeps the merged value when it has no unsaved
//   changes (the operation does nothing); when it has (the merge left it
//   alone, and the save will find the conflict), the undo sets the value in
//   memory and leaves it dirty, so that the next save goes through the
//   conflict check and the context's merge policy decides.

/// The undo bookkeeping of a context that has an undo manager.
final class UndoRecording {
    let manager: UndoManager
    /// Counts saves, rollbacks and merges: each operation keeps the count it
    /// was recorded at, to tell what happened since.
    var clock = 0
    /// `clock` after the last save or rollback: an operation recorded before
    /// it cannot make a property clean (its committed value changed).
    var lastCommit = 0
    /// Per object, when a merge last gave it stored values, and of which
    /// properties (nil: all).
    var merges: [ObjectIdentifier: (clock: Int, properties: PropertyBitSet?)] = [:]
    /// Per saved object deleted since the last save: the record its undo
    /// operation holds, which the save that writes the delete fills (see
    /// ModelContext+UndoSavedDelete.swift). Emptied at every save and
    /// rollback: the restore data itself lives in the undo operation only,
    /// as long as the undo stack keeps it.
    var pendingDeletes: [ObjectIdentifier: SavedDeleteRecord] = [:]
    /// True while an operation restores a value (see `isRestoringUndo`).
    var isRestoring = false

    init(manager: UndoManager) {
        self.manager = manager
    }

    func didCommit() {
        clock += 1
        lastCommit = clock
        pendingDeletes.removeAll()
    }

    func noteMerge(into model: AnyObject, properties: PropertyBitSet?) {
        clock += 1
        let id = ObjectIdentifier(model)
        var merged = properties
        if let earlier = merges[id]?.properties, let current = properties {
            merged = earlier
            for ordinal in current { merged?.insert(ordinal) }
        } else if merges[id] != nil {
            merged = nil
        }
        merges[id] = (clock, merged)
    }

    /// True when a merge gave property `ordinal` of `model` a stored value
    /// after `clock`.
    func wasMerged(_ model: AnyObject, ordinal: Int, since clock: Int) -> Bool {
        guard let merge = merges[ObjectIdentifier(model)], merge.clock > clock else { return false }
        return merge.properties?.contains(ordinal) ?? true
    }
}

extension ModelContext {
    /// The undo manager that records this context's changes, as SwiftData's
    /// `ModelContext.undoManager`: nil by default, which records nothing and
    /// costs nothing. Assign an `UndoManager` to record every insert, delete
    /// and property change (relationship inverses included) from then on;
    /// one manager may serve several contexts and the app's own operations.
    /// Set it to nil for a bulk import, which then leaves no undo.
    ///
    /// SwiftUI's `modelContainer(…, isUndoEnabled: true)` does this for the
    /// main context on Apple platforms; on Linux, assign it:
    /// `container.mainContext.undoManager = UndoManager()`.
    ///
    /// A save keeps the undo stack (undoing past a save changes the objects
    /// again, and the next save writes that); `rollback()` removes this
    /// context's operations from it, as SwiftData's does.
    public var undoManager: UndoManager? {
        get { undoRecording?.manager }
        set {
            if let newValue, newValue === undoRecording?.manager { return }
            undoRecording = newValue.map(UndoRecording.init(manager:))
            for link in stateLinks { link.recordsUndo = newValue != nil }
        }
    }

    var isRestoringUndo: Bool { undoRecording?.isRestoring ?? false }

    /// Registers the undo of a property change (see `ModelStateOwner`).
    func modelWillChange(_ model: any PersistentModel, ordinal: Int, from old: Any, wasDirty: Bool) {
        guard let undo = undoRecording, !isSuccessor, !isClosing else { return }
        let clock = undo.clock
        registerUndo(with: undo.manager) { context in
            context.undoChange(of: model, ordinal: ordinal, to: old, wasDirty: wasDirty, recordedAt: clock)
        }
    }

    /// Registers the undo of an insert: a delete.
    func registerUndoOfInsert(_ model: any PersistentModel) {
        guard let manager = undoRecording?.manager else { return }
        registerUndo(with: manager) { context in
            let state = model._$modelState
            guard state.owner === context else { return }
            context.delete(model)
        }
    }

    /// Registers the undo of a delete: an insert; for a deletion a save
    /// wrote, the object is inserted as a new one (ModelContext+UndoSavedDelete.swift).
    /// `hasRow`: the object was saved, so a save may write its delete.
    func registerUndoOfDelete(_ model: any PersistentModel, hasRow: Bool) {
        guard let undo = undoRecording else { return }
        // Only the operation holds the record (and so what it restores);
        // the context notes it until the next save fills it.
        let record = hasRow ? SavedDeleteRecord(model) : nil
        if let record { undo.pendingDeletes[ObjectIdentifier(model)] = record }
        registerUndo(with: undo.manager) { context in
            let state = model._$modelState
            if state.owner == nil, state.lifecycle == .deleted, state.rowID != nil {
                if let restore = record?.restore { context.reinsertSavedDelete(model, restore) }
                return
            }
            guard state.owner === context || (state.owner == nil && state.lifecycle == .detached) else { return }
            context.insert(model)
        }
    }

    private func registerUndo(with manager: UndoManager, _ handler: @escaping (ModelContext) -> Void) {
        manager.registerUndo(withTarget: self, handler: handler)
        #if !canImport(Darwin)
            // The main context's changes are made on the main actor: its
            // event group ends with the actor's turn, as on Apple platforms.
            if isMainContext { manager.closeEventGroupAfterMainActorTurn() }
        #endif
    }

    /// Gives property `ordinal` of `model` back the value `value` it had
    /// before a change recorded at `clock` (see the file's comment).
    private func undoChange(of model: any PersistentModel, ordinal: Int, to value: Any, wasDirty: Bool, recordedAt clock: Int) {
        guard let undo = undoRecording else { return }
        let state = model._$modelState
        guard state.owner === self, let properties = state.table?.entity.properties, properties.indices.contains(ordinal)
        else { return }
        let merged = undo.wasMerged(model, ordinal: ordinal, since: clock)
        // Another context's newer save, merged into a property without
        // unsaved changes: it stays.
        if merged && !state.dirty.contains(ordinal) { return }
        undo.isRestoring = true
        _ = properties[ordinal].accessor.setValue(value, of: model)
        undo.isRestoring = false
        let hasRow = state.lifecycle == .persisted || state.lifecycle == .deleted
        if !wasDirty, !merged, hasRow, clock >= undo.lastCommit, state.dirty.contains(ordinal) {
            markClean(ordinal, of: model, state: state)
        }
    }

    /// Property `ordinal` holds its committed value again: it is no longer
    /// a change, and an object without changes leaves the changed list.
    private func markClean(_ ordinal: Int, of model: any PersistentModel, state: ModelState) {
        state.dirty.remove(ordinal)
        state.extras?.moreCommitted[ordinal] = nil
        if state.dirty.isEmpty { changed.remove(model) }
    }
}
