import Foundation

extension ModelContext {
    /// Fetches the objects a descriptor describes, in one SQL statement: the
    /// predicate and sort descriptors are compiled to SQL with bound values
    /// (see the README for the supported forms), and the limit and offset run
    /// in SQL too. Objects already registered in the context are returned as
    /// they are (with their unsaved changes); the others are read from the
    /// store. Within one context the same row is always the same object.
    ///
    /// With `includePendingChanges` (the default), unsaved inserted and
    /// changed objects that match are included, deleted ones excluded, and
    /// the order covers both. Relationships load on first access (see
    /// `relationshipKeyPathsForPrefetching`).
    ///
    /// On a database without Swift inside SQL (PostgreSQL), a predicate or
    /// sort that needs it (`contains` on text, a localized sort…) is
    /// answered in Swift after reading every row of the entity: the same
    /// answer, at the cost of the whole table (see "Scaling out").
    /// - Throws: `ModelStoreError.unsupportedQuery` naming a part of the
    ///   predicate or a sort descriptor that has no SQL form (nothing is
    ///   evaluated in memory instead), `.invalidValue` for a row that does not
    ///   fit the model or a prefetch key path that is not a relationship,
    ///   `.entityNotInSchema`, `SQLiteError` for I/O failures.
    public func fetch<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> [T] {
        try mergeExternalChanges()
        let results = try fetchObjects(descriptor)
        _checkIdentityMap()
        if !descriptor.relationshipKeyPathsForPrefetching.isEmpty {
            // Without predicate, offset or limit, the results hold every
            // stored row (and unsaved objects, which have nothing to load).
            let wholeTable =
                descriptor.predicate == nil && descriptor.fetchLimit == nil && (descriptor.fetchOffset ?? 0) <= 0
            try prefetch(
                descriptor.relationshipKeyPathsForPrefetching, of: Self.existentials(results),
                table: try table(for: T.self), wholeTable: wholeTable)
        }
        return results
    }

    private func fetchObjects<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> [T] {
        let table = try table(for: T.self)
        let query = try CompiledFetch(descriptor, context: self, table: table)
        let offset = max(0, descriptor.fetchOffset ?? 0)
        let limit = descriptor.fetchLimit.map { max(0, $0) }
        let pending = descriptor.includePendingChanges ? PendingObjects(T.self, in: self) : PendingObjects()
        // SQLite runs every form: only another database pays the check.
        if !query.dialect.runsSwiftInSQL, try query.select(limit: nil, offset: 0).needsSwift {
            return try fetchInSwift(descriptor, query: query, table: table, pending: pending)
        }
        guard !pending.isEmpty else {
            let compiled = try query.select(limit: limit, offset: offset)
            return try fetchRows(T.self, table: table, sql: compiled.sql, unfetched: query.unfetched) { try compiled.bind(to: $0) }
        }
        // Unsaved changes: the store's order is right for every row not
        // changed in memory. Each changed or deleted object can leave the
        // store's result, so `pending.count` more rows are enough to fill the
        // window after they are taken out and re-placed from memory.
        let compiled = try query.select(limit: limit.map { offset + $0 + pending.stored.count }, offset: 0)
        var results = try fetchRows(T.self, table: table, sql: compiled.sql, unfetched: query.unfetched) {
            try compiled.bind(to: $0)
        }
        results.removeAll { pending.stored.contains(ObjectIdentifier($0)) }
        for model in pending.candidates where try descriptor.predicate?.evaluate(model) ?? true {
            results.append(model)
        }
        results = orderedInMemory(results, by: descriptor.sortBy)
        let start = min(offset, results.count)
        let end = limit.map { min(results.count, start + $0) } ?? results.count
        return Array(results[start..<end])
    }

    /// A fetch whose predicate or sort needs Swift that the database cannot
    /// run (see `QueryDialect.runsSwiftInSQL`): every row of the entity is
    /// read, and the predicate, the order and the window are applied here,
    /// exactly as `Predicate.evaluate` and `SortDescriptor` say.
    private func fetchInSwift<T: PersistentModel>(
        _ descriptor: FetchDescriptor<T>, query: CompiledFetch<T>, table: EntityTable, pending: PendingObjects<T>
    ) throws -> [T] {
        let everything = try query.selectAll()
        var results = try fetchRows(T.self, table: table, sql: everything.sql, unfetched: query.unfetched) {
            try everything.bind(to: $0)
        }
        results.removeAll { pending.stored.contains(ObjectIdentifier($0)) }
        results += pending.candidates
        if let predicate = descriptor.predicate { results = try results.filter { try predicate.evaluate($0) } }
        results = orderedInMemory(results, by: descriptor.sortBy)
        let start = min(max(0, descriptor.fetchOffset ?? 0), results.count)
        let end = descriptor.fetchLimit.map { min(results.count, start + max(0, $0)) } ?? results.count
        return Array(results[start..<end])
    }

    /// The number of objects `fetch(_:)` would return, counted in SQL.
    /// - Throws: as `fetch(_:)`.
    public func fetchCount<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> Int {
        try mergeExternalChanges()
        let table = try table(for: T.self)
        let pending = descriptor.includePendingChanges ? PendingObjects(T.self, in: self) : PendingObjects()
        let compiled = try CompiledFetch(descriptor, context: self, table: table).count()
        guard pending.isEmpty, !compiled.needsSwift else { return try fetchObjects(descriptor).count }
        let statement = try connection().cachedStatement(compiled.sql)
        defer { statement.reset() }
        try compiled.bind(to: statement)
        _ = try statement.step()
        let total = Int(statement.int64(at: 0))
        let afterOffset = max(0, total - max(0, descriptor.fetchOffset ?? 0))
        return descriptor.fetchLimit.map { min(afterOffset, max(0, $0)) } ?? afterOffset
    }

    /// The row key an identifier names in this context's store (a temporary
    /// identifier of a saved object included); nil for any other.
    func rowKey(of identifier: PersistentIdentifier) -> Int64? {
        row(of: identifier)?.rowID
    }

    /// Fetches the object with this identifier: the registered one when the
    /// context has it (temporary identifiers of saved objects included),
    /// otherwise read from the store. Nil when there is no such object, or its
    /// row cannot be read: then the error is kept in `lastFaultError` (use
    /// `model(for:as:)` to have it thrown).
    public func model(for persistentModelID: PersistentIdentifier) -> (any PersistentModel)? {
        // Other contexts' saves, not other processes' commits: lookups come
        // by the thousand, and an inbox costs an atomic load (see
        // ModelContext+Merge.swift).
        mergeExternalChangesReportingErrors(checkingStore: false)
        do {
            return try existingModel(for: persistentModelID)
        } catch {
            loadDidFail(error)
            return nil
        }
    }

    /// Fetches the object with this identifier as a `T`.
    /// - Returns: nil when there is no such object or it is not a `T`.
    /// - Throws: `ModelStoreError.invalidValue` when the row does not fit the
    ///   model, `SQLiteError` for I/O failures.
    public func model<T: PersistentModel>(for persistentModelID: PersistentIdentifier, as type: T.Type) throws -> T? {
        try mergeExternalChanges(checkingStore: false)
        return try existingModel(for: persistentModelID) as? T
    }

    /// The object with this identifier if the context already holds it; never
    /// reads the store.
    public func registeredModel<T: PersistentModel>(for persistentModelID: PersistentIdentifier) -> T? {
        registeredObject(for: persistentModelID) as? T
    }

    /// The table and row an identifier names in this context's store; for a
    /// temporary identifier, the row its object was saved to. Nil for an
    /// identifier of another store or of an object not saved yet.
    private func row(of identifier: PersistentIdentifier) -> (table: EntityTable, rowID: Int64)? {
        let permanent = identifier.isTemporary ? permanentIdentifiers[identifier] : identifier
        guard let permanent, let rowID = permanent.rowID, let table = table(named: permanent.entityName),
            permanent.storeIdentifier == table.storeIdentifier
        else { return nil }
        return (table, rowID)
    }

    /// The table of an entity by name. Lookups by identifier mostly name one
    /// entity after another, so the last table found is kept: a name
    /// comparison instead of hashing the name.
    private func table(named name: String) -> EntityTable? {
        if let lastNamedTable, lastNamedTable.name == name { return lastNamedTable }
        lastNamedTable = store.table(named: name)
        return lastNamedTable
    }

    private func registeredObject(for identifier: PersistentIdentifier) -> (any PersistentModel)? {
        guard let (table, rowID) = row(of: identifier) else {
            guard identifier.isTemporary else { return nil }
            return inserted.models.first { $0._$modelState.temporaryIdentifier == identifier }
        }
        return registered(table, rowID: rowID)
    }

    private func existingModel(for identifier: PersistentIdentifier) throws -> (any PersistentModel)? {
        guard let (table, rowID) = row(of: identifier) else { return registeredObject(for: identifier) }
        if let model = registered(table, rowID: rowID) { return model }
        guard let type = store.modelType(of: table) else { return nil }
        return try fetchOne(type, table: table, rowID: rowID)
    }

    func fetchOne<T: PersistentModel>(_ type: T.Type, table: EntityTable, rowID: Int64) throws -> T? {
        var statement = try statements.statement(.selectByKey, for: table, on: connection()) { table.selectByKeySQL }
        // Loading a non-optional to-one while this row is read may look up
        // another row of the same entity: that needs a statement of its own.
        if statement.isRunning { statement = try connection().prepare(table.selectByKeySQL) }
        defer { statement.reset() }
        try statement.bind(rowID, at: 1)
        guard try statement.step() else { return nil }
        return try materialize(
            type, table: table, registry: registry(for: table), reader: rowRelationshipReader(for: table), from: statement)
    }

    // MARK: Reading rows

    func table<T: PersistentModel>(for type: T.Type) throws(ModelStoreError) -> EntityTable {
        guard let table = store.table(for: type) else { throw .entityNotInSchema(entity: T.entityName) }
        return table
    }

    /// Runs a SELECT of `table.selectSQL`'s columns and returns one object per
    /// row, registered ones first from the identity map.
    func fetchRows<T: PersistentModel>(
        _ type: T.Type, table: EntityTable, sql: String, unfetched: PropertyBitSet = PropertyBitSet(),
        bind: (Statement) throws -> Void = { _ in }
    ) throws -> [T] {
        let statement = try connection().cachedStatement(sql)
        defer { statement.reset() }
        try bind(statement)
        return try readRows(type, table: table, unfetched: unfetched, from: statement)
    }

    /// Steps through a bound SELECT of `table.selectSQL`'s columns.
    private func readRows<T: PersistentModel>(
        _ type: T.Type, table: EntityTable, unfetched: PropertyBitSet, from statement: Statement
    ) throws -> [T] {
        if table.isPolymorphic {
            return Self.reinterpret(try readPolymorphicRows(type, table: table, unfetched: unfetched, from: statement), as: T.self)
        }
        let registry = registry(for: table)
        guard let reader = rowRelationshipReader(for: table) else {
            return try readRowsRegisteringAfter(type, table: table, registry: registry, unfetched: unfetched, from: statement)
        }
        // Collected as AnyObject: appending to an [T] inside this generic
        // function would look up Array<T>'s metadata on every append.
        var objects: [AnyObject] = []
        while try statement.step() {
            if let model = try materialize(
                type, table: table, registry: registry, reader: reader, unfetched: unfetched, from: statement)
            {
                objects.append(model)
            }
        }
        return Self.reinterpret(objects, as: T.self)
    }

    /// `readRows` for an entity without relationships, whose objects are
    /// registered once all rows are read: then the identity map grows once,
    /// to its final size, instead of doubling its way there (rehashing every
    /// entry each time cost as much as registering them).
    ///
    /// Only without relationships: making an object with relationships can
    /// look up another row of the same entity (a non-optional to-one),
    /// which must find the objects made before it. Without them, nothing
    /// runs between two rows but their initializers, and a SELECT of one
    /// table has each row once; should a row still come twice, the object
    /// registered first stands for it in the result.
    private func readRowsRegisteringAfter<T: PersistentModel>(
        _ type: T.Type, table: EntityTable, registry: RowRegistry, unfetched: PropertyBitSet, from statement: Statement
    ) throws -> [T] {
        var objects: [AnyObject] = []
        // The row of each new object, in order; `reused` holds the
        // positions in `objects` of registered objects (no new row).
        var newRowIDs: [Int64] = []
        var reused: [Int] = []
        // Nothing to look up in an empty identity map, and nothing this loop
        // makes is registered before it ends.
        let looksUp = registry.count > 0
        do {
            while try statement.step() {
                let rowID = statement.int64(at: 0)
                if looksUp, let existing = registry[rowID] {
                    if let model = existing as? T {
                        reused.append(objects.count)
                        objects.append(model)
                    }
                    continue
                }
                objects.append(
                    try makeModel(type, rowID: rowID, table: table, reader: nil, unfetched: unfetched, from: statement))
                // Now, while the new object is in the cache (see prepareEntry).
                objects.withUnsafeBufferPointer { registry.prepareEntry(objectAt: $0.count - 1, of: $0) }
                newRowIDs.append(rowID)
            }
        } catch {
            Self.discardPrepared(objects, reused: reused, in: registry)
            throw error
        }
        guard !newRowIDs.isEmpty else { return Self.reinterpret(objects, as: T.self) }
        registry.reserveCapacity(registry.count + newRowIDs.count)
        var taken: [(position: Int, model: any PersistentModel)] = []
        objects.withUnsafeBufferPointer { objects in
            var reusedIndex = 0
            var newIndex = 0
            for position in objects.indices {
                if reusedIndex < reused.count && reused[reusedIndex] == position {
                    reusedIndex += 1
                    continue
                }
                // By position: the buffer keeps the object alive.
                if let registered = registry.registerUnlessTaken(
                    preparedObjectAt: position, of: objects, rowID: newRowIDs[newIndex])
                {
                    taken.append((position, registered))
                }
                newIndex += 1
            }
        }
        for (position, registered) in taken { objects[position] = registered }
        return Self.reinterpret(objects, as: T.self)
    }

    /// Gives back what `readRowsRegisteringAfter` prepared for the new
    /// objects among `objects` (every position but the `reused` ones) when
    /// its loop fails before registering them. A failure's path, so a set
    /// rather than the registration loop's merge walk.
    private static func discardPrepared(_ objects: [AnyObject], reused: [Int], in registry: RowRegistry) {
        let reused = Set(reused)
        objects.withUnsafeBufferPointer { objects in
            for position in objects.indices where !reused.contains(position) {
                registry.discardPrepared(objectAt: position, of: objects)
            }
        }
    }

    /// `objects` as `[T]`. Every element is a T (made by T's initializer, or
    /// checked with `as? T`): reinterpreted in O(1) (see ClassArrays.swift).
    private static func reinterpret<T: PersistentModel>(_ objects: [AnyObject], as type: T.Type) -> [T] {
        ClassArrays.reinterpret(objects, as: T.self)
    }

    /// `models` as a list of models. Made here, where T is known, each
    /// element's existential is formed statically (passing `models` cast
    /// each one at run time), and through the objects' array, which this
    /// unspecialized code walks without asking for T's array metadata
    /// (`map` did, costing about 400 instructions per object).
    private static func existentials<T: PersistentModel>(_ models: [T]) -> [any PersistentModel] {
        let objects = ClassArrays.erase(models)
        var existentials: [any PersistentModel] = []
        existentials.reserveCapacity(objects.count)
        for object in objects { existentials.append(unsafeDowncast(object, to: T.self)) }
        return existentials
    }

    /// The object for the statement's current row: the registered one, or a
    /// new one read from the row and registered. Nil when another class is
    /// registered for the row, which would be a schema bug; skipping it is
    /// safer than returning an object of the wrong type.
    /// `reader` is the fetch's reader for `table`'s relationship columns (nil
    /// when it has none): one per statement loop, so that a nested load (a
    /// non-optional to-one) uses a reader of its own.
    /// `unfetched`: the attributes a partial fetch did not select, which
    /// become faults.
    func materialize<T: PersistentModel>(
        _ type: T.Type, table: EntityTable, registry: RowRegistry, reader: RowRelationshipReader?,
        unfetched: PropertyBitSet = PropertyBitSet(), from statement: Statement
    ) throws -> T? {
        let rowID = statement.int64(at: 0)
        if let existing = registry[rowID] { return existing as? T }
        if table.isPolymorphic {
            let model = try makePolymorphicModel(
                table: table, rowID: rowID, reader: reader, unfetched: unfetched, from: statement)
            registry.register(model, rowID: rowID)
            return model as? T
        }
        let model = try makeModel(type, rowID: rowID, table: table, reader: reader, unfetched: unfetched, from: statement)
        registry.register(model, rowID: rowID)
        return model
    }

    /// A new object read from the statement's current row, owned by this
    /// context but not registered yet.
    func makeModel<T: PersistentModel>(
        _ type: T.Type, rowID: Int64, table: EntityTable, reader: RowRelationshipReader?,
        unfetched: PropertyBitSet, from statement: Statement, versionColumn: Int32? = nil
    ) throws -> T {
        let link = stateLink(for: table)
        // A superentity's SELECT (`versionColumn`) is wider than `table`'s own.
        let version = statement.int64(at: versionColumn ?? table.versionColumn)
        let (model, handOver) = try PersistentRow.make(
            statement: statement, rowID: rowID, version: version, table: table, link: link, relationships: reader,
            unfetched: unfetched, handOver: handOverSlot, T.init(_$row:))
        switch handOver {
        case .fetchedRow:
            // The object keeps its row and makes its state when it needs it:
            // now, only if the row left faults.
            if reader?.hasFaults == true || !unfetched.isEmpty {
                setUpFaults(model._$modelState, reader: reader, unfetched: unfetched)
            }
        case .state(let attached):
            // The attached state lives as long as `model`; using it unretained
            // spares the protocol witness that would hand out a retained one.
            attached._withUnsafeGuaranteedRef {
                setUpFetched($0, rowID: rowID, version: version, link: link, reader: reader, unfetched: unfetched)
            }
        case .nothing:
            setUpFetched(
                model._$modelState, rowID: rowID, version: version, link: link, reader: reader, unfetched: unfetched)
        }
        if reader != nil, !table.forwardingRelationships.isEmpty { linkForwarding(of: model, table: table) }
        return model
    }

    @inline(__always)
    private func setUpFetched(
        _ state: ModelState, rowID: Int64, version: Int64, link: StateLink, reader: RowRelationshipReader?,
        unfetched: PropertyBitSet
    ) {
        setUpFaults(state, reader: reader, unfetched: unfetched)
        state.link = link
        state.lifecycle = .persisted
        state.rowID = rowID
        state.version = version
    }

    @inline(__always)
    private func setUpFaults(_ state: ModelState, reader: RowRelationshipReader?, unfetched: PropertyBitSet) {
        reader?.moveFaults(to: state)
        if !unfetched.isEmpty {
            for ordinal in unfetched { state.faults.insert(ordinal) }
        }
    }

    /// Relationships read with the row (a to-one whose object was
    /// registered) forward changes from the start, like loaded ones.
    private func linkForwarding(of model: any PersistentModel, table: EntityTable) {
        for relationship in table.forwardingRelationships {
            guard let members = relationship.accessor.loadedModels(of: model), !members.isEmpty else { continue }
            relationship.accessor.updateForwarding(of: model, adding: members, removing: [])
        }
    }

    /// A reader that resolves a row's relationship columns against this
    /// context: registered objects at once, the rest as faults.
    ///
    /// A successor's rows resolve nothing at once: their optional
    /// relationships stay faults with their keys (see `StateLink.keepsFaults`).
    func rowRelationshipReader(for table: EntityTable) -> RowRelationshipReader? {
        guard table.hasRelationships else { return nil }
        let keepsFaults = isSuccessor || isClosing
        return RowRelationshipReader(
            registryNamed: { [unowned self] destination in
                keepsFaults ? nil : store.table(named: destination).flatMap { existingRegistry(for: $0) }
            },
            load: { [unowned self] relationship, holderRowID, foreignKey in
                try relatedModels(relationship, holderRowID: holderRowID, foreignKey: foreignKey)
            })
    }

    /// Orders objects by sort descriptors, then as the store orders equal
    /// keys: by row key, unsaved objects last in the order they were inserted.
    private func orderedInMemory<T: PersistentModel>(_ models: [T], by descriptors: [SortDescriptor<T>]) -> [T] {
        models.enumerated().sorted { lhs, rhs in
            for descriptor in descriptors {
                switch descriptor.compare(lhs.element, rhs.element) {
                case .orderedAscending: return true
                case .orderedDescending: return false
                case .orderedSame: continue
                }
            }
            switch (lhs.element._$modelState.rowID, rhs.element._$modelState.rowID) {
            case (let left?, let right?): return left < right
            case (.some, nil): return true
            case (nil, .some): return false
            case (nil, nil): return lhs.offset < rhs.offset
            }
        }.map(\.element)
    }
}
