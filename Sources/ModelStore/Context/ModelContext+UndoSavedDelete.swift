// Undoing a delete that a save already wrote (see ModelContext+Undo.swift).
//
// The row is gone, so the object comes back as Core Data's does: inserted
// again as a new object of the context, with the attribute values it had;
// the next save writes a new row, and its `persistentModelID` is a new one
// (temporary until then). The objects its cascade removed come back with it.
//
// What comes back is noted by the save that writes the delete, before its
// rows go (and only when the context records undo: nothing is read or kept
// otherwise):
// - the deleted object and, through its cascade rules at any depth, the
//   objects the cascade removed; relationships not loaded yet are loaded
//   then (one query each), so that the cascaded objects and every link are
//   known, whether the app had touched them or not;
// - each one's relationships as they were (to-ones, to-manys in order, the
//   links of join tables);
// - the references to them from other objects' relationships that have no
//   inverse (a to-one without inverse, a to-many without inverse): those the
//   store held, read with one query per such relationship, and those of
//   objects in memory whose relationship is loaded (which may hold unsaved
//   changes, and then count instead).
// Undo sets all of these through the setters, so the inverses follow and each
// write records its own undo, which redo runs before deleting the objects
// again. A relationship to an object that no longer exists (deleted since)
// stays without it; a to-one without inverse that holds another object by
// then keeps it.
//
// Where it is kept: the undo operation of the delete holds a record that
// the save fills, and nothing else holds it, so the restore data lives
// exactly as long as the undo manager keeps that step (`levelsOfUndo`,
// `removeAllActions()` drop it with the step). The context notes the
// records of pending deletes only until the next save or rollback.

/// What the undo operation of one delete holds: filled by the save that
/// writes the delete (nil until then, and for a delete never saved).
final class SavedDeleteRecord {
    /// The deleted object, to match the record at the save (held weakly: an
    /// identifier of a freed object may be reused).
    weak var model: AnyObject?
    var restore: SavedDelete?

    init(_ model: any PersistentModel) {
        self.model = model
    }
}

/// What undoing a saved delete restores (see the file's comment).
struct SavedDelete {
    /// One relationship of a restored object, as it was before the save.
    struct Link {
        let model: any PersistentModel
        let relationship: RuntimeRelationship
        let models: [any PersistentModel]
    }

    /// The deleted object first, then the objects its cascade removed.
    var members: [any PersistentModel]
    var links: [Link]
    /// References to the members through relationships without inverse.
    var incoming: [IncomingLink]
}

/// A reference to a deleted object from a relationship without inverse of
/// another object: in memory, or a row of the store (loaded at undo).
struct IncomingLink {
    enum Holder {
        case model(any PersistentModel)
        case row(EntityTable, Int64)
    }

    let holder: Holder
    /// The holder's relationship (of the holder's class).
    let relationship: RuntimeRelationship
    let member: any PersistentModel
}

/// What one save notes for undoing its deletes: made before it writes,
/// completed after it commits (ModelContext+Delete.swift), then handed to
/// the records.
final class SavedDeleteCapture {
    var records: [(record: SavedDeleteRecord, members: [any PersistentModel], links: [SavedDelete.Link])] = []
    /// The index in `records` of the record each member belongs to.
    var owners: [ObjectIdentifier: Int] = [:]
    /// Incoming links by record, from the store and from memory.
    var incoming: [[IncomingLink]] = []

    /// Notes that `holder` referred to `member` through `relationship`
    /// (without inverse); ignored for objects no record restores.
    func noteLink(from holder: IncomingLink.Holder, through relationship: RuntimeRelationship, to member: any PersistentModel) {
        guard let index = owners[ObjectIdentifier(member)] else { return }
        incoming[index].append(IncomingLink(holder: holder, relationship: relationship, member: member))
    }

    /// Drops the links read from the store whose holder is in memory with
    /// the relationship loaded: its loaded value decides (noted by
    /// `noteLink` as the save drops the deleted objects from it).
    func dropStoredLinksLoaded(in context: ModelContext) {
        for index in incoming.indices {
            incoming[index].removeAll { link in
                guard case .row(let table, let key) = link.holder, let holder = context.registered(table, rowID: key)
                else { return false }
                return !holder._$modelState.isFault(link.relationship.ordinal)
            }
        }
    }

    /// Hands each record what its undo restores.
    func fillRecords() {
        for (index, entry) in records.enumerated() {
            entry.record.restore = SavedDelete(members: entry.members, links: entry.links, incoming: incoming[index])
        }
    }
}

extension ModelContext {
    /// Notes, before a save writes `plan`, what undoing each of its deletes
    /// that has an undo record restores (see the file's comment). Nil when
    /// no delete has one. Loads the relationships of the objects deleted
    /// that are not loaded yet.
    /// - Throws: `SQLiteError` when the store cannot be read.
    func captureSavedDeletes(_ plan: DeletePlan) throws -> SavedDeleteCapture? {
        guard let undo = undoRecording, !undo.pendingDeletes.isEmpty, !plan.isEmpty else { return nil }
        var roots: [(model: any PersistentModel, record: SavedDeleteRecord)] = []
        for model in deleted.models where model._$modelState.owner === self {
            guard let record = undo.pendingDeletes[ObjectIdentifier(model)], record.model === model else { continue }
            roots.append((model, record))
        }
        guard !roots.isEmpty else { return nil }
        let capture = SavedDeleteCapture()
        // An object deleted explicitly is restored by the undo of its own
        // delete, which may be in another undo step: never as another's
        // cascaded object.
        for (index, root) in roots.enumerated() { capture.owners[ObjectIdentifier(root.model)] = index }
        for (index, root) in roots.enumerated() {
            var members: [any PersistentModel] = [root.model]
            var links: [SavedDelete.Link] = []
            var next = 0
            while next < members.count {
                let member = members[next]
                next += 1
                for relationship in member._$modelState.table?.relationships?.all ?? [] {
                    // Through the getter: a fault is loaded now, while its rows exist.
                    _ = relationship.accessor.models(of: member)
                    guard let models = relationship.accessor.loadedModels(of: member) else { continue }
                    links.append(SavedDelete.Link(model: member, relationship: relationship, models: models))
                    guard relationship.schema.deleteRule == .cascade else { continue }
                    for other in models where plan.contains(other) && capture.owners[ObjectIdentifier(other)] == nil {
                        capture.owners[ObjectIdentifier(other)] = index
                        members.append(other)
                    }
                }
            }
            capture.records.append((root.record, members, links))
        }
        capture.incoming = Array(repeating: [], count: roots.count)
        try noteStoredLinksWithoutInverse(to: plan, in: capture)
        return capture
    }

    /// Reads, from the store, the rows that refer to the deleted objects
    /// through a relationship without inverse (whose links the deleted rows'
    /// own relationships do not show): a to-one's foreign key, or a to-many's
    /// join-table rows. One query per such relationship and deleted table.
    private func noteStoredLinksWithoutInverse(to plan: DeletePlan, in capture: SavedDeleteCapture) throws {
        let connection = try connection()
        for (table, keys) in plan.rowsByTable {
            var members: [Int64: any PersistentModel] = [:]
            for key in keys {
                guard let model = registered(table, rowID: key), capture.owners[ObjectIdentifier(model)] != nil else {
                    continue
                }
                members[key] = model
            }
            guard !members.isEmpty else { continue }
            for holderTable in store.tables {
                for relationship in declaredRelationships(of: holderTable)
                where relationship.inverseName == nil
                    && entity(table.name, isOrInherits: relationship.destination, tables: { store.table(named: $0) })
                {
                    guard let runtime = holderTable.relationships?.all.first(where: { $0.schema.name == relationship.name }),
                        let sql = Self.holdersSQL(relationship, holderTable: holderTable)
                    else { continue }
                    let statement = try connection.cachedStatement(sql)
                    defer { statement.reset() }
                    try statement.bind(jsonKeys(members.keys), at: 1)
                    while try statement.step() {
                        let holderKey = statement.int64(at: 0)
                        guard let member = members[statement.int64(at: 1)], !plan.containsRow(of: holderTable, holderKey)
                        else { continue }
                        capture.noteLink(from: .row(holderTable, holderKey), through: runtime, to: member)
                    }
                }
            }
        }
    }

    /// The relationships `table`'s entity declares (not those it inherits,
    /// which its superclass's table reads).
    private func declaredRelationships(of table: EntityTable) -> [Schema.Relationship] {
        guard let superName = table.entity.superentityName, let superentity = store.table(named: superName)?.entity
        else { return table.entity.relationships }
        let inherited = Set(superentity.relationships.map(\.name))
        return table.entity.relationships.filter { !inherited.contains($0.name) }
    }

    /// `SELECT holder, target` of the links of `relationship` (without
    /// inverse) whose target is among the keys bound as parameter 1; nil for
    /// a storage that has no such links.
    private static func holdersSQL(_ relationship: Schema.Relationship, holderTable: EntityTable) -> String? {
        let inKeys = "IN (SELECT value FROM json_each(?))"
        switch relationship.storage {
        case .foreignKey(let column, _):
            let column = quoteIdentifier(column)
            return "SELECT \(quoteIdentifier(primaryKeyColumn)), \(column) FROM \(quoteIdentifier(holderTable.tableName)) "
                + "WHERE \(column) \(inKeys)"
        case .joinTable(let name, isSource: true):
            let source = quoteIdentifier(JoinTableColumn.source)
            let target = quoteIdentifier(JoinTableColumn.target)
            return "SELECT \(source), \(target) FROM \(quoteIdentifier(name)) WHERE \(target) \(inKeys) "
                + "ORDER BY \(source), \(quoteIdentifier(JoinTableColumn.sourceOrder))"
        case .joinTable, .inverseForeignKey, .unresolved:
            return nil
        }
    }

    /// Inserts `model`, whose deletion a save wrote, as a new object, with
    /// the objects its cascade removed, their relationships to each other
    /// and to objects that still exist, and the references to them that
    /// relationships without inverse held.
    func reinsertSavedDelete(_ model: any PersistentModel, _ saved: SavedDelete) {
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
            // The relationships start empty and are set below, so that each
            // is a change the inverses mirror. (The save loaded them all.)
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
        for link in saved.incoming where memberIDs.contains(ObjectIdentifier(link.member)) {
            guard let holder = incomingHolder(link.holder) else { continue }
            let accessor = link.relationship.accessor
            if link.relationship.schema.isToMany {
                accessor.add(link.member, to: holder, isToMany: true)
            } else if accessor.models(of: holder).isEmpty {
                // Set only where nothing took its place since.
                accessor.setModels([link.member], of: holder)
            }
        }
    }

    /// The holder of an incoming link, if it is still an object of this
    /// context (loaded from its row if need be).
    private func incomingHolder(_ holder: IncomingLink.Holder) -> (any PersistentModel)? {
        let model: (any PersistentModel)?
        switch holder {
        case .model(let object):
            model = object
        case .row(let table, let key):
            if let registered = registered(table, rowID: key) {
                model = registered
            } else if let type = store.modelType(of: table) {
                do {
                    model = try fetchOne(type, table: table, rowID: key)
                } catch {
                    // An unreadable row: reported as a fault would be; the
                    // reference is not restored.
                    loadDidFail(error)
                    model = nil
                }
            } else {
                model = nil
            }
        }
        guard let model, model._$modelState.owner === self, model._$modelState.lifecycle != .deleted else { return nil }
        return model
    }
}
