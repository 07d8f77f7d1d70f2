import Foundation

/// A scratch pad of model objects over a store, as SwiftData's `ModelContext`:
/// it fetches objects, keeps one object per row, tracks which properties of
/// which objects changed, and saves all of it in one transaction.
///
/// ```swift
/// let context = ModelContext(container)
/// let trip = Trip(name: "Lisbon", destination: "Portugal", startDate: .now)
/// context.insert(trip)
/// try context.save()
/// trip.destination = "Porto"
/// context.changedKeyPaths(of: trip)   // [\Trip.destination]
/// try context.save()                  // UPDATE "Trip" SET "destination" = ? WHERE "_pk" = ?
/// ```
///
/// A context and its objects belong to one isolation domain: it is not
/// `Sendable`. Pass `PersistentIdentifier`s between domains instead.
///
/// Objects the context only read are held weakly, so iterating a large store
/// does not keep every object alive; inserted, changed and deleted objects are
/// held until they are saved or rolled back.
public final class ModelContext {
    /// The container whose store the context reads and writes.
    public let container: ModelContainer
    /// When true, the main context saves its changes on its own, shortly after
    /// they are made (on the main actor's next turn). Other contexts save when
    /// `save()` is called. A failed autosave leaves the changes pending; the
    /// next `save()` reports the error.
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    public var autosaveEnabled = false
    /// What a save does when another context or process changed or deleted
    /// the row of an object it saves since this context read it; see
    /// `MergePolicy`. The default, `.error`, makes the save throw
    /// `ModelStoreError.saveConflicts` with nothing written.
    public var mergePolicy: MergePolicy = .error
    /// Who makes this context's saves, as SwiftData's `ModelContext.author`:
    /// recorded with each save in the store's change history and delivered
    /// with it to `ModelContainer.changes` observers. Nil by default.
    public var author: String?
    /// Objects that won a conflict under `.objectWins`: the save in progress
    /// writes all their columns, not only the changed ones.
    var overwritingObjects: Set<ObjectIdentifier> = []
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    var isMainContext = false
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    var isAutosaveScheduled = false
    /// What the context knows of other contexts' and processes' commits
    /// (see ModelContext+Merge.swift).
    var merging = MergeState()

    var store: Store { container.store }
    /// The connection once opened; nil before the context's first read or write.
    private(set) var connectionStorage: Connection?
    /// The table of the last identifier looked up (see `table(named:)`).
    var lastNamedTable: EntityTable?

    // The fields below are used once or more per inserted, changed, saved or
    // freed object. Their exclusivity is unchecked: a context belongs to one
    // isolation domain, none of their accesses calls out to code that could
    // reach them again, and the runtime's check (two calls per access) cost
    // more than a row's own work in a save. Unchecked in release builds
    // only: debug builds (the tests) check every access, and so verify
    // those invariants (see the Reliability article).

    /// One row, one object: per entity, the objects by row key, held unowned (see `RowRegistry`).
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    var identityMap: [ObjectIdentifier: RowRegistry] = [:]
    /// The registry found last (see `existingRegistry(for:)`); registries are
    /// never removed, so it stays valid.
    private(set) var lastRegistry: (key: ObjectIdentifier, registry: RowRegistry)?
    /// Inserted objects not yet saved, in insertion order.
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    var inserted = OrderedModels(.inserted)
    /// Persisted objects with changed properties, each with the last saved
    /// value of its first changed property (the others' are in its state).
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    var changed = OrderedModels(.changed)
    /// Persisted objects deleted, not yet saved.
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    var deleted = OrderedModels(.deleted)
    /// Inserted objects deleted again before a save. They left the context
    /// when they were deleted, but relationships may still hold them until
    /// the save, which drops them from those relationships and applies their
    /// cascade rules, as it does for deleted saved objects (see `planDeletes`).
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    var deletedInserts: [any PersistentModel] = []
    /// Temporary identifiers of saved objects, for `model(for:)`.
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    var permanentIdentifiers: [PersistentIdentifier: PersistentIdentifier] = [:]
    /// Prepared statements per entity and purpose.
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    var statements = StatementCache()
    /// What the next save has to do besides writing rows.
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    var pendingWork = PendingSaveWork()
    /// The class inserted last and its table: a bulk insert inserts one
    /// class, and comparing it costs less than the store's lookup by type.
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    private var lastInsertedClass: (id: ObjectIdentifier, link: StateLink)?
    /// How deep the loading of non-optional to-one relationships has gone, to
    /// stop a cycle of them.
    var eagerLoadDepth = 0
    /// The SELECTs of related rows built so far, for faults and prefetches.
    var relatedRowsQueries = RelatedRowsQueries()
    /// How many objects the last relationship fault read (see `relatedRows`).
    var lastRelatedRowCount = 0
    /// The links this context's objects' states hold, one per entity table
    /// (see `StateLink`), each made when the first object of its table joins;
    /// a handful, searched in order.
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    var stateLinks: [StateLink] = []
    /// The link asked for last.
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    var lastStateLink: StateLink?
    /// Where a fetched object's initializer says what it kept of its row
    /// (see `PersistentRow.make`); allocated once, for every row this
    /// context reads.
    let handOverSlot: UnsafeMutablePointer<RowHandOver> = {
        let slot = UnsafeMutablePointer<RowHandOver>.allocate(capacity: 1)
        slot.initialize(to: .nothing)
        return slot
    }()

    /// The error of the last relationship or partially fetched attribute
    /// that could not be loaded on first access (a getter cannot throw): the
    /// property kept its unloaded value (nil, empty, or the placeholder) and
    /// loads again on its next access. Nil when every load succeeded. Read
    /// through `loadedValue(of:)` to get the error of one read thrown. A
    /// related row deleted elsewhere is not an error: an optional to-one then
    /// reads nil, a to-many the rows that remain.
    public internal(set) var lastFaultError: (any Error)?

    /// The undo manager's bookkeeping while `undoManager` is set (see
    /// ModelContext+Undo.swift); nil, the default, records nothing.
    var undoRecording: UndoRecording?

    /// True for a context made to take over the objects of a context that
    /// went (see ModelContext+Succession.swift): no app sees it.
    let isSuccessor: Bool
    /// Set when the context starts going (its deinit).
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    var isClosing = false

    /// Creates a context for the container's store.
    public init(_ container: ModelContainer) {
        self.container = container
        isSuccessor = false
    }

    /// A context that takes over what `predecessor`, which is going, leaves:
    /// its identity map (the objects still alive) and its connection.
    init(succeeding predecessor: ModelContext) {
        container = predecessor.container
        isSuccessor = true
        identityMap = predecessor.identityMap
        connectionStorage = predecessor.connectionStorage
    }

    deinit {
        defer { handOverSlot.deallocate() }
        // The context's own references to its links, so that the links the
        // objects still hold can be told apart.
        lastStateLink = nil
        lastInsertedClass = nil
        close()
    }

    /// Forgets the context's connection and returns it, for the store to
    /// keep when the context goes (see `close()`); nil if none was opened.
    func giveUpConnection() -> Connection? {
        defer { connectionStorage = nil }
        return connectionStorage
    }

    /// The context's connection, opened on first use.
    func connection() throws -> Connection {
        if let connectionStorage { return connectionStorage }
        let connection = try store.openConnection()
        connectionStorage = connection
        registerForMerges(connection)
        return connection
    }

    // MARK: Pending changes

    /// True when there are inserted, deleted or changed objects not yet saved.
    public var hasChanges: Bool { !inserted.isEmpty || !changed.isEmpty || !deleted.isEmpty }

    /// The objects inserted since the last save, in insertion order.
    public var insertedModelsArray: [any PersistentModel] { inserted.models }
    /// The saved objects with changed properties since the last save.
    public var changedModelsArray: [any PersistentModel] {
        changed.models.filter { $0._$modelState.lifecycle == .persisted }
    }
    /// The objects deleted since the last save.
    public var deletedModelsArray: [any PersistentModel] { deleted.models }

    // MARK: Inserting and deleting

    /// Adds a new object to the context; `save()` writes it. Inserting an
    /// object that the context already holds does nothing; inserting a deleted
    /// object undeletes it.
    ///
    /// An object of a type that is not in the container's schema is held, and
    /// `save()` throws `ModelStoreError.entityNotInSchema`.
    public func insert<T: PersistentModel>(_ model: T) {
        let state = model._$modelState
        if let owner = state.owner {
            precondition(
                owner === self,
                (owner as? ModelContext)?.isSuccessor == true
                    ? "\(T.entityName) object's context is gone; fetch its row in this context instead (model(for: object.persistentModelID))"
                    : "\(T.entityName) object is already in another ModelContext; insert it into one context only")
            if state.lifecycle == .deleted {
                state.lifecycle = .persisted
                deleted.remove(model)
                if undoRecording != nil { registerUndoOfInsert(model) }
            }
            return
        }
        precondition(state.lifecycle == .detached, "a deleted \(T.entityName) object cannot be inserted again; create a new one")
        state.link = stateLink(for: T.self)
        state.lifecycle = .inserted
        pendingWork.noteInsert(into: state.table)
        // The temporary identifier is made when first asked for: a bulk insert
        // whose identifiers nobody reads before the save never pays for them.
        inserted.append(model)
        if undoRecording != nil { registerUndoOfInsert(model) }
        scheduleAutosave()
        // As in SwiftData, inserting an object inserts the new objects it reaches.
        let relationships = state.table?.relationships ?? ModelRelationships.of(T.self)
        for relationship in relationships.all {
            for related in relationship.accessor.loadedModels(of: model) ?? [] {
                adopt(related)
            }
        }
    }

    private func stateLink<T: PersistentModel>(for type: T.Type) -> StateLink {
        let id = ObjectIdentifier(type)
        if let lastInsertedClass, lastInsertedClass.id == id { return lastInsertedClass.link }
        let link = stateLink(for: store.table(for: type))
        lastInsertedClass = (id, link)
        return link
    }

    /// Marks an object for deletion; `save()` removes its row and applies
    /// the delete rules. Deleting an object that was inserted and never saved
    /// removes it from the context at once; relationships that hold it keep
    /// it until the next save, which drops it from them and applies its
    /// cascade rules, as for a saved object.
    public func delete<T: PersistentModel>(_ model: T) {
        let state = model._$modelState
        guard state.owner === self else { return }
        switch state.lifecycle {
        case .inserted:
            inserted.remove(model)
            detach(state)
            deletedInserts.append(model)
            if undoRecording != nil { registerUndoOfDelete(model, hasRow: false) }
        case .persisted:
            state.lifecycle = .deleted
            deleted.append(model)
            if undoRecording != nil { registerUndoOfDelete(model, hasRow: true) }
            scheduleAutosave()
        case .deleted, .detached:
            break
        }
    }

    func detach(_ state: ModelState) {
        state.leaveOwner()
        state.lifecycle = .detached
        state.markClean()
    }

    // MARK: Identity map

    /// The registry of one entity's objects, made on first use.
    func registry(for table: EntityTable) -> RowRegistry {
        if let registry = existingRegistry(for: table) { return registry }
        // A class hierarchy's registry holds objects of each of its classes.
        let registry = RowRegistry(
            modelType: table.hierarchy == nil ? store.modelType(of: table) : nil,
            hasRelationships: table.hierarchy != nil || table.hasRelationships)
        identityMap[table.registryKey] = registry
        return registry
    }

    /// The registry of `table` if it has one. Lookups mostly go to one entity
    /// after another, so the last registry found is kept: an identity
    /// comparison instead of hashing.
    func existingRegistry(for table: EntityTable) -> RowRegistry? {
        let key = table.registryKey
        if let lastRegistry, lastRegistry.key == key { return lastRegistry.registry }
        guard let registry = identityMap[key] else { return nil }
        lastRegistry = (key, registry)
        return registry
    }

    func registered(_ table: EntityTable, rowID: Int64) -> (any PersistentModel)? {
        existingRegistry(for: table)?[rowID]
    }

    /// Registers an object as its row's object. The entry goes away when the
    /// object's state is freed (see `RowRegistry`).
    func register(_ model: any PersistentModel, table: EntityTable, rowID: Int64) {
        registry(for: table).register(model, rowID: rowID)
    }

    func unregister(_ table: EntityTable, rowID: Int64) {
        identityMap[table.registryKey]?.remove(rowID)
    }

    // MARK: Autosave

    // Inlined: called for every insert and first change, and mostly returns
    // at once (autosave is off outside the main context).
    @inline(__always)
    func scheduleAutosave() {
        guard autosaveEnabled, isMainContext, !isAutosaveScheduled else { return }
        startAutosaveTask()
    }

    private func startAutosaveTask() {
        isAutosaveScheduled = true
        let reference = MainContextReference(context: self)
        Task { @MainActor in
            reference.context?.autosave()
        }
    }

    private func autosave() {
        isAutosaveScheduled = false
        guard autosaveEnabled, hasChanges else { return }
        // A failed autosave leaves the changes pending, as documented on
        // `autosaveEnabled`; the app's next save() reports the error.
        try? save()
    }
}

extension ModelContext: ModelStateOwner {
    func stateLink(for table: EntityTable?) -> StateLink {
        // A fetch asks once per row, for one table.
        if let lastStateLink, lastStateLink.table === table { return lastStateLink }
        let link =
            stateLinks.first { $0.table === table }
            ?? {
                let made = StateLink(owner: self, table: table, keepsFaults: isSuccessor || isClosing)
                made.recordsUndo = undoRecording != nil
                stateLinks.append(made)
                return made
            }()
        lastStateLink = link
        return link
    }

    func adopt(_ model: any PersistentModel) {
        let state = model._$modelState
        // A successor takes no new objects: nobody can save them.
        guard state.owner == nil, state.lifecycle == .detached, !isSuccessor, !isClosing else { return }
        insert(model)
    }

    func loadAttribute(_ ordinal: Int, of model: any PersistentModel) -> Any? {
        let state = model._$modelState
        do {
            guard let table = state.table, let rowID = state.rowID, table.entity.properties.indices.contains(ordinal),
                let read = table.entity.properties[ordinal].readUnfetched, let column = table.slots[ordinal].column
            else {
                throw ModelStoreError.invalidValue(
                    entity: state.table?.name ?? String(describing: type(of: model)), property: "#\(ordinal)",
                    row: state.rowID, reason: "the attribute was not fetched and cannot be read on its own",
                    path: store.configuration.displayPath)
            }
            let sql = "SELECT \(quoteIdentifier(column)) FROM \(quoteIdentifier(table.tableName)) WHERE \(quoteIdentifier(primaryKeyColumn)) = ?"
            let statement = try connection().cachedStatement(sql)
            defer { statement.reset() }
            try statement.bind(rowID, at: 1)
            guard try statement.step() else {
                throw ModelStoreError.rowNotFound(entity: table.name, row: rowID, path: table.storePath)
            }
            do {
                return try read(statement, 0)
            } catch let failure as ValueCodingFailure {
                throw ModelStoreError.invalidValue(
                    entity: table.name, property: table.slots[ordinal].name, row: rowID, reason: failure.reason,
                    path: table.storePath)
            }
        } catch {
            loadDidFail(error)
            return nil
        }
    }

    func loadRelationship(_ relationship: RuntimeRelationship, of model: any PersistentModel) -> RelatedObjects? {
        let state = model._$modelState
        do {
            let related =
                state.link?.keepsFaults == true
                ? .models(try keptFaultModels(relationship, of: state))
                : try relatedObjects(
                    relationship, holderRowID: state.rowID, foreignKey: state.extras?.faultKeys[relationship.ordinal],
                    holder: model)
            if related.count > 1, !relationship.schema.isToMany {
                throw toOneClaimedTwice(relationship, of: state, count: related.count)
            }
            return related
        } catch {
            loadDidFail(error)
            return nil
        }
    }

    func loadDidFail(_ error: any Error) {
        lastFaultError = error
        LoadFailures.report(error)
    }

    func modelStateWillDeinit(table: EntityTable, rowID: Int64) {
        existingRegistry(for: table)?.removeIfFreed(rowID)
    }

    func modelDidBecomeDirty(_ model: any PersistentModel, state: ModelState, committed: consuming CommittedValue) {
        // Nobody can save the changes of an object whose context went (or
        // is going): they stay in memory, as on an object without context.
        if isSuccessor || isClosing {
            state.markClean()
            return
        }
        if state.lifecycle == .persisted || state.lifecycle == .deleted {
            changed.append(model, state: state, committed: committed)
            pendingWork.noteChange(in: state.table)
        }
        scheduleAutosave()
    }
}

/// A weak reference to the main context for its autosave task.
///
/// `mainContext` is vended only by the `@MainActor` property of the container
/// and `ModelContext` is not `Sendable`, so the context never leaves the main
/// actor; the task that uses this reference runs on the main actor too.
private struct MainContextReference: @unchecked Sendable {
    weak var context: ModelContext?
}

extension PersistentModel {
    /// The context the object belongs to, or nil when it was never inserted,
    /// was rolled back out of its context, or its context is gone. An object
    /// whose context is gone still loads its relationships (see
    /// ModelContext+Succession.swift); changes made to it are not saved.
    public var modelContext: ModelContext? {
        guard let context = _$modelState.owner as? ModelContext, !context.isSuccessor else { return nil }
        return context
    }
}
