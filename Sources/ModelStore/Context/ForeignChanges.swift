// What other processes' commits changed, read from the change history
// (ChangeHistory.swift), so that the contexts of a container merge exactly
// those rows, as they merge a save of this process, instead of reading
// again every object they hold.
//
// The coordinator (ChangeCoordinator.swift) notices a foreign commit through
// `data_version`; it then reads, on its watcher connection and in one read
// snapshot, the watcher's data_version and the transactions recorded after
// its `HistoryPosition`, leaving out this container's own, which the
// inboxes already hold. Each transaction becomes a `ChangeSet` delivered to
// every context's inbox. The cost is that of the foreign transactions: a
// count over the tokens after the position (the expiry check) and their
// changes, read by token through the history's keys and index.
//
// When the history cannot tell what changed, the coordinator falls back to
// the change of unknown extent (every context reads again every object it
// holds, and finds deleted rows gone):
// - transactions after the position were pruned (`deleteHistory` or
//   `store-tool history --prune-before` in any process), or the position is
//   later than the store's latest token (the file was replaced);
// - the store has no history tables (a read-only store of format 2);
// - a commit was noticed and no transaction was recorded after the
//   position: its writer records no history (`erase()`, a pruning, a
//   migration, the `sqlite3` shell, another library), so what it changed is
//   unknown;
// - a change of an entity the container does not know, or a history row
//   that cannot be read.
// `data_version` says that somebody committed, not how many did: a commit
// that records nothing, landing together with one that records a
// transaction, reads as that transaction alone. Every ModelStore writer
// records (saves, store-tool's edits, `erase()`'s gap, migrations change
// the schema, which the container checks on open); a writer outside
// ModelStore (the `sqlite3` shell) bumps no row version either, and is
// noticed only when it commits alone.
// After the fallback, the position is the store's latest token in that
// snapshot: the full refreshes read the store after it, so every
// transaction up to it is accounted for.

/// Where a container stands in the store's change history: every
/// transaction up to `token` is either this container's own (already handed
/// to the inboxes) or was read and delivered as a foreign change.
struct HistoryPosition {
    /// Nil while unknown: the store has no history, or it could not be read.
    private(set) var token: Int64?
    /// Tokens after `token` of this container's own commits. Tokens are
    /// contiguous (see HistoryReader.swift), so in the usual sequence (a
    /// local commit right after the position) this stays empty.
    private(set) var ownTokens: Set<Int64> = []

    /// Starts (or starts again) at `latest`: nothing after it is known yet.
    mutating func reset(to latest: Int64?) {
        token = latest
        ownTokens = []
    }

    /// A local commit recorded its transaction as `own`.
    mutating func recordOwn(_ own: Int64) {
        guard let position = token, own > position else { return }
        ownTokens.insert(own)
        advanceOverOwn()
    }

    /// Moves the position over own tokens that directly follow it.
    private mutating func advanceOverOwn() {
        while let position = token, ownTokens.remove(position + 1) != nil { token = position + 1 }
    }
}

/// A read of what foreign commits changed (see the file's comment).
struct ForeignChangeRead {
    /// The reading connection's data_version in the snapshot read; nil when
    /// it could not be read.
    var dataVersion: Int64?
    /// One change set per foreign transaction, oldest first; nil when the
    /// history cannot tell what changed (the caller falls back to a change
    /// of unknown extent).
    var changes: [ChangeSet]?
}

enum ForeignChanges {
    /// Reads, in one snapshot of `connection` (the coordinator's watcher),
    /// its data_version and the foreign transactions after `position`, and
    /// moves `position` to the latest token of the snapshot.
    ///
    /// - Complexity: O(transactions after the position, and the foreign
    ///   ones' changes); never O(rows of the store).
    static func read(connection: Connection, store: Store, position: inout HistoryPosition) -> ForeignChangeRead {
        var result = ForeignChangeRead()
        do {
            try connection.withReadSnapshot {
                // The snapshot's first statement: the version it reads is
                // the snapshot's, so that the history read next is exactly
                // the commits up to it.
                result.dataVersion = try connection.dataVersion()
                guard let latest = try ChangeHistory.latestTokenIfKept(connection: connection) else {
                    position.reset(to: nil)
                    return
                }
                // Whatever is read, every transaction up to the latest is
                // accounted for afterwards: delivered, or covered by the
                // full refreshes of the fallback. Own tokens are committed,
                // so none is after it.
                defer { position.reset(to: latest) }
                guard let after = position.token,
                    try ChangeHistory.expiry(after: after, latest: latest, connection: connection) == nil
                else { return }
                let own = position.ownTokens
                let transactions = try ChangeHistory.transactions(
                    in: HistoryRange(after: after), connection: connection, path: store.path
                ).filter { !own.contains($0.token) }
                // A commit was noticed, and none of it is in the history:
                // its writer records none.
                guard !transactions.isEmpty else { return }
                var changeSets: [ChangeSet] = []
                changeSets.reserveCapacity(transactions.count)
                for transaction in transactions {
                    guard let changes = changeSet(of: transaction, store: store) else { return }
                    changeSets.append(changes)
                }
                result.changes = changeSets
            }
        } catch {
            // Doubt counts as a change of unknown extent; the position is
            // unknown until a later read finds it again.
            result.changes = nil
            position.reset(to: nil)
        }
        return result
    }

    /// The change set of one recorded transaction, as a save of this process
    /// would have described it; nil when it names an entity the container
    /// does not have. A property name the entity does not have (a history
    /// written with another version of the schema) counts as a change of
    /// every property of the row.
    /// - Complexity: O(changes of the transaction × properties named).
    static func changeSet(of transaction: RecordedTransaction, store: Store) -> ChangeSet? {
        var changes = ChangeSet()
        changes.author = transaction.author
        var ordinals: [String: [String: Int]] = [:]
        for change in transaction.changes {
            guard let table = store.table(named: change.entity) else { return nil }
            switch change.kind {
            case .insert:
                changes.inserted.append(ChangeSet.Row(table: table, rowID: change.row))
            case .delete:
                changes.deleted.append(ChangeSet.Row(table: table, rowID: change.row))
            case .update:
                let byName =
                    ordinals[table.name]
                    ?? Dictionary(table.slots.indices.map { (table.slots[$0].name, $0) }, uniquingKeysWith: { first, _ in first })
                ordinals[table.name] = byName
                var properties = PropertyBitSet()
                for name in change.properties ?? [] {
                    guard let ordinal = byName[name] else {
                        properties = PropertyBitSet()
                        for ordinal in table.slots.indices { properties.insert(ordinal) }
                        break
                    }
                    properties.insert(ordinal)
                }
                changes.updated.append(ChangeSet.UpdatedRow(table: table, rowID: change.row, properties: properties))
            }
        }
        return changes
    }
}
