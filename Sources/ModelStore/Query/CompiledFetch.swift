import Foundation

/// A fetch descriptor's predicate and sort descriptors, translated for one
/// fetch. The SQL text depends only on the shape of the predicate, so each
/// shape is prepared once and then found in the connection's statement cache.
struct CompiledFetch<T: PersistentModel> {
    let schema: Schema
    let dialect: QueryDialect
    let table: EntityTable
    let condition: QueryExpression?
    let orderings: [QueryOrdering]
    /// The attributes `propertiesToFetch` leaves out (those whose type has a
    /// placeholder): selected as NULL, and faults in the objects.
    let unfetched: PropertyBitSet

    /// - Throws: `ModelStoreError.unsupportedQuery` naming the part of the
    ///   predicate or sort descriptor that has no SQL form.
    init(_ descriptor: FetchDescriptor<T>, context: ModelContext, table: EntityTable) throws {
        schema = context.store.schema
        dialect = context.store.queryDialect
        self.table = table
        if let predicate = descriptor.predicate {
            condition = try PredicateTranslator.condition(of: predicate, rowKey: context.rowKey(of:))
        } else {
            condition = nil
        }
        var orderings: [QueryOrdering] = []
        for sort in descriptor.sortBy { orderings.append(try QueryOrdering(sort)) }
        self.orderings = orderings
        var unfetched = PropertyBitSet()
        if !descriptor.propertiesToFetch.isEmpty {
            let wanted = descriptor.propertiesToFetch.map { $0 as AnyKeyPath }
            for property in PropertyTable.of(T.self)
            where property.readUnfetched != nil && !wanted.contains(property.keyPath) {
                unfetched.insert(property.ordinal)
            }
        }
        self.unfetched = unfetched
    }

    /// `SELECT` of the table's columns (as `EntityTable.selectSQL` orders
    /// them) of the matching rows, in order.
    func select(limit: Int?, offset: Int) throws(ModelStoreError) -> CompiledQuery {
        try QuerySQLBuilder.select(
            schema: schema, entity: table.entity,
            columns: { [unfetched] in table.selectColumns(qualifier: $0, omitting: unfetched, version: table.versionSelect) },
            where: condition, orderBy: orderings, limit: limit, offset: offset, dialect: dialect)
    }

    /// `SELECT` of every row of the entity, for a fetch answered in Swift
    /// (`CompiledQuery.needsSwift`): the superset its predicate filters.
    func selectAll() throws(ModelStoreError) -> CompiledQuery {
        try QuerySQLBuilder.select(
            schema: schema, entity: table.entity,
            columns: { [unfetched] in table.selectColumns(qualifier: $0, omitting: unfetched, version: table.versionSelect) },
            where: nil, orderBy: [], limit: nil, offset: nil, dialect: dialect)
    }

    /// `SELECT <row key>` of the matching rows, in order.
    /// For a superentity's table, the row's entity column follows the key, so
    /// that each identifier names the row's own entity.
    func selectKeys(limit: Int?, offset: Int) throws(ModelStoreError) -> CompiledQuery {
        let polymorphic = table.isPolymorphic
        return try QuerySQLBuilder.select(
            schema: schema, entity: table.entity,
            columns: {
                "\($0).\(quoteIdentifier(primaryKeyColumn))" + (polymorphic ? ", \($0).\(quoteIdentifier(entityColumn))" : "")
            },
            where: condition, orderBy: orderings, limit: limit, offset: offset, dialect: dialect)
    }

    /// `SELECT count(*)` of the matching rows.
    func count() throws(ModelStoreError) -> CompiledQuery {
        try QuerySQLBuilder.count(schema: schema, entity: table.entity, where: condition, dialect: dialect)
    }
}

/// The unsaved work of a context that a fetch of `T` must take into account.
struct PendingObjects<T: PersistentModel> {
    /// Objects with a row whose in-memory state differs from it (changed or deleted).
    private(set) var stored: Set<ObjectIdentifier> = []
    /// Objects to test in memory: changed and inserted ones not deleted.
    private(set) var candidates: [T] = []

    var isEmpty: Bool { stored.isEmpty && candidates.isEmpty }

    init() {}

    init(_ type: T.Type, in context: ModelContext) {
        guard context.hasChanges else { return }
        var deleted: Set<ObjectIdentifier> = []
        for case let model as T in context.deleted.models {
            deleted.insert(ObjectIdentifier(model))
            if model._$modelState.rowID != nil { stored.insert(ObjectIdentifier(model)) }
        }
        for case let model as T in context.changed.models where !deleted.contains(ObjectIdentifier(model)) {
            stored.insert(ObjectIdentifier(model))
            candidates.append(model)
        }
        for case let model as T in context.inserted.models where !deleted.contains(ObjectIdentifier(model)) {
            candidates.append(model)
        }
    }
}
