import Foundation
import ModelStore

/// One transaction of a store's change history, as store-tool shows it.
package struct DynamicHistoryTransaction: Sendable, Equatable {
    /// One changed row.
    package struct Change: Sendable, Equatable {
        /// The changed row.
        package let id: ObjectID
        /// `insert`, `update` or `delete`.
        package let kind: String
        /// For an update, the names of the properties it changed; nil otherwise.
        package let properties: [String]?
        /// For a delete, the values of the attributes marked
        /// `.preserveValueOnDeletion` as a JSON object in the export form;
        /// nil otherwise, and when the entity preserves none.
        package let tombstone: String?
    }

    /// The history token (`--since` and `--prune-before` take it).
    package let token: Int64
    /// When the save began.
    package let timestamp: Date
    /// The saving context's author (`store-tool` for store-tool's edits).
    package let author: String?
    /// The saving app's bundle identifier, or its process name.
    package let bundleIdentifier: String
    /// The saving process's id.
    package let processIdentifier: String
    /// The changes, in the order recorded.
    package let changes: [Change]

    /// How many rows it inserted, updated and deleted.
    package var counts: (inserted: Int, updated: Int, deleted: Int) {
        changes.reduce(into: (0, 0, 0)) { counts, change in
            switch change.kind {
            case "insert": counts.0 += 1
            case "update": counts.1 += 1
            default: counts.2 += 1
            }
        }
    }
}

/// What `DynamicStore.history` read.
package struct DynamicHistory: Sendable {
    /// The transactions, oldest first.
    package let transactions: [DynamicHistoryTransaction]
    /// The latest token the store issued (0 when none), whether or not its
    /// transaction is still kept.
    package let latestToken: Int64
    /// When the history after the `since` token cannot be complete, why (some
    /// transactions after it were pruned, or the store never issued it);
    /// nil otherwise.
    package let sinceProblem: String?
    /// False for a store without history tables (a read-only store of a
    /// format before 3).
    package let isRecorded: Bool
}

extension DynamicStore {
    /// The transactions of the store's change history after token `since`
    /// (all when nil), of `author` if given, at most `limit`, oldest first.
    /// Works on read-only stores.
    /// - Throws: `SQLiteError`; `ModelStoreError.invalidValue` for a history
    ///   row not of the documented layout.
    /// - Complexity: O(transactions read and their changes).
    package func history(since: Int64? = nil, author: String? = nil, limit: Int? = nil) throws -> DynamicHistory {
        try connection.withReadSnapshot {
            guard try ChangeHistory.exists(connection: connection) else {
                return DynamicHistory(transactions: [], latestToken: 0, sinceProblem: nil, isRecorded: false)
            }
            let latest = try ChangeHistory.latestToken(connection: connection)
            let problem = try since.flatMap { token in
                try ChangeHistory.expiry(after: token, connection: connection)?.reason(token: token)
            }
            let records = try ChangeHistory.transactions(
                in: HistoryRange(after: since, author: author, limit: limit), connection: connection, path: path)
            let transactions = records.map { record in
                DynamicHistoryTransaction(
                    token: record.token, timestamp: Date(timeIntervalSince1970: record.timestamp), author: record.author,
                    bundleIdentifier: record.bundleIdentifier, processIdentifier: record.processIdentifier,
                    changes: record.changes.map {
                        .init(
                            id: ObjectID(entity: $0.entity, key: $0.row), kind: $0.kind.rawValue, properties: $0.properties,
                            tombstone: $0.tombstone)
                    })
            }
            return DynamicHistory(transactions: transactions, latestToken: latest, sinceProblem: problem, isRecorded: true)
        }
    }

    /// Deletes the history's transactions before token `before` (and their
    /// changes), in one transaction; the objects are not changed, and the
    /// pruning is not itself recorded. An app whose token is before a deleted
    /// transaction gets `historyTokenExpired` when it next catches up.
    /// Returns how many transactions were (with `dryRun`, would be) deleted.
    /// - Throws: `ModelStoreError.readOnlyStore` when opened read-only;
    ///   `.saveFailed` naming the history table (a lock held past the busy
    ///   timeout is its `SQLITE_BUSY`).
    package func pruneHistory(before token: Int64, dryRun: Bool = false) throws -> Int {
        try writeTransaction(dryRun: dryRun) {
            guard try ChangeHistory.exists(connection: connection) else { return 0 }
            let tokens = try ChangeHistory.tokens(in: HistoryRange(before: token), connection: connection)
            return try ChangeHistory.delete(tokens: tokens, connection: connection)
        }
    }
}
