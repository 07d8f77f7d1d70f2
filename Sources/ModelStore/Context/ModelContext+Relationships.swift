import Foundation

// Loading relationships: faults fired on first access (one query each, or an
// identity-map hit for a to-one), and prefetching for a whole fetch result
// (one query per relationship).

extension ModelContext {
    /// The objects relationship `relationship` of the row `holderRowID` holds,
    /// in order. For a to-one stored in the holder's row, `foreignKey` is the
    /// related row's key. An object not saved yet has nothing in the store.
    /// - Throws: `ModelStoreError` when a row cannot be read; `SQLiteError`.
    func relatedModels(
        _ relationship: RuntimeRelationship, holderRowID: Int64?, foreignKey: Int64?
    ) throws -> [any PersistentModel] {
        try relatedObjects(relationship, holderRowID: holderRowID, foreignKey: foreignKey).models
    }

    /// `relatedModels`, with the objects of a to-many kept as their class's
    /// array (see `RelatedObjects`), so that a fault hands them to its
    /// property as they are. `holder`: the registered object of row
    /// `holderRowID`, when the caller has it (a fault firing), so that the
    /// related rows that link back to it through a column of theirs resolve
    /// that link without a look-up.
    /// - Throws: as `relatedModels`.
    func relatedObjects(
        _ relationship: RuntimeRelationship, holderRowID: Int64?, foreignKey: Int64?,
        holder: (any PersistentModel)? = nil
    ) throws -> RelatedObjects {
        let destination = try destinationTable(of: relationship)
        let type = try modelType(of: destination)
        if relationship.schema.foreignKeyColumn != nil {
            guard let foreignKey else { return .empty }
            if let model = registered(destination, rowID: foreignKey) { return .models([model]) }
            return try withEagerLoadGuard(relationship) {
                .models(try fetchOne(type, table: destination, rowID: foreignKey).map { [$0] } ?? [])
            }
        }
        guard let holderRowID else { return .empty }
        let query = try relatedRowsQuery(relationship, destination: destination, holders: .one)
        let backOrdinal = relationship.inverseColumnOrdinal
        return try withEagerLoadGuard(relationship) {
            try relatedRows(
                type, table: destination, query: query, holderRowID: holderRowID,
                expecting: backOrdinal.flatMap { ordinal in holder.map { ($0, ordinal) } })
        }
    }

    /// Runs a SELECT of the rows related to the holder whose key is bound at
    /// parameter 1 (see `relatedRowsQuery`) and returns their objects in
    /// order, as T's array. `expecting`: the holder and the ordinal of the
    /// rows' relationship back to it, a column of theirs (see
    /// `RuntimeRelationship.inverseColumnOrdinal`).
    private func relatedRows<T: PersistentModel>(
        _ type: T.Type, table: EntityTable, query: RelatedRowsQueries.Query, holderRowID: Int64,
        expecting: (holder: any PersistentModel, ordinal: Int)?
    ) throws -> RelatedObjects {
        let statement = try connection().cachedStatement(query.sql, keptIn: &query.statement)
        defer { statement.reset() }
        try statement.bind(holderRowID, at: 1)
        let registry = registry(for: table)
        let reader = rowRelationshipReader(for: table)
        if let expecting { reader?.expect(expecting.holder, rowID: holderRowID, through: expecting.ordinal) }
        // Faults come in runs (a loop over holders), mostly of one
        // relationship whose holders hold alike: room for as many as the
        // last one read spares growing the array one doubling at a time.
        // The array becomes the property's value, so room left far unused
        // is given back by a copy (rare: a holder of many after one of few).
        // Collected as AnyObject: this function is not specialized (see
        // `prefetchRows`).
        var objects: [AnyObject] = []
        objects.reserveCapacity(lastRelatedRowCount)
        while try statement.step() {
            guard let model = try materialize(type, table: table, registry: registry, reader: reader, from: statement)
            else { continue }
            objects.append(model)
        }
        lastRelatedRowCount = objects.count
        if objects.capacity > 2 * objects.count + 8 { objects = objects.withUnsafeBufferPointer { Array($0) } }
        return .objects(objects, of: T.self)
    }

    private func withEagerLoadGuard<Result>(_ relationship: RuntimeRelationship, _ body: () throws -> Result) throws -> Result {
        guard eagerLoadDepth < 64 else {
            throw ModelStoreError.invalidValue(
                entity: relationship.schema.destination, property: relationship.schema.name, row: nil,
                reason: "non-optional to-one relationships nest too deep to load (a cycle of them?); make one optional",
                path: store.path)
        }
        eagerLoadDepth += 1
        defer { eagerLoadDepth -= 1 }
        return try body()
    }

    /// The model class of `table`'s objects.
    /// - Throws: `ModelStoreError.entityNotInSchema` when the container's
    ///   schema was not built from classes that include it.
    func modelType(of table: EntityTable) throws -> any PersistentModel.Type {
        guard let type = store.modelType(of: table) else { throw ModelStoreError.entityNotInSchema(entity: table.name) }
        return type
    }

    func destinationTable(of relationship: RuntimeRelationship) throws -> EntityTable {
        guard let table = store.table(named: relationship.schema.destination) else {
            throw ModelStoreError.entityNotInSchema(entity: relationship.schema.destination)
        }
        return table
    }

    /// A SELECT of the destination's rows related to `holders` (see
    /// `RelationshipSQL.relatedRows`), in the relationship's order: the SQL
    /// and the column that holds the holder's key: the last one, or, for a
    /// to-many stored as its inverse's foreign key, that key's own column
    /// among the destination's (each row would otherwise carry it twice).
    /// Built once per context (see `RelatedRowsQueries`).
    func relatedRowsQuery(
        _ relationship: RuntimeRelationship, destination: EntityTable, holders: RelationshipSQL.Holders
    ) throws -> RelatedRowsQueries.Query {
        try relatedRowsQueries.query(relationship, destination: destination, holders: holders) {
            var linkColumn: Int32?
            if case .inverseForeignKey = relationship.schema.storage {
                linkColumn = destination.selectColumn(ofForeignKey: relationship.inverse)
            }
            guard
                let sql = RelationshipSQL.relatedRows(
                    relationship.schema, inverse: relationship.inverse?.schema,
                    destinationColumns: destination.selectColumns(qualifier: "t", version: destination.versionSelect),
                    destinationTable: destination.tableName, holders: holders, linkAmongColumns: linkColumn != nil)
            else {
                throw ModelStoreError.invalidSchema(
                    reason: "relationship \(relationship.schema.destination) of \(relationship.schema.name) has no storage")
            }
            return RelatedRowsQueries.Query(sql: sql, holderColumn: linkColumn ?? destination.firstExtraColumn)
        }
    }

    /// Runs a SELECT whose first columns are `table`'s select columns and
    /// returns each row's object with the value of column `extraColumn`, if given.
    func rows<T: PersistentModel>(
        _ type: T.Type, table: EntityTable, sql: String, extraColumn: Int32? = nil,
        bind: (Statement) throws -> Void
    ) throws -> [(model: any PersistentModel, extra: Int64)] {
        let statement = try connection().cachedStatement(sql)
        defer { statement.reset() }
        try bind(statement)
        let registry = registry(for: table)
        let reader = rowRelationshipReader(for: table)
        var result: [(model: any PersistentModel, extra: Int64)] = []
        while try statement.step() {
            guard let model = try materialize(type, table: table, registry: registry, reader: reader, from: statement)
            else { continue }
            result.append((model, extraColumn.map { statement.int64(at: $0) } ?? 0))
        }
        return result
    }

    // MARK: Prefetching

    /// Loads the relationships named by `keyPaths` for all of `models` (of
    /// `table`), one query per relationship, and sets them on each object.
    /// `wholeTable`: `models` are every stored row of `table` (a fetch without
    /// predicate, offset or limit), so that the queries need not name them.
    /// - Throws: `ModelStoreError.invalidValue` when a key path is not a
    ///   relationship of the entity; what loading throws.
    func prefetch(
        _ keyPaths: [AnyKeyPath], of models: [any PersistentModel], table: EntityTable, wholeTable: Bool = false
    ) throws {
        guard !models.isEmpty else { return }
        for keyPath in keyPaths {
            guard let property = table.entity.properties.first(where: { $0.keyPath == keyPath }),
                let relationship = table.relationships?.relationship(at: property.ordinal)
            else {
                throw ModelStoreError.invalidValue(
                    entity: table.name, property: "\(keyPath)", row: nil,
                    reason: "relationshipKeyPathsForPrefetching names a property that is not a relationship",
                    path: store.path)
            }
            try prefetch(relationship, of: models, wholeTable: wholeTable)
        }
    }

    private func prefetch(_ relationship: RuntimeRelationship, of models: [any PersistentModel], wholeTable: Bool) throws {
        let holders = PrefetchHolders(relationship, of: models)
        guard !holders.isEmpty else { return }
        let destination = try destinationTable(of: relationship)
        guard let type = store.modelType(of: destination) else { return }
        // Naming every holder's key makes SQLite parse them and build a
        // temporary index of them; after a fetch of a whole table whose
        // objects are mostly faults, reading every linked row is cheaper. A
        // to-one held in the holder's row has no such form.
        let everyRow = wholeTable && relationship.schema.foreignKeyColumn == nil && holders.count * 2 >= models.count
        let query = try relatedRowsQuery(
            relationship, destination: destination, holders: everyRow ? .all : .many)
        let keys = everyRow ? nil : jsonKeys(holders.keys)
        try prefetchRows(type, table: destination, sql: query.sql, holderColumn: query.holderColumn, into: holders) {
            if let keys { try $0.bind(keys, at: 1) }
        }
        holders.finish()
    }

    /// Runs a prefetch's SELECT (rows ordered by holder key, the key in
    /// column `holderColumn`) and hands each holder's run of rows to it.
    private func prefetchRows<T: PersistentModel>(
        _ type: T.Type, table: EntityTable, sql: String, holderColumn: Int32, into holders: PrefetchHolders,
        bind: (Statement) throws -> Void
    ) throws {
        let statement = try connection().cachedStatement(sql)
        defer { statement.reset() }
        try bind(statement)
        let registry = registry(for: table)
        let reader = rowRelationshipReader(for: table)
        // Each run is an array of T objects (see `RelatedObjects`), held as
        // `[AnyObject]`: this function is not specialized, and appending to
        // a `[T]` asked the runtime for the array's metadata per row.
        var run: [AnyObject] = []
        var runKey: Int64 = 0
        var runHolder: Int?
        var started = false
        while try statement.step() {
            let key = statement.int64(at: holderColumn)
            if key != runKey || !started {
                if let runHolder, !run.isEmpty {
                    holders.receive(.objects(run, of: T.self), from: runHolder)
                    // The run handed over keeps its buffer; the next gets one
                    // of the same capacity, so that runs of equal length
                    // never grow.
                    run.removeAll(keepingCapacity: true)
                }
                started = true
                runKey = key
                runHolder = holders.first(forKey: key)
                // Each row of the run links back to the holder (a to-many's
                // inverse is a column of the row): the reader gets it from
                // here instead of probing the identity map for every run.
                if let runHolder, let backOrdinal = holders.backOrdinal {
                    reader?.expect(holders.model(at: runHolder), rowID: key, through: backOrdinal)
                }
            }
            // Rows of objects that are not holders (a read of every linked
            // row) are not read into objects nobody asked for.
            guard runHolder != nil,
                let model = try materialize(type, table: table, registry: registry, reader: reader, from: statement)
            else { continue }
            run.append(model)
        }
        if let runHolder, !run.isEmpty { holders.receive(.objects(run, of: T.self), from: runHolder) }
    }

    /// Makes loaded objects the value of a relationship that was a fault,
    /// without counting it as a change.
    func setLoaded(_ models: [any PersistentModel], for relationship: RuntimeRelationship, of holder: any PersistentModel) {
        let state = holder._$modelState
        state.faults.remove(relationship.ordinal)
        state.extras?.faultKeys[relationship.ordinal] = nil
        let wasApplying = state.isApplyingStoredValues
        state.isApplyingStoredValues = true
        defer { state.isApplyingStoredValues = wasApplying }
        relationship.accessor.setModels(models, of: holder)
    }
}
