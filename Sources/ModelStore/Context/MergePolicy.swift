/// What a context's save does when it finds that another context or process
/// wrote or deleted the row of an object it is saving since the context read
/// it (an optimistic-locking conflict; see `ModelContext.mergePolicy`). The
/// cases follow Core Data's `NSMergePolicy` types.
///
/// Conflicts are found per row by its version: every writer (a context's
/// save, `store-tool`) makes it one more, and a save's UPDATE and DELETE
/// expect the version the context read. What counts as a change of the row
/// is a change of its attributes or to-one relationships; to-many links are
/// written as differences (members added and removed), so two contexts that
/// change one to-many do not conflict.
///
/// For a row deleted underneath (the other side deleted it), every policy
/// but `.error` accepts the delete: the object becomes deleted in the
/// context and its unsaved changes are dropped (a deleted row cannot come
/// back with its identity). A row that both sides deleted is no conflict.
public enum MergePolicy {
    /// The save throws `ModelStoreError.saveConflicts`, naming every
    /// conflicting object and property with the stored and unsaved values;
    /// nothing is written and the context keeps its changes. The default.
    case error
    /// The stored row wins: a conflicting object takes the stored values,
    /// and its unsaved changes are dropped (a delete of it is undone). Core
    /// Data's `NSRollbackMergePolicy`.
    case storeWins
    /// The object wins: its values, changed or not, overwrite the stored
    /// row (a delete of it goes ahead). Core Data's `NSOverwriteMergePolicy`.
    case objectWins
    /// Properties changed on one side only merge: the object keeps its
    /// unsaved changes and takes the store's for the properties it did not
    /// change. A property changed on both sides follows `winner`. A delete
    /// of a row the store changed goes ahead when the object wins, and is
    /// undone when the store wins. Core Data's
    /// `NSMergeByPropertyStoreTrumpMergePolicy` and
    /// `NSMergeByPropertyObjectTrumpMergePolicy`.
    case mergeByProperty(winner: MergeWinner)
    /// `resolve` decides per conflicting object.
    case custom(_ resolve: (SaveConflict) -> ConflictResolution)
}

/// Which side a property changed on both sides follows.
public enum MergeWinner: Sendable, Equatable {
    /// The stored row's value.
    case store
    /// The context's unsaved value.
    case object
}

/// What a custom merge policy decides for one conflicting object: the
/// resolutions of the policies of the same names.
public enum ConflictResolution: Sendable, Equatable {
    case error
    case storeWins
    case objectWins
    case mergeByProperty(winner: MergeWinner)
}

/// One object that a save found changed or deleted underneath.
public struct SaveConflict: Sendable, Equatable, CustomStringConvertible {
    /// What happened to the row.
    public enum Kind: Sendable, Equatable {
        /// Another writer changed the row.
        case changed
        /// Another writer deleted the row.
        case deleted
    }

    /// One property that differs between the stored row and the object,
    /// or that the context changed.
    public struct Property: Sendable, Equatable {
        /// The property's name (the key path's last component).
        public let name: String
        /// The stored value, as text; nil when the row was deleted.
        public let storedValue: String?
        /// The object's value, as text.
        public let unsavedValue: String
        /// True when the context changed the property since it read the row.
        public let isChangedInContext: Bool
        /// True when the stored value is not the one the context read.
        public let isChangedInStore: Bool
    }

    /// The object's identifier.
    public let identifier: PersistentIdentifier
    /// The entity's name.
    public let entity: String
    /// The row's key.
    public let row: Int64
    public let kind: Kind
    /// True when the context was deleting the object, false when updating it.
    public let isDeleteInContext: Bool
    /// The row version the context read.
    public let expectedVersion: Int64
    /// The row version stored now; nil when the row was deleted.
    public let storedVersion: Int64?
    /// The properties changed on either side, in declaration order.
    public let properties: [Property]

    /// The names of the properties changed on both sides.
    public var propertiesChangedOnBothSides: [String] {
        properties.filter { $0.isChangedInContext && $0.isChangedInStore }.map(\.name)
    }

    /// Names the object and properties, without their values.
    public var description: String {
        let what = kind == .deleted ? "was deleted" : "was changed (version \(expectedVersion) → \(storedVersion ?? 0))"
        let action = isDeleteInContext ? "deleting" : "saving"
        let names = properties.map { property in
            property.name
                + (property.isChangedInContext && property.isChangedInStore
                    ? " (both)" : property.isChangedInStore ? " (store)" : " (context)")
        }
        return "\(entity):\(row) \(what) by another writer while \(action) it"
            + (names.isEmpty ? "" : "; properties: " + names.joined(separator: ", "))
    }
}
