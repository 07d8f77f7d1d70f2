/// Compares the schema objects of a store file (`sqlite_schema`) with those
/// its schema record says ModelStore made, and lists everything else as a
/// `ForeignSchemaObject`.
///
/// What ModelStore makes, for a resolved schema: per entity one table with
/// `_pk`, `_version` (store format 3; a format 2 table lacks it), `_entity`
/// for the one table of a class hierarchy, one column per attribute and one foreign-key column (plus an order
/// column) per to-one held in the row, an index per foreign key, `#Unique`
/// and `#Index`; per many-to-many a join table and its index; its own
/// `_modelstore…` tables. It makes no trigger, view, virtual table, CHECK
/// constraint, generated column, expression default, index on an
/// expression, partial index, or foreign key other than those links.
/// SQLite adds `sqlite_sequence`, `sqlite_stat…` and the `sqlite_autoindex_…`
/// indexes of UNIQUE and PRIMARY KEY constraints itself.
///
/// A table or index whose SQL text is exactly what ModelStore writes for it
/// (the common case: a store made by ModelStore and never altered) is taken
/// as it is, with one read of `sqlite_schema` for the whole file. Any other
/// text (a table rebuilt or altered by a migration, or by somebody else) is
/// examined through SQLite's pragmas: its columns, foreign keys and indexes,
/// and its SQL for a CHECK constraint.
///
/// Tables or columns the record lists but the file lacks are not foreign
/// objects; store-tool's `check` reports them as damage.
struct SchemaAudit {
    private struct ExpectedTable {
        let sql: String
        /// Lowercased column names.
        let columns: Set<String>
        /// Lowercased foreign-key column → (lowercased referenced table, ON DELETE action).
        let foreignKeys: [String: (table: String, onDelete: String)]
    }

    private var tables: [String: ExpectedTable] = [:]
    /// Lowercased index name → the SQL ModelStore writes for it.
    private var indexes: [String: String] = [:]

    /// The objects ModelStore makes for `schema`, whose relationships must be
    /// resolved (their storage says where each link lives).
    /// A class hierarchy is one table, with the discriminator column.
    init(schema: Schema) {
        let (schema, discriminated) = schema.storageLayout()
        for entity in schema.entities {
            let isDiscriminated = discriminated.contains(entity.name)
            var columns: Set<String> = [primaryKeyColumn.lowercased(), rowVersionColumn.lowercased()]
            if isDiscriminated { columns.insert(entityColumn.lowercased()) }
            var foreignKeys: [String: (table: String, onDelete: String)] = [:]
            for attribute in entity.attributes { columns.insert(attribute.name.lowercased()) }
            for relationship in entity.relationships {
                switch relationship.storage {
                case .foreignKey(let column, let orderColumn):
                    columns.insert(column.lowercased())
                    if let orderColumn { columns.insert(orderColumn.lowercased()) }
                    foreignKeys[column.lowercased()] = (relationship.destination.lowercased(), "NO ACTION")
                case .joinTable(let name, isSource: true):
                    tables[name.lowercased()] = ExpectedTable(
                        sql: SchemaSQL.createJoinTable(name, source: entity.name, target: relationship.destination)[0],
                        columns: Set(
                            [JoinTableColumn.source, JoinTableColumn.target, JoinTableColumn.sourceOrder, JoinTableColumn.targetOrder]
                                .map { $0.lowercased() }),
                        foreignKeys: [
                            JoinTableColumn.source.lowercased(): (entity.name.lowercased(), "CASCADE"),
                            JoinTableColumn.target.lowercased(): (relationship.destination.lowercased(), "CASCADE"),
                        ])
                    indexes[(name + ".target").lowercased()] = SchemaSQL.createJoinTable(
                        name, source: entity.name, target: relationship.destination)[1]
                case .joinTable, .inverseForeignKey, .unresolved:
                    break
                }
            }
            tables[entity.name.lowercased()] = ExpectedTable(
                sql: SchemaSQL.createTable(entity, discriminated: isDiscriminated), columns: columns, foreignKeys: foreignKeys)
            for index in SchemaSQL.indexes(of: entity) { indexes[index.name.lowercased()] = index.sql }
        }
    }

    /// Every object of `connection`'s main database that ModelStore did not
    /// make, in `sqlite_schema` order; empty for a store as ModelStore left it.
    /// - Throws: `SQLiteError` when the schema cannot be read.
    func foreignObjects(in connection: Connection) throws(SQLiteError) -> [ForeignSchemaObject] {
        try foreignObjects(among: Self.schemaObjects(connection), connection)
    }

    /// Every object of `connection`'s main database that ModelStore did not
    /// make, for the schema whose record text is `recordText` (`schema`
    /// makes it, only when needed), as `foreignObjects(in:)`.
    ///
    /// What the audit finds is a pure function of the record and of the
    /// file's `sqlite_schema` rows: every column, default, foreign key and
    /// index shape it asks SQLite about follows from an object's SQL text.
    /// So the answer for a (record, rows) pair is remembered for the
    /// process, and a container that opens the same store again reads only
    /// `sqlite_schema`.
    /// - Throws: `SQLiteError` when the schema cannot be read; what `schema`
    ///   throws.
    ///
    /// `rows`: the file's `sqlite_schema` as `schemaRows(_:)` read it, when
    /// the caller has just read it; nil to read it here.
    static func foreignObjects(
        recordText: String, schema: () throws -> Schema, in connection: Connection, rows: SchemaRows? = nil
    ) throws -> [ForeignSchemaObject] {
        let key = RememberedAudits.Key(recordText: recordText, objects: try rows?.objects ?? schemaObjects(connection))
        if let found = RememberedAudits.shared.withLock({ $0[key] }) { return found }
        let found = try SchemaAudit(schema: try schema()).foreignObjects(among: key.objects, connection)
        RememberedAudits.shared.withLock { audits in
            // Invariant: at most `limit` entries; a process that audits more
            // files or schemas than that starts over.
            if audits.count >= RememberedAudits.limit { audits.removeAll() }
            audits[key] = found
        }
        return found
    }

    /// The rows of the file's `sqlite_schema`, for an audit that follows
    /// (`foreignObjects(recordText:schema:in:rows:)`) and for what opening
    /// asks of them first.
    /// - Throws: `SQLiteError` when the schema cannot be read.
    static func schemaRows(_ connection: Connection) throws(SQLiteError) -> SchemaRows {
        SchemaRows(objects: try schemaObjects(connection))
    }

    /// The rows of `sqlite_schema`, in its order.
    private static func schemaObjects(_ connection: Connection) throws(SQLiteError) -> [SchemaObjectRow] {
        let statement = try connection.prepare("SELECT type, name, tbl_name, sql FROM sqlite_schema")
        var objects: [SchemaObjectRow] = []
        while try statement.step() {
            objects.append(
                SchemaObjectRow(
                    type: statement.string(at: 0), name: statement.string(at: 1), table: statement.string(at: 2),
                    sql: statement.isNull(at: 3) ? nil : statement.string(at: 3)))
        }
        return objects
    }

    private func foreignObjects(among objects: [SchemaObjectRow], _ connection: Connection) throws(SQLiteError) -> [ForeignSchemaObject] {
        var found: [ForeignSchemaObject] = []
        for object in objects {
            let name = object.name.lowercased()
            switch object.type {
            case "trigger":
                found.append(ForeignSchemaObject(kind: .trigger, name: object.name, table: object.table))
            case "view":
                found.append(ForeignSchemaObject(kind: .view, name: object.name, table: nil))
            case "table":
                if let expected = tables[name] {
                    if object.sql != expected.sql {
                        found += try examineTable(object.name, sql: object.sql ?? "", expected: expected, connection)
                    }
                } else if Self.isModelStoreOwn(name) {
                    found += try examineTable(object.name, sql: object.sql ?? "", expected: nil, connection)
                } else if !Self.isSQLiteOwn(name) {
                    let isVirtual = (object.sql ?? "").uppercased().hasPrefix("CREATE VIRTUAL TABLE")
                    found.append(ForeignSchemaObject(kind: isVirtual ? .virtualTable : .table, name: object.name, table: nil))
                }
            case "index":
                // A constraint's index has no SQL of its own; the constraint is
                // part of its table's SQL, examined with the table.
                if object.sql == nil && name.hasPrefix("sqlite_autoindex_") { continue }
                if let sql = object.sql, indexes[name] == sql { continue }
                let shape = try examineIndex(object.name, connection)
                if let shape {
                    found.append(ForeignSchemaObject(kind: shape, name: object.name, table: object.table))
                } else if indexes[name] == nil && !Self.isModelStoreOwn(name) {
                    found.append(ForeignSchemaObject(kind: .index, name: object.name, table: object.table))
                }
            default:
                found.append(ForeignSchemaObject(kind: .table, name: object.name, table: nil))
            }
        }
        return found
    }

    /// A table whose SQL is not the one ModelStore writes: what in it could
    /// run SQL, and (for an entity's or join table) the columns and foreign
    /// keys the record does not list.
    private func examineTable(
        _ table: String, sql: String, expected: ExpectedTable?, _ connection: Connection
    ) throws(SQLiteError) -> [ForeignSchemaObject] {
        var found: [ForeignSchemaObject] = []
        if SQLWords.contains("CHECK", in: sql) {
            found.append(ForeignSchemaObject(kind: .checkConstraint, name: table, table: table))
        }
        let columns = try connection.prepare("SELECT name, dflt_value, hidden FROM pragma_table_xinfo(?)")
        try columns.bind(table, at: 1)
        while try columns.step() {
            let column = columns.string(at: 0)
            let hidden = columns.int64(at: 2)
            if hidden == 2 || hidden == 3 {
                found.append(ForeignSchemaObject(kind: .generatedColumn, name: column, table: table))
            } else if let expected, !expected.columns.contains(column.lowercased()) {
                found.append(ForeignSchemaObject(kind: .column, name: column, table: table))
            } else if !columns.isNull(at: 1), columns.string(at: 1).contains("(") {
                // A literal default ('text', 12, NULL, X'00') runs nothing; a
                // parenthesized one is an expression, evaluated on insert.
                found.append(ForeignSchemaObject(kind: .columnDefault, name: column, table: table))
            }
        }
        let foreignKeys = try connection.prepare(
            "SELECT \"from\", \"table\", on_update, on_delete FROM pragma_foreign_key_list(?)")
        try foreignKeys.bind(table, at: 1)
        while try foreignKeys.step() {
            let column = foreignKeys.string(at: 0)
            let known = expected?.foreignKeys[column.lowercased()]
            let matches =
                known.map {
                    $0.table == foreignKeys.string(at: 1).lowercased() && foreignKeys.string(at: 2) == "NO ACTION"
                        && foreignKeys.string(at: 3) == $0.onDelete
                } ?? false
            if !matches { found.append(ForeignSchemaObject(kind: .foreignKey, name: column, table: table)) }
        }
        return found
    }

    /// `.expressionIndex` or `.partialIndex` for an index that evaluates SQL
    /// of its own, nil for one over plain columns.
    private func examineIndex(_ index: String, _ connection: Connection) throws(SQLiteError) -> ForeignSchemaObject.Kind? {
        let columns = try connection.prepare("SELECT cid FROM pragma_index_xinfo(?) WHERE key = 1")
        try columns.bind(index, at: 1)
        while try columns.step() {
            // pragma_index_xinfo gives cid -2 for a key that is an expression.
            if columns.int64(at: 0) == -2 { return .expressionIndex }
        }
        let partial = try connection.prepare("SELECT sql FROM sqlite_schema WHERE type = 'index' AND name = ?")
        try partial.bind(index, at: 1)
        if try partial.step(), !partial.isNull(at: 0), SQLWords.contains("WHERE", in: partial.string(at: 0)) {
            return .partialIndex
        }
        return nil
    }

    private static func isModelStoreOwn(_ lowercasedName: String) -> Bool {
        lowercasedName.hasPrefix(Schema.reservedTablePrefix)
    }

    private static func isSQLiteOwn(_ lowercasedName: String) -> Bool {
        lowercasedName == "sqlite_sequence" || lowercasedName.hasPrefix("sqlite_stat")
    }
}

/// The bare words of SQL text: what is left after string literals, quoted
/// identifiers and comments are skipped. Enough to tell whether a CREATE
/// statement holds a keyword such as CHECK (a column named "check" is quoted,
/// and so never a bare word).
enum SQLWords {
    /// True when `word` (upper case) is a bare word of `sql`, in any case.
    static func contains(_ word: String, in sql: String) -> Bool {
        let bytes = Array(sql.utf8)
        let target = Array(word.utf8)
        var index = 0
        func skip(to terminator: UInt8) {
            index += 1
            while index < bytes.count {
                if bytes[index] == terminator {
                    // A doubled quote is an escaped quote inside the literal.
                    if index + 1 < bytes.count && bytes[index + 1] == terminator && terminator != UInt8(ascii: "]") {
                        index += 2
                        continue
                    }
                    break
                }
                index += 1
            }
            index += 1
        }
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "'"), UInt8(ascii: "\""), UInt8(ascii: "`"):
                skip(to: byte)
            case UInt8(ascii: "["):
                skip(to: UInt8(ascii: "]"))
            case UInt8(ascii: "-") where index + 1 < bytes.count && bytes[index + 1] == UInt8(ascii: "-"):
                while index < bytes.count && bytes[index] != UInt8(ascii: "\n") { index += 1 }
            case UInt8(ascii: "/") where index + 1 < bytes.count && bytes[index + 1] == UInt8(ascii: "*"):
                index += 2
                while index + 1 < bytes.count && !(bytes[index] == UInt8(ascii: "*") && bytes[index + 1] == UInt8(ascii: "/")) {
                    index += 1
                }
                index += 2
            default:
                guard isWordByte(byte) else {
                    index += 1
                    continue
                }
                let start = index
                while index < bytes.count && isWordByte(bytes[index]) { index += 1 }
                if index - start == target.count
                    && zip(bytes[start..<index], target).allSatisfy({ uppercased($0) == $1 })
                {
                    return true
                }
            }
        }
        return false
    }

    private static func isWordByte(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
            || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "_") || byte >= 0x80
    }

    private static func uppercased(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z") ? byte - 32 : byte
    }
}

/// The rows of a file's `sqlite_schema`, read once (`SchemaAudit.schemaRows`).
struct SchemaRows {
    fileprivate let objects: [SchemaObjectRow]

    /// How many tables the file has (SQLite's own among them).
    var tableCount: Int { objects.reduce(0) { $0 + ($1.type == "table" ? 1 : 0) } }

    /// Whether the file has a table named `name` (compared without case, as
    /// SQLite compares names).
    func hasTable(named name: String) -> Bool {
        let lowered = name.lowercased()
        return objects.contains { $0.type == "table" && $0.name.lowercased() == lowered }
    }
}

/// One row of `sqlite_schema`.
private struct SchemaObjectRow: Hashable {
    let type: String
    let name: String
    let table: String
    let sql: String?
}

/// The audits of this process (see `SchemaAudit.foreignObjects(recordText:schema:in:rows:)`).
private enum RememberedAudits {
    struct Key: Hashable {
        let recordText: String
        let objects: [SchemaObjectRow]

        /// Hashes the shape (the record's length, each object's type and
        /// name), not the record's and the objects' SQL texts, which are
        /// most of the bytes: hashing them cost more than the rest of the
        /// audit of a remembered store. Keys that differ only in those
        /// texts share a hash and are told apart by `==`, which compares
        /// everything.
        func hash(into hasher: inout Hasher) {
            hasher.combine(recordText.utf8.count)
            hasher.combine(objects.count)
            for object in objects {
                hasher.combine(object.type)
                hasher.combine(object.name)
            }
        }
    }

    /// Enough for the stores an app opens; more start the memory over.
    static let limit = 16
    static let shared = Locked<[Key: [ForeignSchemaObject]]>([:])
}
