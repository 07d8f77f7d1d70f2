import Foundation

/// The change history (store format 3): one transaction per save of a
/// context and per store-tool edit, with the rows it inserted, updated and
/// deleted, written in the same SQLite transaction as the rows themselves,
/// so that the history never disagrees with the data (a failed save leaves
/// no trace in either).
///
/// Layout, for readers of the history (the history API, `store-tool`, and
/// anyone with the `sqlite3` shell):
///
/// `_modelstore_transactions`, one row per save:
/// - `token` INTEGER PRIMARY KEY AUTOINCREMENT: the history token; it only
///   grows, and a pruned token is never given again.
/// - `timestamp` REAL: seconds since 1970 when the save began.
/// - `author` TEXT: `ModelContext.author` (NULL when not set); `store-tool`
///   for store-tool's edits.
/// - `bundleIdentifier` TEXT: the app's bundle identifier, or the process
///   name where there is none (Linux).
/// - `processIdentifier` TEXT: the writing process's id.
///
/// `_modelstore_changes`, one row per group of rows that a transaction
/// changed the same way (one entity, one kind, for updates the same
/// properties): a save of 100,000 new objects is one row, not 100,000, so
/// that recording the history costs a few statements and rows per save
/// whatever its size.
/// - `id` INTEGER PRIMARY KEY: order of the changes within the history.
/// - `token`: the transaction's token (indexed; no foreign key, so that
///   the schema audit need not allow one).
/// - `entity` TEXT: the changed rows' entity.
/// - `kind` TEXT: `insert`, `update` or `delete`.
/// - `properties` TEXT: for an update, a JSON array of the names of the
///   properties the writer changed (attributes and relationships, to-many
///   ones included); NULL otherwise.
/// - `rows` TEXT: a JSON array of the changed rows' keys (`_pk`); with the
///   entity and the store identifier, each is a `PersistentIdentifier`.
///   `SELECT c.token, c.entity, j.value AS row, c.kind FROM
///   "_modelstore_changes" c, json_each(c.rows) j` lists one row per change.
/// - `tombstone` TEXT: for the delete of a row whose entity has attributes
///   marked `.preserveValueOnDeletion`, a JSON object of their values, each
///   in store-tool's export form (`ValueJSON.json`); such a delete is
///   a group of its own (`rows` holds its one key). NULL otherwise.
///
/// A row that a delete rule's nullification changes (its to-one cleared
/// because the object it referred to was deleted) is not listed: the delete
/// of that object implies it.
package enum ChangeHistory {
    static let transactionsTable = "_modelstore_transactions"
    static let changesTable = "_modelstore_changes"

    /// The SQL that creates the history tables: part of format 3.
    static let createSQL = """
        CREATE TABLE "_modelstore_transactions" ("token" INTEGER PRIMARY KEY AUTOINCREMENT, "timestamp" REAL NOT NULL, \
        "author" TEXT, "bundleIdentifier" TEXT NOT NULL, "processIdentifier" TEXT NOT NULL) STRICT;
        CREATE TABLE "_modelstore_changes" ("id" INTEGER PRIMARY KEY, "token" INTEGER NOT NULL, "entity" TEXT NOT NULL, \
        "kind" TEXT NOT NULL, "properties" TEXT, "rows" TEXT NOT NULL, "tombstone" TEXT) STRICT;
        CREATE INDEX "_modelstore_changes.token" ON "_modelstore_changes" ("token");
        """

    package enum Kind: String {
        case insert, update, delete
    }

    package static let bundleIdentifier = Bundle.main.bundleIdentifier ?? ProcessInfo.processInfo.processName
    package static let processIdentifier = String(ProcessInfo.processInfo.processIdentifier)
}

/// Collects the changes of one save and writes them as one history
/// transaction. Changes are grouped (rows of one entity and kind, and for
/// updates the same properties) and each group is one row holding a JSON
/// array of its row keys, so that recording costs a few statements and rows
/// per save rather than one per object.
package struct HistoryRecorder {
    private struct GroupKey: Hashable {
        let entity: String
        let kind: ChangeHistory.Kind
        let properties: String?
    }

    private var groups: [(key: GroupKey, rows: [Int64])] = []
    private var groupIndex: [GroupKey: Int] = [:]
    /// The group recorded last: saves record runs of one entity and kind,
    /// which then cost a comparison per row instead of a hash.
    private var lastGroup: Int?
    /// The group key of each (table, changed properties) shape, so that an
    /// update's property names are made into JSON once per shape.
    private var updateKeys: [UpdateShape: GroupKey] = [:]
    private var tombstones: [(entity: String, row: Int64, tombstone: String)] = []
    /// The shape of the update recorded last and the index of its group.
    private var lastUpdate: UpdateShape?
    /// The group of `lastUpdate` (meaningful when it is set). Kept apart,
    /// so that the check of each update compares the shape in place instead
    /// of copying an optional tuple out.
    private var lastUpdateGroup = 0
    /// The table of the insert recorded last and the index of its group.
    private var lastInsert: (table: ObjectIdentifier, group: Int)?

    private struct UpdateShape: Hashable {
        let table: ObjectIdentifier
        let properties: PropertyBitSet
    }

    /// A recorder with nothing recorded.
    package init() {}

    package var isEmpty: Bool { groups.isEmpty && tombstones.isEmpty }

    package mutating func record(_ kind: ChangeHistory.Kind, entity: String, row: Int64, properties: [String]? = nil) {
        let key = GroupKey(
            entity: entity, kind: kind,
            properties: properties.map { "[" + $0.map(ValueJSON.quote).joined(separator: ",") + "]" })
        append(row, to: key)
    }

    /// An insert of a row of `table`. A save inserts in runs of one table,
    /// so the group of the previous insert is tried first by the table's
    /// identity, before its name is compared or hashed.
    mutating func recordInsert(table: EntityTable, row: Int64) {
        if let (last, index) = lastInsert, last == ObjectIdentifier(table) {
            groups[index].rows.append(row)
            return
        }
        record(.insert, entity: table.name, row: row)
        lastInsert = lastGroup.map { (ObjectIdentifier(table), $0) }
    }

    /// An update of the properties `dirty` (ordinals) of a row of `table`.
    ///
    /// A save walks its changed objects in runs of one table and, mostly, one
    /// set of changed properties, so the group of the previous update is
    /// tried first with two integer comparisons, before any hashing.
    mutating func recordUpdate(table: EntityTable, row: Int64, dirty: PropertyBitSet) {
        if lastUpdate?.table == ObjectIdentifier(table), lastUpdate?.properties == dirty {
            groups[lastUpdateGroup].rows.append(row)
            return
        }
        let shape = UpdateShape(table: ObjectIdentifier(table), properties: dirty)
        defer {
            lastUpdate = lastGroup == nil ? nil : shape
            lastUpdateGroup = lastGroup ?? 0
        }
        if let key = updateKeys[shape] {
            append(row, to: key)
            return
        }
        let names = dirty.compactMap { $0 < table.slots.count ? table.slots[$0].name : nil }
        let key = GroupKey(
            entity: table.name, kind: .update,
            properties: "[" + names.map(ValueJSON.quote).joined(separator: ",") + "]")
        updateKeys[shape] = key
        append(row, to: key)
    }

    private mutating func append(_ row: Int64, to key: GroupKey) {
        if let lastGroup, groups[lastGroup].key == key {
            groups[lastGroup].rows.append(row)
            return
        }
        if let index = groupIndex[key] {
            groups[index].rows.append(row)
            lastGroup = index
            return
        }
        groupIndex[key] = groups.count
        lastGroup = groups.count
        groups.append((key, [row]))
    }

    /// A deleted row whose entity preserves values: recorded with them.
    mutating func recordDelete(entity: String, row: Int64, tombstone: String) {
        tombstones.append((entity, row, tombstone))
    }

    /// Records the deleted rows of a delete plan, reading the preserved
    /// values of those of entities that have any (one SELECT per such
    /// table). Must run before the rows are deleted.
    /// - Throws: `ModelStoreError.saveFailed`, `.invalidValue`.
    package mutating func recordDeletes(of plan: DeletePlan, connection: Connection, path: String) throws {
        for (table, keys) in plan.rowsByTable.sorted(by: { $0.table.name < $1.table.name }) {
            let preserved = table.entity.attributes.filter { $0.options.contains(.preserveValueOnDeletion) }
            guard !preserved.isEmpty else {
                for key in keys.sorted() { record(.delete, entity: table.name, row: key) }
                continue
            }
            let columns = ([primaryKeyColumn] + preserved.map(\.name)).map(quoteIdentifier).joined(separator: ", ")
            let statement = try connection.cachedStatement(
                "SELECT \(columns) FROM \(quoteIdentifier(table.tableName)) WHERE \(quoteIdentifier(primaryKeyColumn)) "
                    + "\(RelationshipSQL.inKeys) ORDER BY \(quoteIdentifier(primaryKeyColumn))")
            defer { statement.reset() }
            do {
                try statement.bind(jsonKeys(keys), at: 1)
                while try statement.step() {
                    let row = statement.int64(at: 0)
                    var fields: [String] = []
                    for (index, attribute) in preserved.enumerated() {
                        let value: DynamicValue
                        do {
                            value = try DynamicValue.decode(attribute, from: statement, column: Int32(index + 1))
                        } catch {
                            throw ModelStoreError.invalidValue(
                                entity: table.name, property: attribute.name, row: row, reason: error.reason, path: path)
                        }
                        fields.append(ValueJSON.quote(attribute.name) + ":" + ValueJSON.json(value))
                    }
                    recordDelete(entity: table.name, row: row, tombstone: "{" + fields.joined(separator: ",") + "}")
                }
            } catch let error as SQLiteError {
                throw ModelStoreError.saveFailed(entity: table.name, row: nil, underlying: error)
            }
        }
    }

    /// Writes the transaction and its changes; nothing when there are none.
    /// Returns the transaction's token.
    /// - Throws: `ModelStoreError.saveFailed` naming the history table.
    @discardableResult
    package func write(author: String?, connection: Connection) throws -> Int64? {
        guard !isEmpty else { return nil }
        do {
            let transaction = try connection.cachedStatement(
                "INSERT INTO \(quoteIdentifier(ChangeHistory.transactionsTable)) "
                    + "(\"timestamp\", \"author\", \"bundleIdentifier\", \"processIdentifier\") VALUES (?, ?, ?, ?)")
            defer { transaction.reset() }
            try transaction.bind(.real(Date().timeIntervalSince1970), at: 1)
            try transaction.bind(author.map(SQLiteValue.text) ?? .null, at: 2)
            try transaction.bind(ChangeHistory.bundleIdentifier, at: 3)
            try transaction.bind(ChangeHistory.processIdentifier, at: 4)
            try transaction.run()
            let token = connection.lastInsertRowID
            let changes = try connection.cachedStatement(
                "INSERT INTO \(quoteIdentifier(ChangeHistory.changesTable)) "
                    + "(\"token\", \"entity\", \"kind\", \"properties\", \"rows\", \"tombstone\") VALUES (?, ?, ?, ?, ?, NULL)")
            defer { changes.reset() }
            for (key, rows) in groups {
                changes.reset()
                try changes.bind(token, at: 1)
                try changes.bind(key.entity, at: 2)
                try changes.bind(key.kind.rawValue, at: 3)
                try changes.bind(key.properties.map(SQLiteValue.text) ?? .null, at: 4)
                try changes.bind(jsonKeys(rows), at: 5)
                try changes.run()
            }
            if !tombstones.isEmpty {
                let delete = try connection.cachedStatement(
                    "INSERT INTO \(quoteIdentifier(ChangeHistory.changesTable)) "
                        + "(\"token\", \"entity\", \"kind\", \"properties\", \"rows\", \"tombstone\") "
                        + "VALUES (?, ?, 'delete', NULL, ?, ?)")
                defer { delete.reset() }
                for (entity, row, tombstone) in tombstones {
                    delete.reset()
                    try delete.bind(token, at: 1)
                    try delete.bind(entity, at: 2)
                    try delete.bind("[\(row)]", at: 3)
                    try delete.bind(tombstone, at: 4)
                    try delete.run()
                }
            }
            return token
        } catch {
            throw ModelStoreError.saveFailed(entity: ChangeHistory.changesTable, row: nil, underlying: error)
        }
    }
}
