import Foundation

// Reading and pruning the change history (layout: ChangeHistory.swift), in
// the store's own terms: entity names, row keys, property names. The typed
// API (`fetchHistory`), store-tool's `history` and the merging of other
// contexts' and processes' saves all read through here.
//
// Tokens are contiguous. `token` is an AUTOINCREMENT key, and a transaction
// row is only ever inserted by a save or a store-tool edit, in the writer's
// own transaction: a write that fails rolls back `sqlite_sequence` with it,
// so the tokens issued are exactly 1...seq. A token missing from that range
// was deleted by pruning. This is what makes "has history after token T been
// pruned?" a count over the range after T, instead of a record of every
// pruning: `seq - T` transactions were issued after T, and if fewer are
// left, some are gone and a reader holding T has missed changes.

/// One change of a recorded transaction, as stored.
package struct RecordedChange: Sendable, Equatable {
    /// The change's id: its order within the whole history (the stored
    /// group's id in the high 32 bits, the row's place in the group in the
    /// low ones).
    package let id: Int64
    /// The token of its transaction.
    package let token: Int64
    /// The entity of the changed row.
    package let entity: String
    /// The changed row's key (`_pk`).
    package let row: Int64
    package let kind: ChangeHistory.Kind
    /// For an update, the names of the properties it changed; nil otherwise.
    package let properties: [String]?
    /// For a delete, the preserved values as a JSON object (store-tool's
    /// export form); nil otherwise, and when the entity preserves none.
    package let tombstone: String?
}

/// One recorded transaction, as stored.
package struct RecordedTransaction: Sendable, Equatable {
    package let token: Int64
    /// Seconds since 1970.
    package let timestamp: Double
    package let author: String?
    package let bundleIdentifier: String
    package let processIdentifier: String
    /// In the order they were recorded.
    package var changes: [RecordedChange]
}

/// Which transactions to read or prune, in SQL: every condition given must
/// hold. Each is exact except the timestamp bounds, which are widened a
/// little (see `timestampSlack`), so callers that need an exact timestamp
/// test apply it again to what is read.
package struct HistoryRange: Sendable, Equatable {
    /// Only tokens greater than this.
    package var after: Int64?
    /// Only tokens less than this.
    package var before: Int64?
    /// Only this token.
    package var token: Int64?
    /// Only transactions of this author (store-tool's "--author"); compared
    /// byte for byte.
    package var author: String?
    /// Only transactions whose timestamp (seconds since 1970) is at least /
    /// at most about this.
    var earliest: Double?
    package var latest: Double?
    /// At most this many transactions, the oldest first.
    package var limit: Int?

    package init(after: Int64? = nil, before: Int64? = nil, author: String? = nil, limit: Int? = nil) {
        self.after = after
        self.before = before
        self.author = author
        self.limit = limit
    }

    /// How far a timestamp bound is widened in SQL: a `Date` made from the
    /// stored seconds and converted back can differ from them in the last
    /// bits, so an exact SQL comparison could drop a transaction that an
    /// exact `Date` comparison keeps.
    static let timestampSlack = 0.001

    /// The WHERE clause (or "") and its bound values.
    fileprivate func whereClause() -> (sql: String, values: [SQLiteValue]) {
        var conditions: [String] = []
        var values: [SQLiteValue] = []
        func add(_ condition: String, _ value: SQLiteValue) {
            values.append(value)
            conditions.append(condition.replacingOccurrences(of: "?", with: "?\(values.count)"))
        }
        if let after { add("\"token\" > ?", .integer(after)) }
        if let before { add("\"token\" < ?", .integer(before)) }
        if let token { add("\"token\" = ?", .integer(token)) }
        if let author { add("\"author\" = ?", .text(author)) }
        if let earliest { add("\"timestamp\" >= ?", .real(earliest - Self.timestampSlack)) }
        if let latest { add("\"timestamp\" <= ?", .real(latest + Self.timestampSlack)) }
        return (conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND "), values)
    }
}

/// Why a reader's token no longer works.
package enum HistoryExpiry: Sendable, Equatable {
    /// Transactions after the token were pruned: the reader would miss them.
    case pruned(missing: Int64)
    /// The token is later than any this store has issued: it is not this
    /// store's (the file was replaced, or restored from an older copy).
    case unknown(latest: Int64)

    package func reason(token: Int64) -> String {
        switch self {
        case .pruned(let missing):
            "\(missing) transaction\(missing == 1 ? "" : "s") after token \(token) \(missing == 1 ? "was" : "were") pruned from the history"
        case .unknown(let latest):
            "token \(token) is later than the store's latest token (\(latest)): it was not issued by this store"
        }
    }
}

extension ChangeHistory {
    /// True when the store has the history tables (format 3; a read-only
    /// store of an older format has none, and so no history).
    package static func exists(connection: Connection) throws -> Bool {
        let statement = try connection.cachedStatement(
            "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name IN (?1, ?2)")
        defer { statement.reset() }
        try statement.bind(transactionsTable, at: 1)
        try statement.bind(changesTable, at: 2)
        _ = try statement.step()
        return statement.int64(at: 0) == 2
    }

    /// The latest token the store has issued (0 before the first), whether or
    /// not its transaction was pruned since.
    package static func latestToken(connection: Connection) throws -> Int64 {
        try latestTokenIfKept(connection: connection) ?? 0
    }

    /// The latest token the store has issued (0 before the first), or nil
    /// when the store keeps no history: `exists` and `latestToken` in one.
    package static func latestTokenIfKept(connection: Connection) throws -> Int64? {
        guard try exists(connection: connection) else { return nil }
        return try latestTokenOfKeptHistory(connection: connection)
    }

    /// `latestToken` of a store known to keep the history (one that opening
    /// upgraded to format 3): one statement, so one snapshot.
    package static func latestTokenOfKeptHistory(connection: Connection) throws -> Int64 {
        let statement = try connection.cachedStatement("SELECT seq FROM sqlite_sequence WHERE name = ?1")
        defer { statement.reset() }
        try statement.bind(transactionsTable, at: 1)
        return try statement.step() ? statement.int64(at: 0) : 0
    }

    /// Whether a reader that has seen every transaction up to `token` (and
    /// none after) can still catch up: nil when it can, else why not.
    /// - Complexity: O(transactions after `token`).
    package static func expiry(after token: Int64, connection: Connection) throws -> HistoryExpiry? {
        try expiry(after: token, latest: latestToken(connection: connection), connection: connection)
    }

    /// `expiry(after:connection:)` where the caller read the latest token
    /// (`latest`) in the same snapshot.
    package static func expiry(after token: Int64, latest: Int64, connection: Connection) throws -> HistoryExpiry? {
        if token > latest { return .unknown(latest: latest) }
        guard token < latest else { return nil }
        let statement = try connection.cachedStatement(
            "SELECT count(*) FROM \(quoteIdentifier(transactionsTable)) WHERE \"token\" > ?1")
        defer { statement.reset() }
        try statement.bind(token, at: 1)
        _ = try statement.step()
        let missing = (latest - token) - statement.int64(at: 0)
        return missing > 0 ? .pruned(missing: missing) : nil
    }

    /// The transactions in `range`, oldest first, each with its changes. A
    /// store without history tables has none.
    /// - Throws: `SQLiteError`; `ModelStoreError.invalidValue` naming the
    ///   history table, token and column for a row that is not of the
    ///   documented layout (a change kind or property list edited by hand).
    /// - Complexity: O(transactions and changes read): the range's token
    ///   bounds use the tables' keys and the changes' token index.
    package static func transactions(in range: HistoryRange, connection: Connection, path: String) throws -> [RecordedTransaction] {
        guard try exists(connection: connection) else { return [] }
        return try connection.withReadSnapshot {
            let (condition, values) = range.whereClause()
            let limit = range.limit.map { " LIMIT \($0)" } ?? ""
            let selected = "SELECT \"token\" FROM \(quoteIdentifier(transactionsTable))\(condition) ORDER BY \"token\"\(limit)"
            var transactions: [RecordedTransaction] = []
            var positions: [Int64: Int] = [:]
            let header = try connection.prepare(
                "SELECT \"token\", \"timestamp\", \"author\", \"bundleIdentifier\", \"processIdentifier\" FROM "
                    + "\(quoteIdentifier(transactionsTable)) WHERE \"token\" IN (\(selected)) ORDER BY \"token\"")
            for (index, value) in values.enumerated() { try header.bind(value, at: Int32(index + 1)) }
            while try header.step() {
                let token = header.int64(at: 0)
                positions[token] = transactions.count
                transactions.append(
                    RecordedTransaction(
                        token: token, timestamp: header.double(at: 1), author: header.isNull(at: 2) ? nil : header.string(at: 2),
                        bundleIdentifier: header.string(at: 3), processIdentifier: header.string(at: 4), changes: []))
            }
            guard !transactions.isEmpty else { return [] }
            let changes = try connection.prepare(
                // One stored row per group of rows changed alike (see
                // ChangeHistory): expanded here to one change per row, whose
                // id is the group's id and the row's place in it.
                "SELECT (c.\"id\" << 32) + j.\"key\", c.\"token\", c.\"entity\", j.\"value\", c.\"kind\", c.\"properties\", "
                    + "c.\"tombstone\" FROM \(quoteIdentifier(changesTable)) AS c, json_each(c.\"rows\") AS j "
                    + "WHERE c.\"token\" IN (\(selected)) ORDER BY c.\"token\", c.\"id\", j.\"key\"")
            for (index, value) in values.enumerated() { try changes.bind(value, at: Int32(index + 1)) }
            while try changes.step() {
                let change = try readChange(changes, path: path)
                guard let position = positions[change.token] else { continue }
                transactions[position].changes.append(change)
            }
            return transactions
        }
    }

    /// The changes recorded after `token`, oldest first, flattened: what
    /// another context or process needs to merge what it has not seen. Nil
    /// when it cannot catch up from `token` (see `expiry(after:connection:)`):
    /// it must then refetch what it holds. Also returns the latest token, to
    /// pass next time.
    /// - Throws: as `transactions(in:connection:path:)`.
    package static func changes(after token: Int64, connection: Connection, path: String) throws -> (
        changes: [RecordedChange], latest: Int64
    )? {
        try connection.withReadSnapshot {
            guard try exists(connection: connection) else { return ([], 0) }
            if try expiry(after: token, connection: connection) != nil { return nil }
            let latest = try latestToken(connection: connection)
            let transactions = try transactions(in: HistoryRange(after: token), connection: connection, path: path)
            return (transactions.flatMap(\.changes), latest)
        }
    }

    /// Issues a token and deletes its transaction at once, inside the
    /// caller's write transaction, for a change the history does not
    /// describe row by row (`erase()`): the gap reads as a pruned
    /// transaction, so that every reader holding an earlier token refetches
    /// instead of missing the change (`fetchHistory` throws
    /// `historyTokenExpired`; other processes' containers read again the
    /// objects they hold), even when a recorded commit follows it before
    /// they look. Returns the token; nil for a store without history.
    /// - Throws: `ModelStoreError.saveFailed` naming the history table.
    static func recordGap(connection: Connection) throws -> Int64? {
        guard try exists(connection: connection) else { return nil }
        do {
            let insert = try connection.prepare(
                "INSERT INTO \(quoteIdentifier(transactionsTable)) "
                    + "(\"timestamp\", \"author\", \"bundleIdentifier\", \"processIdentifier\") VALUES (?1, NULL, ?2, ?3)")
            try insert.bind(.real(Date().timeIntervalSince1970), at: 1)
            try insert.bind(bundleIdentifier, at: 2)
            try insert.bind(processIdentifier, at: 3)
            try insert.run()
            let token = connection.lastInsertRowID
            let delete = try connection.prepare("DELETE FROM \(quoteIdentifier(transactionsTable)) WHERE \"token\" = ?1")
            try delete.bind(token, at: 1)
            try delete.run()
            return token
        } catch {
            throw ModelStoreError.saveFailed(entity: transactionsTable, row: nil, underlying: error)
        }
    }

    /// The tokens of the transactions in `range`, oldest first.
    /// - Throws: `SQLiteError`.
    package static func tokens(in range: HistoryRange, connection: Connection) throws -> [Int64] {
        guard try exists(connection: connection) else { return [] }
        let (condition, values) = range.whereClause()
        let limit = range.limit.map { " LIMIT \($0)" } ?? ""
        let statement = try connection.prepare(
            "SELECT \"token\" FROM \(quoteIdentifier(transactionsTable))\(condition) ORDER BY \"token\"\(limit)")
        for (index, value) in values.enumerated() { try statement.bind(value, at: Int32(index + 1)) }
        var tokens: [Int64] = []
        while try statement.step() { tokens.append(statement.int64(at: 0)) }
        return tokens
    }

    /// Deletes the transactions with these tokens and their changes. Must
    /// run inside the caller's write transaction. Returns how many were
    /// deleted.
    /// - Throws: `ModelStoreError.saveFailed` naming the history table.
    package static func delete(tokens: [Int64], connection: Connection) throws -> Int {
        guard !tokens.isEmpty else { return 0 }
        do {
            let keys = "[" + tokens.map(String.init).joined(separator: ",") + "]"
            let changes = try connection.prepare(
                "DELETE FROM \(quoteIdentifier(changesTable)) WHERE \"token\" IN (SELECT value FROM json_each(?1))")
            try changes.bind(keys, at: 1)
            try changes.run()
            let transactions = try connection.prepare(
                "DELETE FROM \(quoteIdentifier(transactionsTable)) WHERE \"token\" IN (SELECT value FROM json_each(?1))")
            try transactions.bind(keys, at: 1)
            try transactions.run()
            return connection.changes
        } catch {
            throw ModelStoreError.saveFailed(entity: transactionsTable, row: nil, underlying: error)
        }
    }

    private static func readChange(_ statement: Statement, path: String) throws -> RecordedChange {
        let token = statement.int64(at: 1)
        func invalid(_ column: String, _ reason: String) -> ModelStoreError {
            .invalidValue(entity: changesTable, property: column, row: statement.int64(at: 0), reason: reason + " (token \(token))", path: path)
        }
        let kindText = statement.string(at: 4)
        guard let kind = Kind(rawValue: kindText) else {
            throw invalid("kind", "'\(kindText)' is not insert, update or delete")
        }
        var properties: [String]?
        if !statement.isNull(at: 5) {
            guard let names = try? JSONDecoder().decode([String].self, from: Data(statement.string(at: 5).utf8)) else {
                throw invalid("properties", "not a JSON array of property names")
            }
            properties = names
        }
        return RecordedChange(
            id: statement.int64(at: 0), token: token, entity: statement.string(at: 2), row: statement.int64(at: 3), kind: kind,
            properties: kind == .update ? (properties ?? []) : properties,
            tombstone: statement.isNull(at: 6) ? nil : statement.string(at: 6))
    }
}
