import Foundation

/// What one save changed in the store, as the contexts of a container pass
/// it to each other: rows by table and key, and for updated rows the
/// properties written. Kept as keys, not identifiers, so that a save that
/// nobody observes pays for an array of keys only; the identifiers of the
/// public `StoreChanges` are made from it on demand.
///
/// A commit of another process is one change set per transaction of the
/// change history (ForeignChanges.swift), and takes the same path as a save
/// of this process. `invalidatesAll` stands for a change whose extent is not
/// known: `erase()`, or another process's commit that the history cannot
/// describe. A context that receives it reloads every object it holds.
struct ChangeSet: Sendable {
    struct Row: Sendable {
        let table: EntityTable
        let rowID: Int64
    }

    struct UpdatedRow: Sendable {
        let table: EntityTable
        let rowID: Int64
        /// The ordinals of the properties written, relationships included.
        let properties: PropertyBitSet
    }

    var inserted: [Row] = []
    var updated: [UpdatedRow] = []
    var deleted: [Row] = []
    var invalidatesAll = false
    /// The saving context's `author`.
    var author: String?

    var isEmpty: Bool { inserted.isEmpty && updated.isEmpty && deleted.isEmpty && !invalidatesAll }

    /// Adds the rows a save's delete plan deleted, table by table, in key order.
    mutating func addDeletes(of plan: DeletePlan) {
        for (table, keys) in plan.rowsByTable {
            for key in keys.sorted() { deleted.append(Row(table: table, rowID: key)) }
        }
    }

    static func invalidatingAll(author: String? = nil) -> ChangeSet {
        var changes = ChangeSet()
        changes.invalidatesAll = true
        changes.author = author
        return changes
    }
}

/// What a save changed, as delivered to `ModelContainer.changes` and
/// `ModelContainer.observeChanges(_:)`: the identifiers of the objects
/// inserted, updated (with the names of the properties written) and
/// deleted, and the saving context's `author`.
///
/// A commit of another process (or `store-tool`) is reported once per
/// transaction of the store's change history, as that process's save.
/// `invalidatedAll` is true when the store changed in a way whose extent is
/// not known: the container was erased, or another process committed and
/// the history cannot tell what (it was pruned past what the container had
/// read, or the writer records none). The identifier lists are then empty:
/// every object may have changed, and contexts reload the objects they hold.
public struct StoreChanges: Sendable, CustomStringConvertible {
    /// The objects inserted, in the order they were saved.
    public let insertedIdentifiers: [PersistentIdentifier]
    /// The saved objects whose properties were written.
    public let updatedIdentifiers: [PersistentIdentifier]
    /// The objects deleted, delete rules' cascades included.
    public let deletedIdentifiers: [PersistentIdentifier]
    /// The `author` of the context that saved (for another process's
    /// commit, the one its history transaction records; `store-tool` for
    /// store-tool's edits); nil when it has none, or the extent of the
    /// change is not known.
    public let author: String?
    /// True for a change of unknown extent (`erase()`, another process's
    /// commit that the change history cannot describe).
    public let invalidatedAll: Bool
    /// The updated rows with the ordinals of their properties written, in
    /// `updatedIdentifiers`' order, for `updatedPropertyNames`.
    private let updatedRows: [ChangeSet.UpdatedRow]

    /// The names of the properties written, per updated object, in
    /// declaration order (relationships included).
    ///
    /// Made on each access from the rows the save recorded: every save
    /// makes a `StoreChanges` (for `ModelContext.didSave`), and a
    /// dictionary keyed by identifier, with an array per object, cost more
    /// than the rest of the notification for a large save nobody asks this
    /// of. Keep the result if you need it more than once.
    /// - Complexity: O(updated objects × properties written) per access.
    public var updatedPropertyNames: [PersistentIdentifier: [String]] {
        var names: [PersistentIdentifier: [String]] = [:]
        names.reserveCapacity(updatedRows.count)
        for (identifier, row) in zip(updatedIdentifiers, updatedRows) {
            names[identifier] = row.properties.map { row.table.slots[$0].name }
        }
        return names
    }

    init(_ changes: ChangeSet) {
        insertedIdentifiers = changes.inserted.map { Self.identifier($0.table, $0.rowID) }
        updatedIdentifiers = changes.updated.map { Self.identifier($0.table, $0.rowID) }
        updatedRows = changes.updated
        deletedIdentifiers = changes.deleted.map { Self.identifier($0.table, $0.rowID) }
        author = changes.author
        invalidatedAll = changes.invalidatesAll
    }

    private static func identifier(_ table: EntityTable, _ rowID: Int64) -> PersistentIdentifier {
        .permanent(entityName: table.name, storeIdentifier: table.storeIdentifier, rowID: rowID)
    }

    public var description: String {
        if invalidatedAll { return "StoreChanges(all objects may have changed)" }
        return
            "StoreChanges(inserted: \(insertedIdentifiers.count), updated: \(updatedIdentifiers.count), deleted: \(deletedIdentifiers.count), author: \(author ?? "nil"))"
    }
}
