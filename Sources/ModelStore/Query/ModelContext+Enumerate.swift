import Foundation

extension ModelContext {
    /// Calls `block` with every object a descriptor describes, in its order,
    /// reading the rows with one SQL statement and handing them over
    /// `batchSize` at a time. Objects of a finished batch are released
    /// unless the caller keeps them, so walking millions of rows takes
    /// constant memory.
    ///
    /// With `allowEscapingMutations` false (the default), changing an object
    /// in the block and leaving the change unsaved at the end of its batch is
    /// an error: those objects would have to stay in memory until a save.
    /// With pending changes to `T` in the context (and
    /// `includePendingChanges`), the objects come from `fetch(_:)` instead,
    /// so that the unsaved ones are included; memory is then not constant.
    /// So do they on a database that answers the predicate or sort in Swift
    /// (see `fetch(_:)`).
    /// - Throws: what `fetch(_:)` throws, `ModelStoreError.escapingMutations`,
    ///   and what `block` throws (which ends the enumeration).
    public func enumerate<T: PersistentModel>(
        _ descriptor: FetchDescriptor<T>, batchSize: Int = 5_000, allowEscapingMutations: Bool = false,
        block: (T) throws -> Void
    ) throws {
        try mergeExternalChanges()
        let batchSize = max(1, batchSize)
        let table = try table(for: T.self)
        let pending = descriptor.includePendingChanges ? PendingObjects(T.self, in: self) : PendingObjects()
        let query = try CompiledFetch(descriptor, context: self, table: table)
        let compiled = try query.select(limit: descriptor.fetchLimit.map { max(0, $0) }, offset: max(0, descriptor.fetchOffset ?? 0))
        if !pending.isEmpty || compiled.needsSwift {
            for batch in try fetch(descriptor).chunked(batchSize) {
                try visit(Array(batch), block: block, allowEscapingMutations: allowEscapingMutations)
            }
            return
        }
        // A statement of its own: the block may fetch with the same query.
        let statement = try connection().prepare(compiled.sql)
        try compiled.bind(to: statement)
        let registry = registry(for: table)
        let reader = rowRelationshipReader(for: table)
        var batch: [T] = []
        batch.reserveCapacity(batchSize)
        while try statement.step() {
            if let model = try materialize(
                T.self, table: table, registry: registry, reader: reader, unfetched: query.unfetched, from: statement)
            {
                batch.append(model)
            }
            if batch.count == batchSize {
                try visitFetched(batch, descriptor: descriptor, table: table, block: block, allowEscapingMutations: allowEscapingMutations)
                batch.removeAll(keepingCapacity: true)
            }
        }
        try visitFetched(batch, descriptor: descriptor, table: table, block: block, allowEscapingMutations: allowEscapingMutations)
    }

    /// The identifiers of the objects `fetch(_:)` would return, in order,
    /// without reading their attributes or registering them.
    /// - Throws: as `fetch(_:)`.
    public func fetchIdentifiers<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> [PersistentIdentifier] {
        try mergeExternalChanges()
        let table = try table(for: T.self)
        let pending = descriptor.includePendingChanges ? PendingObjects(T.self, in: self) : PendingObjects()
        let compiled = try CompiledFetch(descriptor, context: self, table: table)
            .selectKeys(limit: descriptor.fetchLimit.map { max(0, $0) }, offset: max(0, descriptor.fetchOffset ?? 0))
        guard pending.isEmpty, !compiled.needsSwift else { return try fetch(descriptor).map(\.persistentModelID) }
        let statement = try connection().cachedStatement(compiled.sql)
        defer { statement.reset() }
        try compiled.bind(to: statement)
        var identifiers: [PersistentIdentifier] = []
        while try statement.step() {
            // A superentity's rows name their own entity (column 1), so that
            // each identifier equals its object's `persistentModelID`.
            let rowID = statement.int64(at: 0)
            let entity = table.isPolymorphic ? try rowTable(of: table, rowID: rowID, column: 1, from: statement).name : table.name
            identifiers.append(.permanent(entityName: entity, storeIdentifier: table.storeIdentifier, rowID: rowID))
        }
        return identifiers
    }

    private func visitFetched<T: PersistentModel>(
        _ batch: [T], descriptor: FetchDescriptor<T>, table: EntityTable, block: (T) throws -> Void,
        allowEscapingMutations: Bool
    ) throws {
        guard !batch.isEmpty else { return }
        if !descriptor.relationshipKeyPathsForPrefetching.isEmpty {
            try prefetch(descriptor.relationshipKeyPathsForPrefetching, of: batch, table: table)
        }
        try visit(batch, block: block, allowEscapingMutations: allowEscapingMutations)
    }

    // An array, not any collection: this runs unspecialized (the caller's
    // model type is not known here), and walking a collection through its
    // protocol costs hundreds of instructions per element (its iterator's
    // witnesses, and copying each element through its type's value
    // witnesses); an array of class references is walked in place.
    private func visit<T: PersistentModel>(_ batch: [T], block: (T) throws -> Void, allowEscapingMutations: Bool) throws {
        for model in batch { try block(model) }
        guard !allowEscapingMutations, hasChanges else { return }
        let unsaved = batch.filter { model in
            let state = model._$modelState
            return state.lifecycle == .deleted || !state.dirty.isEmpty
        }
        if !unsaved.isEmpty {
            throw ModelStoreError.escapingMutations(
                entity: T.entityName, objects: unsaved.prefix(10).map { $0.persistentModelID.description })
        }
    }
}

extension Array {
    /// The array cut into consecutive slices of at most `size` elements.
    fileprivate func chunked(_ size: Int) -> [ArraySlice<Element>] {
        stride(from: 0, to: count, by: size).map { self[$0..<Swift.min($0 + size, count)] }
    }
}
