import Foundation
import ModelStore

/// One object of a store opened without the app's code: its identifier and
/// its values by property name (attributes, to-ones as `.object`, to-manys
/// as `.objects` or `.count`).
package struct DynamicObject: Sendable, Equatable {
    /// `Entity:ID`.
    package let id: ObjectID
    /// The values by property name.
    package var values: [String: DynamicValue]
    /// The attributes whose stored values could not be read as their type,
    /// by name, when the read tolerated them (`DynamicQuery.toleratesUnreadableValues`);
    /// such an attribute has no entry in `values`.
    package var unreadable: [String: UnreadableValue] = [:]

    /// Creates an object from its values.
    package init(id: ObjectID, values: [String: DynamicValue]) {
        self.id = id
        self.values = values
    }

    /// The value of the property `name`; nil when there is no such property
    /// or its stored value could not be read (see `unreadable`).
    package subscript(name: String) -> DynamicValue? { values[name] }
}

/// A stored value that does not fit its attribute's type (text that is not
/// JSON in a Codable column, a number out of its type's range): what the
/// column holds and why it cannot be read, so that a reader can show it as
/// bad and go on to the next object.
package struct UnreadableValue: Sendable, Equatable {
    /// The column's content as SQLite stores it.
    package let stored: SQLiteValue
    /// Why it cannot be read as the attribute's type.
    package let reason: String
}

/// Which objects of an entity to read, in which order, and how many.
package struct DynamicQuery: Sendable {
    /// The entity's name.
    package var entity: String
    /// A filter in store-tool's language (`age > 30 and name contains "x"`).
    package var filter: String?
    /// Sort keys: a property name (or `a.b` through to-ones), with `:desc`
    /// for descending. Objects that compare equal stay in key order.
    package var sort: [String]
    /// At most this many objects.
    package var limit: Int?
    /// Skip this many objects first.
    package var offset: Int?
    /// Read to-many relationships as their objects' identifiers; otherwise
    /// as counts (cheaper).
    package var includesToManyMembers: Bool
    /// For an entity in a class hierarchy: also read its subentities' rows
    /// (as objects of `entity`, with its properties). False reads only the
    /// rows of `entity` itself, so that a whole-store export lists each row
    /// once, under its own entity.
    package var includesSubentities: Bool
    /// True reads a stored value that does not fit its type into the
    /// object's `unreadable` instead of failing the whole read, so that one
    /// bad row does not hide the others (store-tool's `list` and `export`).
    package var toleratesUnreadableValues = false

    /// Creates a query; without a filter it reads every object of `entity`.
    package init(
        entity: String, filter: String? = nil, sort: [String] = [], limit: Int? = nil, offset: Int? = nil,
        includesToManyMembers: Bool = false, includesSubentities: Bool = true
    ) {
        self.includesSubentities = includesSubentities
        self.entity = entity
        self.filter = filter
        self.sort = sort
        self.limit = limit
        self.offset = offset
        self.includesToManyMembers = includesToManyMembers
    }
}

extension DynamicStore {
    /// Calls `body` with each object the query selects, in order, reading
    /// one row at a time: a million rows start at once, in constant memory.
    /// - Throws: `DynamicStoreError.unknownEntity` or `.invalidFilter`;
    ///   `ModelStoreError.unknownProperty`, `.unsupportedQuery`, or
    ///   `.invalidValue` for a stored value that does not fit its type;
    ///   `SQLiteError`; what `body` throws.
    package func forEach(_ query: DynamicQuery, _ body: (DynamicObject) throws -> Void) throws {
        let table = try table(named: query.entity)
        let select = try selectStatement(query, table: table)
        let statement = try prepareFiltered(select.sql, filter: query.filter)
        for (index, value) in select.bindings.enumerated() { try statement.bind(value, at: Int32(index + 1)) }
        while try statement.step() {
            var object = try readObject(
                table, from: statement, countsFrom: select.countColumn, toleratingUnreadable: query.toleratesUnreadableValues)
            if query.includesToManyMembers { try addToManyMembers(&object, table: table) }
            try body(object)
        }
    }

    /// The objects the query selects, as an array (see `forEach` to stream).
    /// - Throws: as `forEach`.
    package func objects(_ query: DynamicQuery) throws -> [DynamicObject] {
        var result: [DynamicObject] = []
        try forEach(query) { result.append($0) }
        return result
    }

    /// The number of objects the filter selects (all without one).
    /// - Throws: as `forEach`.
    package func count(_ entity: String, filter: String?) throws -> Int {
        let table = try table(named: entity)
        let compiled = try countQuery(filter, table: table)
        let statement = try prepareFiltered(compiled.sql, filter: filter)
        try compiled.bind(to: statement)
        _ = try statement.step()
        return Int(statement.int64(at: 0))
    }

    /// The object with this identifier, to-many relationships with their
    /// members; nil when there is none. With `toleratingUnreadable`, a
    /// stored value that does not fit its type goes into the object's
    /// `unreadable` instead of failing the read.
    /// - Throws: `DynamicStoreError.unknownEntity`; `ModelStoreError.invalidValue`; `SQLiteError`.
    package func object(_ id: ObjectID, toleratingUnreadable: Bool = false) throws -> DynamicObject? {
        let table = try table(named: id.entity)
        let statement = try connection.prepare(table.selectByKeySQL)
        try statement.bind(id.key, at: 1)
        guard try statement.step() else { return nil }
        var object = try readObject(table, from: statement, countsFrom: nil, toleratingUnreadable: toleratingUnreadable)
        try addToManyMembers(&object, table: table)
        return object
    }

    /// The object with this identifier.
    /// - Throws: `DynamicStoreError.objectNotFound` when there is none; as `object(_:)`.
    package func existingObject(_ id: ObjectID) throws -> DynamicObject {
        guard let object = try object(id) else { throw DynamicStoreError.objectNotFound(id) }
        return object
    }

    /// The identifiers of the objects `relationship` of `holder` holds, in order.
    /// - Throws: `SQLiteError`.
    func relatedKeys(_ relationship: Schema.Relationship, of holder: Int64) throws -> [Int64] {
        guard
            let sql = RelationshipSQL.relatedRows(
                relationship, inverse: inverse(of: relationship),
                destinationColumns: "t.\(quoteIdentifier(primaryKeyColumn))",
                destinationTable: schema.tableName(of: relationship.destination), holders: .one)
        else { return [] }
        let statement = try connection.cachedStatement(sql)
        defer { statement.reset() }
        try statement.bind(holder, at: 1)
        var keys: [Int64] = []
        while try statement.step() { keys.append(statement.int64(at: 0)) }
        return keys
    }

    /// The members of `holder`'s to-many with their stored positions, in
    /// their stored order (see `RelationshipSQL.storedLinks`).
    func storedLinks(_ relationship: Schema.Relationship, of holder: Int64) throws -> [StoredLink] {
        guard let sql = RelationshipSQL.storedLinks(
            relationship, inverse: inverse(of: relationship), destinationTable: schema.tableName(of: relationship.destination)) else { return [] }
        let statement = try connection.cachedStatement(sql)
        defer { statement.reset() }
        try statement.bind(holder, at: 1)
        var links: [StoredLink] = []
        while try statement.step() {
            links.append((statement.int64(at: 0), statement.storage(at: 1) == .null ? nil : statement.int64(at: 1)))
        }
        return links
    }

    private func addToManyMembers(_ object: inout DynamicObject, table: EntityTable) throws {
        for relationship in table.entity.relationships where relationship.isToMany {
            let keys = try relatedKeys(relationship, of: object.id.key)
            object.values[relationship.name] = .objects(keys.map { ObjectID(entity: relationship.destination, key: $0) })
        }
    }

    /// Reads the current row of a SELECT of `table.selectSQL`'s columns,
    /// followed (from `countsFrom`) by one count per to-many relationship.
    /// - Throws: `ModelStoreError.invalidValue` for a stored value that does
    ///   not fit its type, unless `toleratingUnreadable` (then it is in the
    ///   object's `unreadable`); `SQLiteError`.
    func readObject(
        _ table: EntityTable, from statement: Statement, countsFrom: Int32?, toleratingUnreadable: Bool = false
    ) throws -> DynamicObject {
        let key = statement.int64(at: 0)
        var values: [String: DynamicValue] = [:]
        var unreadable: [String: UnreadableValue] = [:]
        var countColumn = countsFrom
        for (ordinal, slot) in table.slots.enumerated() {
            let column = Int32(ordinal + 1)
            switch slot {
            case .attribute(let attribute):
                do {
                    values[attribute.name] = try DynamicValue.decode(attribute, from: statement, column: column)
                } catch {
                    guard toleratingUnreadable else {
                        throw ModelStoreError.invalidValue(
                            entity: table.name, property: attribute.name, row: key, reason: error.reason, path: path)
                    }
                    unreadable[attribute.name] = UnreadableValue(stored: statement.value(at: column), reason: error.reason)
                }
            case .relationship(let relationship):
                if relationship.foreignKeyColumn != nil {
                    values[relationship.name] =
                        statement.storage(at: column) == .null
                        ? .null : .object(ObjectID(entity: relationship.destination, key: statement.int64(at: column)))
                } else if relationship.isToMany {
                    if let count = countColumn {
                        values[relationship.name] = .count(Int(statement.int64(at: count)))
                        countColumn = count + 1
                    } else {
                        values[relationship.name] = .count(0)
                    }
                } else {
                    // A to-one whose link is in the other table.
                    values[relationship.name] = try toOneThroughInverse(relationship, holder: key)
                }
            }
        }
        var object = DynamicObject(id: ObjectID(entity: table.name, key: key), values: values)
        object.unreadable = unreadable
        return object
    }

    private func toOneThroughInverse(_ relationship: Schema.Relationship, holder: Int64) throws -> DynamicValue {
        guard let key = try relatedKeys(relationship, of: holder).first else { return .null }
        return .object(ObjectID(entity: relationship.destination, key: key))
    }
}
