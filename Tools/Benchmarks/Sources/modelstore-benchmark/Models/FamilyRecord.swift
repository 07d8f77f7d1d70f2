import GRDB

/// The GRDB record contender's parent: a record with a `hasMany` association
/// to its children (GRDB finds the foreign key in the schema), fetched with
/// `including(all:)`, which prefetches the children in one more query.
struct ParentRecord: FetchableRecord, TableRecord {
    static let databaseTableName = "Parent"
    static let children = hasMany(ChildRecord.self).forKey("children").order(Column("_parent_order"))

    var id: Int64
    var name: String

    init(row: Row) throws {
        id = row["_pk"]
        name = row["name"]
    }
}

struct ChildRecord: FetchableRecord, TableRecord {
    static let databaseTableName = "Child"

    var id: Int64
    var name: String
    var value: Int
    var parent: Int64

    init(row: Row) throws {
        id = row["_pk"]
        name = row["name"]
        value = row["value"]
        parent = row["parent"]
    }
}

/// A parent with its prefetched children, in order.
struct ParentWithChildren: FetchableRecord {
    var parent: ParentRecord
    var children: [ChildRecord]

    init(row: Row) throws {
        parent = try ParentRecord(row: row)
        children = try (row.prefetchedRows["children"] ?? []).map(ChildRecord.init(row:))
    }

    /// Every parent in key order, each with its children.
    static let request = ParentRecord.orderByPrimaryKey().including(all: ParentRecord.children).asRequest(of: Self.self)
}
