import Foundation

extension ModelContext {
    /// Posted on `NotificationCenter.default` by a context (the object)
    /// when `save()` is about to write its pending changes, as SwiftData's
    /// `ModelContext.willSave`: on the saving context's thread, before
    /// anything is written, with no user info. Changes an observer makes to
    /// the context are part of the save. Not posted when there is nothing
    /// to save.
    public static let willSave = Notification.Name("ModelContextWillSave")

    /// Posted on `NotificationCenter.default` by a context (the object)
    /// after `save()` committed, as SwiftData's `ModelContext.didSave`: on
    /// the saving context's thread. Its user info holds the identifiers of
    /// the objects inserted, updated and deleted (delete rules' cascades
    /// included), each a `[PersistentIdentifier]` under a
    /// `ModelContext.NotificationKey`'s raw value:
    ///
    /// ```swift
    /// NotificationCenter.default.addObserver(forName: ModelContext.didSave, object: context, queue: nil) { note in
    ///     let inserted = note.userInfo?[ModelContext.NotificationKey.insertedIdentifiers.rawValue]
    ///         as? [PersistentIdentifier] ?? []
    /// }
    /// ```
    ///
    /// Other contexts of the container merge the save at their next fetch
    /// or save; they need not observe this. `ModelContainer.changes` is the
    /// same information as an `AsyncSequence`, with the properties updated
    /// and the context's `author`.
    public static let didSave = Notification.Name("ModelContextDidSave")

    /// The keys of `didSave`'s user info, as SwiftData's
    /// `ModelContext.NotificationKey`; use a case's `rawValue` as the key.
    public enum NotificationKey: String, Sendable {
        /// The objects the save inserted: `[PersistentIdentifier]`.
        case insertedIdentifiers = "inserted"
        /// The saved objects whose properties the save wrote: `[PersistentIdentifier]`.
        case updatedIdentifiers = "updated"
        /// The objects the save deleted: `[PersistentIdentifier]`.
        case deletedIdentifiers = "deleted"
        /// Objects invalidated all at once. ModelStore's `didSave` never
        /// holds it: a save lists what it changed.
        case invalidatedAllIdentifiers = "invalidatedAll"
        /// The store generation the context reads. ModelStore's `didSave`
        /// does not hold it: a context always reads the newest state of
        /// the store (or the one of its `withSnapshot` block).
        case queryGeneration = "queryGeneration"
    }

    // MARK: The save's part

    /// Starts a save's commit (see ChangeCoordinator.swift).
    func beginCommit() -> ChangeCoordinator.LocalCommit {
        store.changeCoordinator.beginCommit(watching: store.isWatchedForOtherProcesses)
    }

    /// Called first inside the save's transaction.
    func transactionDidBegin(_ commit: inout ChangeCoordinator.LocalCommit, connection: Connection) {
        store.changeCoordinator.transactionDidBegin(&commit, connection: connection, store: store)
    }

    /// Ends a save's commit: hands `changes` (nil when the transaction
    /// failed) to the other contexts' inboxes, and tells the observers of
    /// the other processes' commits noticed meanwhile.
    func endCommit(_ commit: ChangeCoordinator.LocalCommit, changes: ChangeSet?, connection: Connection) {
        let coordinator = store.changeCoordinator
        let foreign = coordinator.endCommit(commit, changes: changes, from: merging.inbox, connection: connection, store: store)
        for changes in foreign { coordinator.notifyObservers(StoreChanges(changes)) }
    }

    /// Tells the container's observers and posts `didSave`.
    func didSave(_ changes: ChangeSet) {
        let saved = StoreChanges(changes)
        store.changeCoordinator.notifyObservers(saved)
        NotificationCenter.default.post(
            name: ModelContext.didSave, object: self,
            userInfo: [
                NotificationKey.insertedIdentifiers.rawValue: saved.insertedIdentifiers,
                NotificationKey.updatedIdentifiers.rawValue: saved.updatedIdentifiers,
                NotificationKey.deletedIdentifiers.rawValue: saved.deletedIdentifiers,
            ])
    }
}
