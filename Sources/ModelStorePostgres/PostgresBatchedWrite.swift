import ModelStore

/// One of the library's per-object writes, and the statement that does the
/// same for many objects at once (see the library's
/// ForeignDatabase+DeferredWrites.swift for when a write is held back).
///
/// The shapes the library writes, recognized here exactly (any other text
/// is not batched, and runs as it came):
/// - `INSERT INTO "T" ("a", "b", "_version") VALUES (?, ?, 1)` becomes
///   `INSERT INTO "T" ("_pk", "a", "b", "_version") SELECT v.c0, v.c1, v.c2, 1
///   FROM unnest($1::bigint[], $2::text[], $3::double precision[]) AS v(c0, c1, c2)`,
///   the keys reserved beforehand in the first array (no key for a table
///   that has none, a join table);
/// - `UPDATE "T" SET "a" = ?, "_version" = "_version" + 1 WHERE "_pk" = ? AND
///   "_version" = ?` becomes `UPDATE "T" SET "a" = v.c0, "_version" = "T"."_version" + 1
///   FROM unnest(…) AS v(c0, c1, c2) WHERE "T"."_pk" = v.c1 AND "T"."_version" = v.c2`;
///   when it changes fewer rows than it was given, it is undone and sent
///   again with `RETURNING "T"."_pk"`: a key missing from those returned is
///   a row whose version moved (a conflict);
/// - the same UPDATE by key without the version check (`LinkWriter`'s
///   positions and foreign keys: `UPDATE "T" SET "o" = ? WHERE "_pk" = ?`),
///   whose rows are not counted, as SQLite's are not;
/// - a join table's upsert, `INSERT INTO "J" ("source", "target", "o")
///   VALUES (?, ?, ?) ON CONFLICT ("source", "target") DO UPDATE SET "o" =
///   excluded."o"`, sent as `INSERT … SELECT … FROM unnest(…) ON CONFLICT …`.
///
/// The last two may write one row more than once in a save (`rowIdentity`
/// names it), which one statement must not: `PostgresWriteDeferral` sends
/// what it holds first.
///
/// Each array is one parameter cast to the column's type (from the
/// catalog), so the statement's text is the same whatever the number of
/// rows: a binary array where the element's binary form is the value
/// itself (`PostgresBinaryArray`), else PostgreSQL's array text, which the
/// server reads with the same input function as the value sent alone.
package final class PostgresBatchedWrite: Sendable, Equatable {
    package enum Kind: Sendable, Equatable {
        /// An INSERT; `keyColumn` is the column filled from reserved keys,
        /// nil for a table without one.
        case insert(keyColumn: String?)
        /// A version-checked UPDATE; `keyParameter` is the index of the
        /// statement's parameter that holds the row's key.
        case update(keyParameter: Int)
        /// An UPDATE by key alone: a row it does not find is no miss.
        case plainUpdate(keyParameter: Int)
        /// A join table's upsert: an INSERT that updates the row it finds.
        case upsert
    }

    /// The table, unquoted.
    package let table: String
    package let kind: Kind
    /// The batched statement, with one array parameter per entry of `arrayTypes`.
    package let sql: String
    /// For an UPDATE, `sql` returning the key of each row it wrote: sent
    /// when `sql` changed fewer rows than it was given, to learn which.
    package let returningSQL: String?
    /// Each array parameter's element type; for an insert with a key column
    /// the first is the key's, and the others follow the statement's
    /// parameters in order.
    package let arrayTypes: [String]
    /// The binary form of each array parameter's elements, nil where they go as text.
    package let binaryElements: [PostgresBinaryArray.Element?]
    /// For the shapes that may write one row twice in a save (plain
    /// UPDATEs, upserts), the statement's parameters that name the row
    /// (its key; the join table's two keys); nil for the save's one write
    /// per object.
    package let rowIdentity: [Int]?

    // A class, so that looking up a statement's translation for each row
    // copies one reference, not the strings and arrays.
    init(
        table: String, kind: Kind, sql: String, returningSQL: String? = nil, arrayTypes: [String], rowIdentity: [Int]? = nil
    ) {
        self.table = table
        self.kind = kind
        self.sql = sql
        self.returningSQL = returningSQL
        self.arrayTypes = arrayTypes
        self.rowIdentity = rowIdentity
        binaryElements = arrayTypes.map(PostgresBinaryArray.Element.init(columnType:))
    }

    package static func == (lhs: PostgresBatchedWrite, rhs: PostgresBatchedWrite) -> Bool {
        lhs.table == rhs.table && lhs.kind == rhs.kind && lhs.sql == rhs.sql && lhs.returningSQL == rhs.returningSQL
            && lhs.arrayTypes == rhs.arrayTypes && lhs.rowIdentity == rhs.rowIdentity
    }

    /// The batched form of `sql` (the library's SQLite text), or nil when
    /// it is not one of the shapes or a column's type is not known.
    /// `columnTypes` gives each column's PostgreSQL type by table;
    /// `keyColumns` the column each table fills from a sequence.
    package static func recognize(
        _ sql: String, columnTypes: [String: [String: String]], keyColumns: [String: String]
    ) -> PostgresBatchedWrite? {
        var scanner = Scanner(sql)
        if scanner.take("INSERT INTO ") {
            return insert(&scanner, columnTypes: columnTypes, keyColumns: keyColumns)
        }
        if scanner.take("UPDATE ") { return update(&scanner, columnTypes: columnTypes) }
        return nil
    }

    private static func insert(
        _ scanner: inout Scanner, columnTypes: [String: [String: String]], keyColumns: [String: String]
    ) -> PostgresBatchedWrite? {
        guard let table = scanner.identifier(), let types = columnTypes[table], scanner.take(" (") else { return nil }
        var columns: [String] = []
        repeat {
            guard let column = scanner.identifier() else { return nil }
            columns.append(column)
        } while scanner.take(", ")
        guard scanner.take(") VALUES (") else { return nil }
        var items: [Item] = []
        repeat {
            guard let item = scanner.item() else { return nil }
            items.append(item)
        } while scanner.take(", ")
        guard scanner.take(")"), items.count == columns.count else { return nil }
        let keyColumn = keyColumns[table]
        // A key given by the statement itself is not the shape the save writes.
        if let keyColumn, columns.contains(keyColumn) { return nil }
        var conflict: (clause: String, identity: [Int])?
        if !scanner.isAtEnd {
            // Only a join table's upsert: an entity's upserts tell the save
            // the key and version of the row they hit, which a held row cannot.
            guard keyColumn == nil, let upsert = upsertClause(&scanner, columns: columns, items: items) else { return nil }
            conflict = upsert
        }
        var arrayTypes: [String] = []
        var names = columns
        var selected: [String] = []
        if let keyColumn {
            guard let type = types[keyColumn] else { return nil }
            arrayTypes.append(type)
            names.insert(keyColumn, at: 0)
            selected.append("v.c0")
        }
        for (column, item) in zip(columns, items) {
            switch item {
            case .parameter:
                guard let type = types[column] else { return nil }
                selected.append("v.c\(arrayTypes.count)")
                arrayTypes.append(type)
            case .literal(let literal):
                selected.append(literal)
            }
        }
        guard arrayTypes.count > (keyColumn == nil ? 0 : 1) else { return nil }
        let sql =
            "INSERT INTO \(quoteIdentifier(table)) (\(names.map(quoteIdentifier).joined(separator: ", "))) "
            + "SELECT \(selected.joined(separator: ", ")) FROM \(unnest(arrayTypes))"
        if let conflict {
            return PostgresBatchedWrite(
                table: table, kind: .upsert, sql: sql + conflict.clause, arrayTypes: arrayTypes, rowIdentity: conflict.identity)
        }
        return PostgresBatchedWrite(table: table, kind: .insert(keyColumn: keyColumn), sql: sql, arrayTypes: arrayTypes)
    }

    /// ` ON CONFLICT ("a", "b") DO UPDATE SET "c" = excluded."c"` at the
    /// end of an INSERT of `columns`, every one a parameter: the clause, and
    /// the parameters of the conflict's columns.
    private static func upsertClause(
        _ scanner: inout Scanner, columns: [String], items: [Item]
    ) -> (clause: String, identity: [Int])? {
        guard !items.contains(where: { $0 != .parameter }), scanner.take(" ON CONFLICT (") else { return nil }
        var identity: [Int] = []
        repeat {
            guard let column = scanner.identifier(), let index = columns.firstIndex(of: column) else { return nil }
            identity.append(index)
        } while scanner.take(", ")
        guard scanner.take(") DO UPDATE SET ") else { return nil }
        var assignments: [String] = []
        repeat {
            // Each column set is one the INSERT names, outside the conflict's.
            guard let column = scanner.identifier(), let index = columns.firstIndex(of: column), !identity.contains(index),
                scanner.take(" = excluded."), scanner.identifier() == column
            else { return nil }
            assignments.append("\(quoteIdentifier(column)) = excluded.\(quoteIdentifier(column))")
        } while scanner.take(", ")
        guard scanner.isAtEnd, !identity.isEmpty else { return nil }
        let clause =
            " ON CONFLICT (\(identity.map { quoteIdentifier(columns[$0]) }.joined(separator: ", "))) "
            + "DO UPDATE SET \(assignments.joined(separator: ", "))"
        return (clause, identity)
    }

    private static func update(_ scanner: inout Scanner, columnTypes: [String: [String: String]]) -> PostgresBatchedWrite? {
        guard let table = scanner.identifier(), let types = columnTypes[table], scanner.take(" SET ") else { return nil }
        let version = quoteIdentifier(rowVersionColumn)
        let bump = "\(version) = \(version) + 1"
        let qualified = "\(quoteIdentifier(table)).\(version)"
        var assignments: [String] = []
        var arrayTypes: [String] = []
        var bumps = false
        repeat {
            if scanner.take(bump) {
                bumps = true
                assignments.append("\(version) = \(qualified) + 1")
                continue
            }
            guard !bumps, let column = scanner.identifier(), let type = types[column], scanner.take(" = "),
                scanner.item() == .parameter
            else { return nil }
            assignments.append("\(quoteIdentifier(column)) = v.c\(arrayTypes.count)")
            arrayTypes.append(type)
        } while scanner.take(", ")
        let key = quoteIdentifier(primaryKeyColumn)
        guard !arrayTypes.isEmpty, scanner.take(" WHERE \(key) = ?"), let keyType = types[primaryKeyColumn] else { return nil }
        let keyParameter = arrayTypes.count
        if scanner.isAtEnd {
            arrayTypes.append(keyType)
            return PostgresBatchedWrite(
                table: table, kind: .plainUpdate(keyParameter: keyParameter),
                sql: "UPDATE \(quoteIdentifier(table)) SET \(assignments.joined(separator: ", ")) FROM \(unnest(arrayTypes)) "
                    + "WHERE \(quoteIdentifier(table)).\(key) = v.c\(keyParameter)",
                arrayTypes: arrayTypes, rowIdentity: [keyParameter])
        }
        guard bumps, scanner.take(" AND \(version) = ?"), scanner.isAtEnd, let versionType = types[rowVersionColumn] else {
            return nil
        }
        arrayTypes += [keyType, versionType]
        let sql =
            "UPDATE \(quoteIdentifier(table)) SET \(assignments.joined(separator: ", ")) FROM \(unnest(arrayTypes)) "
            + "WHERE \(quoteIdentifier(table)).\(key) = v.c\(keyParameter) AND \(qualified) = v.c\(keyParameter + 1)"
        return PostgresBatchedWrite(
            table: table, kind: .update(keyParameter: keyParameter), sql: sql,
            returningSQL: sql + " RETURNING \(quoteIdentifier(table)).\(key)", arrayTypes: arrayTypes)
    }

    /// `unnest($1::t0[], …) AS v(c0, …)`.
    private static func unnest(_ types: [String]) -> String {
        let arrays = types.enumerated().map { "$\($0.offset + 1)::\($0.element)[]" }.joined(separator: ", ")
        let names = types.indices.map { "c\($0)" }.joined(separator: ", ")
        return "unnest(\(arrays)) AS v(\(names))"
    }

    /// A VALUES item of the library's INSERT.
    private enum Item: Equatable {
        case parameter
        /// A number or a string literal, copied as it is.
        case literal(String)
    }

    /// Reads the library's statement text left to right.
    private struct Scanner {
        private let text: Substring
        private var position: Substring.Index

        init(_ text: String) {
            self.text = Substring(text)
            position = self.text.startIndex
        }

        var isAtEnd: Bool { position == text.endIndex }

        /// Moves past `prefix` when the text goes on with it.
        mutating func take(_ prefix: String) -> Bool {
            guard text[position...].hasPrefix(prefix) else { return false }
            position = text.index(position, offsetBy: prefix.count)
            return true
        }

        /// A quoted identifier, unquoted.
        mutating func identifier() -> String? {
            guard let literal = quoted("\"") else { return nil }
            return String(literal.dropFirst().dropLast()).replacingOccurrences(of: "\"\"", with: "\"")
        }

        /// `?`, a number or a string literal.
        mutating func item() -> Item? {
            if take("?") { return .parameter }
            if let literal = quoted("'") { return .literal(literal) }
            let digits = text[position...].prefix { $0.isASCII && ($0.isNumber || $0 == "-") }
            guard !digits.isEmpty else { return nil }
            position = digits.endIndex
            return .literal(String(digits))
        }

        /// The text of a literal quoted with `quote` (a doubled quote inside), quotes included.
        private mutating func quoted(_ quote: Character) -> String? {
            guard position < text.endIndex, text[position] == quote else { return nil }
            var index = text.index(after: position)
            while index < text.endIndex {
                if text[index] == quote {
                    let next = text.index(after: index)
                    if next < text.endIndex, text[next] == quote {
                        index = text.index(after: next)
                        continue
                    }
                    let literal = String(text[position..<next])
                    position = next
                    return literal
                }
                index = text.index(after: index)
            }
            return nil
        }
    }
}

/// PostgreSQL's array input text for one column of held-back rows: what the
/// server parses with the element type's own input function, so each
/// element reads exactly as the same value sent alone as text.
package enum PostgresArrayText {
    /// A text value holds the NUL character, which PostgreSQL text cannot store.
    package struct NULCharacter: Error {
        /// The element's position in the array.
        package let index: Int
    }

    /// `{"a","b\"c",NULL}` as UTF-8: every element quoted but NULL and
    /// integers, with `\` and `"` escaped; reals as the backend sends them
    /// alone; a blob as bytea's hex input (`\x0a0b`).
    /// - Throws: `NULCharacter` for a text value that holds NUL.
    package static func array(_ values: some Collection<SQLiteValue>) throws(NULCharacter) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(values.count * 12 + 2)
        bytes.append(UInt8(ascii: "{"))
        for (index, value) in values.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            switch value {
            case .null: bytes.append(contentsOf: "NULL".utf8)
            case .integer(let integer): appendDigits(of: integer, to: &bytes)
            case .real(let real):
                bytes.append(quote)
                bytes.append(contentsOf: PostgresForeignDatabase.text(of: real).utf8)
                bytes.append(quote)
            case .text(let string):
                guard appendQuoted(string, to: &bytes) else { throw NULCharacter(index: index) }
            case .blob(let data):
                bytes.append(quote)
                bytes.append(contentsOf: #"\\x"#.utf8)
                for byte in data {
                    bytes.append(hexDigits[Int(byte >> 4)])
                    bytes.append(hexDigits[Int(byte & 0x0F)])
                }
                bytes.append(quote)
            }
        }
        bytes.append(UInt8(ascii: "}"))
        return bytes
    }

    private static let quote = UInt8(ascii: "\"")
    private static let backslash = UInt8(ascii: "\\")
    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// The decimal digits of `integer`, written in place: no String per value.
    private static func appendDigits(of integer: Int64, to bytes: inout [UInt8]) {
        if integer < 0 { bytes.append(UInt8(ascii: "-")) }
        var magnitude = integer.magnitude
        var digits = 1
        var rest = magnitude / 10
        while rest > 0 {
            digits += 1
            rest /= 10
        }
        // Room for the digits, then each written from the last.
        bytes.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: digits))
        var position = bytes.count
        repeat {
            position -= 1
            bytes[position] = UInt8(ascii: "0") + UInt8(magnitude % 10)
            magnitude /= 10
        } while magnitude > 0
    }

    /// Appends `string` quoted and escaped; false (with the bytes up to it
    /// written) when it holds NUL.
    private static func appendQuoted(_ string: String, to bytes: inout [UInt8]) -> Bool {
        bytes.append(quote)
        for byte in string.utf8 {
            if byte == backslash || byte == quote {
                bytes.append(backslash)
            } else if byte == 0 {
                return false
            }
            bytes.append(byte)
        }
        bytes.append(quote)
        return true
    }
}
