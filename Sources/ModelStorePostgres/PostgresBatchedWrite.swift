import ModelStore

/// One of the library's per-object writes, and the statement that does the
/// same for many objects at once (see the library's
/// ForeignDatabase+DeferredWrites.swift for when a write is held back).
///
/// Two shapes, written by `EntityTable` and recognized here exactly (any
/// other text is not batched, and runs as it came):
/// - `INSERT INTO "T" ("a", "b", "_version") VALUES (?, ?, 1)` becomes
///   `INSERT INTO "T" ("_pk", "a", "b", "_version") SELECT v.c0, v.c1, v.c2, 1
///   FROM unnest($1::bigint[], $2::text[], $3::double precision[]) AS v(c0, c1, c2)`,
///   the keys reserved beforehand in the first array (no key for a table
///   that has none, a join table);
/// - `UPDATE "T" SET "a" = ?, "_version" = "_version" + 1 WHERE "_pk" = ? AND
///   "_version" = ?` becomes `UPDATE "T" SET "a" = v.c0, "_version" = "T"."_version" + 1
///   FROM unnest(…) AS v(c0, c1, c2) WHERE "T"."_pk" = v.c1 AND "T"."_version" = v.c2
///   RETURNING "T"."_pk"`: the keys returned are the rows written, and a
///   key missing from them is a row whose version moved (a conflict).
///
/// Each array is one parameter, sent as PostgreSQL's array text and cast
/// to the column's type (from the catalog), so the statement's text is the
/// same whatever the number of rows, and each value is read by the same
/// input function as when it is sent alone.
package struct PostgresBatchedWrite: Sendable, Equatable {
    package enum Kind: Sendable, Equatable {
        /// An INSERT; `keyColumn` is the column filled from reserved keys,
        /// nil for a table without one.
        case insert(keyColumn: String?)
        /// A version-checked UPDATE; `keyParameter` is the index of the
        /// statement's parameter that holds the row's key.
        case update(keyParameter: Int)
    }

    /// The table, unquoted.
    package var table: String
    package var kind: Kind
    /// The batched statement, with one array parameter per entry of `arrayTypes`.
    package var sql: String
    /// Each array parameter's element type; for an insert with a key column
    /// the first is the key's, and the others follow the statement's
    /// parameters in order.
    package var arrayTypes: [String]

    /// The batched form of `sql` (the library's SQLite text), or nil when
    /// it is not one of the two shapes or a column's type is not known.
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
        guard scanner.take(")"), scanner.isAtEnd, items.count == columns.count else { return nil }
        let keyColumn = keyColumns[table]
        // A key given by the statement itself is not the shape the save writes.
        if let keyColumn, columns.contains(keyColumn) { return nil }
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
        return PostgresBatchedWrite(table: table, kind: .insert(keyColumn: keyColumn), sql: sql, arrayTypes: arrayTypes)
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
        guard bumps, !arrayTypes.isEmpty, scanner.take(" WHERE \(key) = ? AND \(version) = ?"), scanner.isAtEnd,
            let keyType = types[primaryKeyColumn], let versionType = types[rowVersionColumn]
        else { return nil }
        let keyParameter = arrayTypes.count
        arrayTypes += [keyType, versionType]
        let sql =
            "UPDATE \(quoteIdentifier(table)) SET \(assignments.joined(separator: ", ")) FROM \(unnest(arrayTypes)) "
            + "WHERE \(quoteIdentifier(table)).\(key) = v.c\(keyParameter) AND \(qualified) = v.c\(keyParameter + 1) "
            + "RETURNING \(quoteIdentifier(table)).\(key)"
        return PostgresBatchedWrite(table: table, kind: .update(keyParameter: keyParameter), sql: sql, arrayTypes: arrayTypes)
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
    /// `{"a","b\"c",NULL}`: every element quoted but NULL, with `\` and `"`
    /// escaped; integers and reals as the backend sends them alone; a blob
    /// as bytea's hex input (`\x0a0b`).
    package static func array(_ values: some Collection<SQLiteValue>) -> String {
        var text = "{"
        text.reserveCapacity(values.count * 12 + 2)
        var first = true
        for value in values {
            if !first { text += "," }
            first = false
            switch value {
            case .null: text += "NULL"
            case .integer(let integer): text += String(integer)
            case .real(let real): text += "\"" + PostgresForeignDatabase.text(of: real) + "\""
            case .text(let string): appendQuoted(string, to: &text)
            case .blob(let data):
                text += "\"\\\\x"
                for byte in data {
                    text.unicodeScalars.append(hexDigits[Int(byte >> 4)])
                    text.unicodeScalars.append(hexDigits[Int(byte & 0x0F)])
                }
                text += "\""
            }
        }
        return text + "}"
    }

    private static let hexDigits = Array("0123456789abcdef".unicodeScalars)

    private static func appendQuoted(_ string: String, to text: inout String) {
        text += "\""
        if string.utf8.contains(where: { $0 == UInt8(ascii: "\\") || $0 == UInt8(ascii: "\"") }) {
            for scalar in string.unicodeScalars {
                if scalar == "\\" || scalar == "\"" { text += "\\" }
                text.unicodeScalars.append(scalar)
            }
        } else {
            text += string
        }
        text += "\""
    }
}
