import Foundation

extension ModelContext {
    /// Fetches the objects a descriptor describes as a collection that loads
    /// them `batchSize` at a time, when an element of a batch is first read
    /// (see `FetchResultsCollection`). The fetch itself selects only the row
    /// keys, in order, and loads the first batch; predicate, sort descriptors,
    /// `fetchLimit`, `fetchOffset` and `propertiesToFetch` apply as in
    /// `fetch(_:)`, and `relationshipKeyPathsForPrefetching` is applied to
    /// each batch as it loads.
    ///
    /// ```swift
    /// var descriptor = FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.startDate)])
    /// let trips = try context.fetch(descriptor, batchSize: 1_000)
    /// ```
    ///
    /// Unsaved changes cannot be merged into a list of row keys: with
    /// `includePendingChanges` (the default) and unsaved inserts, changes or
    /// deletes of `T` in the context, the fetch throws (SwiftData throws
    /// `SwiftDataError.includePendingChangesWithBatchSize`). Save first, or set
    /// `includePendingChanges = false` to fetch the stored rows.
    ///
    /// A batch loads the rows of its keys as they are then. Should a row have
    /// been deleted since the fetch (by another context or process) and its
    /// object not be in this context any more, the element cannot be made,
    /// and reading it stops the program with a message naming the entity and
    /// row, as SwiftData does; so does a batch that cannot be read (an I/O
    /// error). Where rows may be deleted while the results are read, use
    /// `fetch(_:)` or `enumerate(_:batchSize:allowEscapingMutations:block:)`.
    ///
    /// - Throws: `ModelStoreError.unsupportedQuery` for a `batchSize` below 1,
    ///   for unsaved changes of `T` with `includePendingChanges` (both naming
    ///   the entity), and what `fetch(_:)` throws.
    /// - Complexity: the fetch reads every matching row key and one batch.
    public func fetch<T: PersistentModel>(
        _ descriptor: FetchDescriptor<T>, batchSize: Int
    ) throws -> FetchResultsCollection<T> {
        let (table, keys, _) = try batchKeys(descriptor, batchSize: batchSize)
        let unfetched = try CompiledFetch(descriptor, context: self, table: table).unfetched
        let prefetching = descriptor.relationshipKeyPathsForPrefetching
        let first = try models(T.self, keyed: keys[..<min(keys.count, batchSize)], table: table, unfetched: unfetched, prefetching: prefetching)
        let batches = FetchResultsBatches(count: keys.count, batchSize: batchSize, first: first) { [self] positions in
            do {
                return try models(T.self, keyed: keys[positions], table: table, unfetched: unfetched, prefetching: prefetching)
            } catch {
                // A subscript cannot throw, and there is no object to stand
                // for a row that is gone (see the doc comment above).
                preconditionFailure("fetch(_:batchSize:) cannot load \(T.entityName) objects \(positions): \(error)")
            }
        }
        return batches.collection
    }

    /// The identifiers of the objects `fetch(_:batchSize:)` would return, in
    /// order, as a collection. Identifiers are small, so the fetch reads every
    /// row key at once; an identifier is made when its element is read.
    ///
    /// - Throws: as `fetch(_:batchSize:)` (a `batchSize` below 1, unsaved
    ///   changes of `T` with `includePendingChanges`), and what
    ///   `fetchIdentifiers(_:)` throws.
    public func fetchIdentifiers<T: PersistentModel>(
        _ descriptor: FetchDescriptor<T>, batchSize: Int
    ) throws -> FetchResultsCollection<PersistentIdentifier> {
        let (table, keys, entities) = try batchKeys(descriptor, batchSize: batchSize)
        let (entity, store) = (table.name, table.storeIdentifier)
        return FetchResultsCollection(count: keys.count) { position in
            .permanent(entityName: entities.isEmpty ? entity : entities[position], storeIdentifier: store, rowID: keys[position])
        }
    }

    /// Checks a batched fetch's arguments and selects the row keys of the
    /// matching rows, in order, with each row's own entity for a
    /// superentity's table (empty otherwise).
    private func batchKeys<T: PersistentModel>(
        _ descriptor: FetchDescriptor<T>, batchSize: Int
    ) throws -> (EntityTable, [Int64], [String]) {
        guard batchSize >= 1 else {
            throw ModelStoreError.unsupportedQuery(
                entity: T.entityName, expression: "batchSize: \(batchSize)", reason: "a batch size must be at least 1")
        }
        let table = try table(for: T.self)
        if descriptor.includePendingChanges, !PendingObjects(T.self, in: self).isEmpty {
            throw ModelStoreError.unsupportedQuery(
                entity: T.entityName, expression: "a batched fetch with includePendingChanges",
                reason: "the context has unsaved changes of \(T.entityName), which a batched fetch cannot include; "
                    + "save first, or set includePendingChanges = false (SwiftData's includePendingChangesWithBatchSize)")
        }
        let compiled = try CompiledFetch(descriptor, context: self, table: table)
            .selectKeys(limit: descriptor.fetchLimit.map { max(0, $0) }, offset: max(0, descriptor.fetchOffset ?? 0))
        if compiled.needsSwift {
            let (keys, entities) = try matchingKeysAnsweredInSwift(descriptor, table: table)
            return (table, keys, entities)
        }
        let statement = try connection().cachedStatement(compiled.sql)
        defer { statement.reset() }
        try compiled.bind(to: statement)
        var keys: [Int64] = []
        var entities: [String] = []
        while try statement.step() {
            let rowID = statement.int64(at: 0)
            keys.append(rowID)
            if table.isPolymorphic { entities.append(try rowTable(of: table, rowID: rowID, column: 1, from: statement).name) }
        }
        return (table, keys, entities)
    }

    /// The row keys (and, for a superentity's table, each row's entity) of
    /// the objects a descriptor matches, when the database cannot answer
    /// its predicate or sort (a function only Swift has, on PostgreSQL):
    /// `fetch(_:)` answers it in Swift over every row of the entity, as
    /// `fetchIdentifiers(_:)` does, and the collection keeps the keys.
    /// - Throws: what `fetch(_:)` throws.
    private func matchingKeysAnsweredInSwift<T: PersistentModel>(
        _ descriptor: FetchDescriptor<T>, table: EntityTable
    ) throws -> ([Int64], [String]) {
        var keys: [Int64] = []
        var entities: [String] = []
        for object in try fetch(descriptor) {
            let identifier = object.persistentModelID
            // With no unsaved changes of T (checked first), or without
            // them (includePendingChanges false), every object has a row.
            guard let rowID = identifier.rowID else {
                throw ModelStoreError.unsupportedQuery(
                    entity: T.entityName, expression: "a batched fetch",
                    reason: "an object it matched has no row yet; save first")
            }
            keys.append(rowID)
            if table.isPolymorphic { entities.append(identifier.entityName) }
        }
        return (keys, entities)
    }

    /// The objects of `keys`, in their order: registered ones as they are,
    /// the others read in one query, then the batch's prefetching.
    /// - Throws: `ModelStoreError.rowNotFound` for a key whose row is gone and
    ///   whose object the context does not hold; what reading rows throws.
    private func models<T: PersistentModel>(
        _ type: T.Type, keyed keys: ArraySlice<Int64>, table: EntityTable, unfetched: PropertyBitSet,
        prefetching: [PartialKeyPath<T>]
    ) throws -> [T] {
        let missing = keys.filter { !(registered(table, rowID: $0) is T) }
        // Held until the batch is collected: the identity map holds them weakly.
        var read: [T] = []
        if !missing.isEmpty {
            let sql = """
                SELECT \(table.selectColumns(qualifier: nil, omitting: unfetched, version: table.versionSelect)) \
                FROM \(quoteIdentifier(table.tableName)) \
                WHERE \(quoteIdentifier(primaryKeyColumn)) \(RelationshipSQL.inKeys)
                """
            read = try fetchRows(T.self, table: table, sql: sql, unfetched: unfetched) { try $0.bind(jsonKeys(missing), at: 1) }
        }
        let batch = try withExtendedLifetime(read) {
            try keys.map { key in
                guard let model = registered(table, rowID: key) as? T else {
                    throw ModelStoreError.rowNotFound(entity: T.entityName, row: key, path: store.configuration.displayPath)
                }
                return model
            }
        }
        if !prefetching.isEmpty { try prefetch(prefetching, of: batch, table: table) }
        return batch
    }
}
