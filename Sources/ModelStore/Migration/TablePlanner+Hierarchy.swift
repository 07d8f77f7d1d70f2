/// What a class hierarchy's table needs beyond a plain table's plan: values
/// for one subentity's rows only, and the rows of removed subentities.
extension TablePlanner {
    /// The rows of `oldTable` that are objects of the entities that have
    /// `owner`'s column (0 when the old table has no entity column, so no
    /// subentity rows).
    func rowCount(of owner: StorageChange.OwnedColumn, _ oldTable: String, _ oldDiscriminated: Bool) throws -> Int {
        guard oldDiscriminated, !owner.oldRowEntities.isEmpty else { return 0 }
        return try count(
            "SELECT count(*) FROM \(quoteIdentifier(oldTable)) WHERE \(StorageChange.rowCondition(owner.oldRowEntities))")
    }

    /// Where a subentity's new attribute takes its values from: its default
    /// in the subentity's rows, NULL in the others'. A non-optional one
    /// without a default over existing rows of the subentity is impossible,
    /// as for a plain entity. `.null` means that ADD COLUMN is enough.
    mutating func newOwnedAttribute(
        _ attribute: Schema.Attribute, of owner: StorageChange.OwnedColumn, oldTable: String, oldDiscriminated: Bool
    ) throws -> ColumnSource {
        let rows = try rowCount(of: owner, oldTable, oldDiscriminated)
        guard rows > 0 else { return .null }
        if let fill = try defaultValue(of: attribute, in: owner.entity) {
            return .valueForRows(of: owner.oldRowEntities, fill)
        }
        if !owner.isOptional {
            impossibilities.append(
                "attribute \(owner.entity.name).\(attribute.name) is new and non-optional without a default value, and "
                    + "\(rows) \(owner.entity.name) row\(rows == 1 ? "" : "s") need a value; give it a default value (= …), "
                    + "or add it as optional, fill it in that stage's didMigrate and make it non-optional in the next version")
        }
        return .null
    }

    /// A subentity's attribute that was optional and is not: its rows' nils
    /// get the default (the source returned), or, without one, it is
    /// impossible when some of its rows hold nil (planning runs after a
    /// custom stage's willMigrate, which could have filled them). The
    /// column stays nullable in SQL; nil when nothing needs to change.
    mutating func ownedAttributeBecomesRequired(
        _ attribute: Schema.Attribute, origin: Schema.Attribute, of owner: StorageChange.OwnedColumn, oldTable: String,
        oldDiscriminated: Bool
    ) throws -> ColumnSource? {
        guard oldDiscriminated, !owner.oldRowEntities.isEmpty else { return nil }
        if let fill = try defaultValue(of: attribute, in: owner.entity) {
            return .coalesceForRows(origin.name, of: owner.oldRowEntities, fill)
        }
        let nils = try count(
            "SELECT count(*) FROM \(quoteIdentifier(oldTable)) WHERE \(StorageChange.rowCondition(owner.oldRowEntities)) "
                + "AND \(quoteIdentifier(origin.name)) IS NULL")
        if nils > 0 {
            impossibilities.append(
                "attribute \(owner.entity.name).\(attribute.name) becomes non-optional without a default value, and \(nils) "
                    + "\(owner.entity.name) row\(nils == 1 ? "" : "s") hold nil; give it a default value (= …), or fill the "
                    + "nils in a custom stage's willMigrate")
        }
        return nil
    }

    /// The rows of subentities no longer in the schema: refused when there
    /// are any, as removing an entity with rows is (a custom stage, a
    /// script or `allowsDataLoss` allows it); deleted before the table
    /// changes, and the links to them removed once every table has its new
    /// columns. Their own subentities are removed too (a kept one would
    /// have changed superentity, which is refused before planning).
    mutating func planRemovedRows(of entities: [String], table: String, oldTable: String) throws {
        guard !entities.isEmpty else { return }
        var total = 0
        for name in entities {
            let rows = try count(
                "SELECT count(*) FROM \(quoteIdentifier(oldTable)) WHERE \(StorageChange.rowCondition([name]))")
            total += rows
            if rows > 0 {
                refusals.append(
                    "entity \(name) is no longer in the schema and \(rows) row\(rows == 1 ? "" : "s") of table \(oldTable) "
                        + "hold its objects; \(allowHint)")
            }
        }
        guard total > 0 else { return }
        operations.append(.deleteRows(table: table, entities: entities))
        late.append(.unlinkDeletedRows(table: table, statements: storage.unlinkStatements(toRowsOf: table)))
    }
}
