/// Reading the rows of a class hierarchy's table: a SELECT of a superentity
/// returns rows of several classes, each made as the class its entity
/// column names (see `EntityTable.polymorphicEntities`). Only tables with
/// subentities come here; every other fetch reads its rows as before.
extension ModelContext {
    /// The table and model class of the statement's current row of
    /// `table`'s SELECT, from the row's entity column.
    /// - Throws: `ModelStoreError.invalidValue` naming the row when the
    ///   column names no entity of `table`'s part of the hierarchy.
    func rowClass(of table: EntityTable, rowID: Int64, from statement: Statement) throws -> (
        table: EntityTable, type: any PersistentModel.Type
    ) {
        let concrete = try rowTable(of: table, rowID: rowID, column: table.entityColumnIndex, from: statement)
        guard let type = store.modelType(of: concrete) else {
            throw ModelStoreError.invalidValue(
                entity: table.name, property: entityColumn, row: rowID,
                reason: "the row's entity '\(concrete.name)' has no model class in this container", path: table.storePath)
        }
        return (concrete, type)
    }

    /// The table of the row's own entity, read from `column` of the
    /// statement's current row of a SELECT of `table` (a superentity).
    /// - Throws: `ModelStoreError.invalidValue` naming the row when the
    ///   column names no entity of `table`'s part of the hierarchy.
    func rowTable(of table: EntityTable, rowID: Int64, column: Int32, from statement: Statement) throws -> EntityTable {
        let name = statement.isNull(at: column) ? nil : statement.string(at: column)
        guard let name, table.polymorphicEntities.contains(name), let concrete = store.table(named: name) else {
            throw ModelStoreError.invalidValue(
                entity: table.name, property: entityColumn, row: rowID,
                reason: "the row's entity \(name.map { "'\($0)'" } ?? "NULL") is not \(table.name) or one of its "
                    + "subentities (\(table.polymorphicEntities.joined(separator: ", ")))",
                path: table.storePath)
        }
        return concrete
    }

    /// A new object of the row's own class, read from the statement's
    /// current row of a SELECT of `table` (a superentity), not registered yet.
    func makePolymorphicModel(
        table: EntityTable, rowID: Int64, reader: RowRelationshipReader?, unfetched: PropertyBitSet,
        from statement: Statement
    ) throws -> any PersistentModel {
        let (concrete, type) = try rowClass(of: table, rowID: rowID, from: statement)
        // The fetch's reader reads `table`'s relationship columns; a
        // subclass's row has its own.
        let rowReader = concrete === table ? reader : rowRelationshipReader(for: concrete)
        return try makeModel(
            type, rowID: rowID, table: concrete, reader: rowReader, unfetched: unfetched, from: statement,
            versionColumn: table.versionColumn)
    }

    /// `readRows` for a superentity: one object per row, each of its own class.
    func readPolymorphicRows<T: PersistentModel>(
        _ type: T.Type, table: EntityTable, unfetched: PropertyBitSet, from statement: Statement
    ) throws -> [AnyObject] {
        let registry = registry(for: table)
        let reader = rowRelationshipReader(for: table)
        var objects: [AnyObject] = []
        while try statement.step() {
            if let model = try materialize(
                type, table: table, registry: registry, reader: reader, unfetched: unfetched, from: statement)
            {
                objects.append(model)
            }
        }
        return objects
    }
}
