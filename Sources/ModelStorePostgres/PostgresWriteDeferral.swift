import ModelStore

/// The writes a `PostgresForeignDatabase` holds back during one save's
/// transaction (see the library's ForeignDatabase+DeferredWrites.swift):
/// the keys reserved for each table's inserts, and the rows of each batched
/// statement in the order they came.
///
/// Invariants: a batch holds, for each row, one value per array parameter
/// of its statement (its reserved key first, for an insert that takes
/// one); batches are kept in the order their statement first came, which
/// is the order they are sent. Sending them so moves a row's writes past
/// the writes of later batches only, so a row is never held into a batch
/// while a later batch writes the same table, nor twice into one batch
/// when its statement may write one row twice (`rowIdentity`): such a row
/// is refused, and the database sends what it holds before running it.
struct PostgresWriteDeferral {
    /// The rows held for one batched statement, column by column: each
    /// row's values are appended to the arrays that are sent, so that the
    /// statement's bound values are read, never kept (a row kept whole
    /// would share the statement's array of bound values, and the next
    /// row's first bind would copy it).
    struct Batch {
        let write: PostgresBatchedWrite
        /// The rows' values by array parameter, in the order of
        /// `PostgresBatchedWrite.arrayTypes` (the reserved key first, for
        /// an insert with a key column): `columns[c][r]` is row r's value
        /// of parameter c. Every column holds `count` values.
        private(set) var columns: [[SQLiteValue]]
        private(set) var count = 0
        /// Where the keys come from: the table's reservation, nil when the
        /// write takes no key or none were reserved for its table.
        let reserved: ReservedKeys?
        /// The rows held, by the values of `write.rowIdentity` (empty for a
        /// write without one).
        var identities: Set<[SQLiteValue]> = []

        init(write: PostgresBatchedWrite, reserved: ReservedKeys?) {
            self.write = write
            self.reserved = reserved
            // An insert's rows are at most as many as the keys left for its
            // table (a class hierarchy's entities share them): room for
            // them at once, not by doubling. Each column reserves its own,
            // since a shared empty buffer would be copied at twice its
            // capacity on a column's first append.
            let expected = reserved.map { Int(clamping: max(0, $0.last - $0.next + 1)) } ?? 0
            columns = (0..<write.arrayTypes.count).map { _ in
                var column: [SQLiteValue] = []
                column.reserveCapacity(expected)
                return column
            }
        }

        /// Holds one row: its reserved key, when it takes one, then its
        /// parameters, which with the key are as many as the columns.
        mutating func append(key: Int64?, parameters: [SQLiteValue]) {
            var column = 0
            if let key {
                columns[0].append(.integer(key))
                column = 1
            }
            for value in parameters {
                columns[column].append(value)
                column += 1
            }
            count += 1
        }

        /// The values of array parameter `column` for `rows`.
        func column(_ column: Int, rows range: Range<Int>) -> ArraySlice<SQLiteValue> {
            columns[column][range]
        }
    }

    /// The keys reserved for one table, shared by the batches that insert
    /// into it (the entities of a class hierarchy share their table): a
    /// class, so that holding a row looks no table name up.
    final class ReservedKeys {
        var next: Int64
        let last: Int64

        init(_ range: ClosedRange<Int64>) {
            next = range.lowerBound
            last = range.upperBound
        }
    }

    /// The keys reserved for each table.
    private let keys: [String: ReservedKeys]
    private(set) var batches: [Batch] = []
    /// Where each batched statement's rows are in `batches`, by its text.
    private var batchIndex: [String: Int] = [:]
    /// The batch the last row went to.
    private var lastIndex: Int?
    /// Held-back UPDATEs sent that changed no row, not yet reported.
    var misses: [DeferredWriteMiss] = []

    /// A deferral whose tables' inserts take keys from `keys` (first and last, by table).
    init(keys: [String: ClosedRange<Int64>]) {
        self.keys = keys.mapValues(ReservedKeys.init)
    }

    var isHolding: Bool { !batches.isEmpty }

    /// Holds one statement's row: true with the key it takes (an insert
    /// into a table with a key column), true without one (other writes),
    /// false when an insert finds its table's reserved keys used up (it
    /// then runs alone).
    mutating func hold(_ write: PostgresBatchedWrite, parameters: [SQLiteValue]) -> (held: Bool, key: Int64?) {
        let takesKey = if case .insert(keyColumn: .some) = write.kind { true } else { false }
        // One array per parameter (and one for the key): a statement bound
        // otherwise is not the shape recognized, and runs alone.
        guard parameters.count + (takesKey ? 1 : 0) == write.arrayTypes.count else { return (false, nil) }
        let index: Int
        // Rows of one statement come in a run: no hashing of its text for each.
        if let last = lastIndex, batches[last].write === write {
            index = last
        } else if let known = batchIndex[write.sql] {
            // Sent before the later batches: not when one of them writes the
            // same table, whose writes this row would then overtake.
            if batches[(known + 1)...].contains(where: { $0.write.table == write.table }) { return (false, nil) }
            index = known
        } else {
            // No batch for an insert whose table has no key left: it would
            // be sent empty.
            if takesKey {
                guard let reserved = keys[write.table], reserved.next <= reserved.last else { return (false, nil) }
            }
            index = batches.count
            batchIndex[write.sql] = index
            batches.append(Batch(write: write, reserved: takesKey ? keys[write.table] : nil))
        }
        if let identity = write.rowIdentity {
            // One statement writes each of its rows once.
            guard batches[index].identities.insert(identity.map { parameters[$0] }).inserted else { return (false, nil) }
        }
        lastIndex = index
        var key: Int64?
        if takesKey {
            guard let reserved = batches[index].reserved, reserved.next <= reserved.last else { return (false, nil) }
            key = reserved.next
            reserved.next += 1
        }
        batches[index].append(key: key, parameters: parameters)
        return (true, key)
    }

    /// The batches held, in order; none are held afterwards.
    mutating func takeBatches() -> [Batch] {
        defer {
            batches = []
            batchIndex = [:]
            lastIndex = nil
        }
        return batches
    }
}
