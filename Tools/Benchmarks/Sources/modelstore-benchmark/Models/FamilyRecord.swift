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

/// A child that the GRDB Record contender appends (workload 12): a record
/// that carries its position in the parent's list, which the app knows (the
/// list's count).
struct NewChildRecord: MutablePersistableRecord {
    static let databaseTableName = "Child"

    var id: Int64?
    var name: String
    var value: Int
    var parent: Int64
    var position: Int

    func encode(to container: inout PersistenceContainer) {
        container["name"] = name
        container["value"] = value
        container["parent"] = parent
        container["_parent_order"] = position
    }

    mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }
}
