import ModelStore

/// The writes a `PostgresForeignDatabase` holds back during one save's
/// transaction (see the library's ForeignDatabase+DeferredWrites.swift):
/// the keys reserved for each table's inserts, and the rows of each batched
/// statement in the order they came.
///
/// Invariants: a batch's rows each hold its statement's parameters, and
/// its keys are empty or one per row; batches are kept in the order their
/// statement first came, which is the order they are sent.
struct PostgresWriteDeferral {
    /// The rows held for one batched statement, as they came: a row's
    /// parameters are kept in the array they arrived in, one append per
    /// row, and read column by column when sent.
    struct Batch {
        let write: PostgresBatchedWrite
        var rows: [[SQLiteValue]] = []
        /// The reserved key of each row, for an insert with a key column.
        var keys: [Int64] = []
        /// Where the keys come from: the table's reservation, nil when the
        /// write takes no key or none were reserved for its table.
        let reserved: ReservedKeys?

        var count: Int { rows.count }

        /// The values of array parameter `column` (the order of
        /// `PostgresBatchedWrite.arrayTypes`: the key first when there is one).
        func column(_ column: Int, rows range: Range<Int>) -> Column {
            Column(rows: rows[range], keys: keys.isEmpty ? nil : keys[range], column: column)
        }
    }

    /// One array parameter's values, read from the held rows as they are
    /// sent (no array of its own).
    struct Column: RandomAccessCollection {
        let rows: ArraySlice<[SQLiteValue]>
        let keys: ArraySlice<Int64>?
        let column: Int

        var startIndex: Int { rows.startIndex }
        var endIndex: Int { rows.endIndex }

        subscript(position: Int) -> SQLiteValue {
            guard let keys else { return rows[position][column] }
            return column == 0 ? .integer(keys[position]) : rows[position][column - 1]
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
        lastIndex = index
        var key: Int64?
        if takesKey {
            guard let reserved = batches[index].reserved, reserved.next <= reserved.last else { return (false, nil) }
            key = reserved.next
            reserved.next += 1
            batches[index].keys.append(reserved.next - 1)
        }
        batches[index].rows.append(parameters)
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
