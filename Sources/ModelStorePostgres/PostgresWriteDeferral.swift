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

        var count: Int { rows.count }

        /// The values of array parameter `column` (the order of
        /// `PostgresBatchedWrite.arrayTypes`: the key first when there is one).
        func column(_ column: Int, rows range: Range<Int>) -> [SQLiteValue] {
            if keys.isEmpty { return rows[range].map { $0[column] } }
            if column == 0 { return keys[range].map { .integer($0) } }
            return rows[range].map { $0[column - 1] }
        }
    }

    /// The next key reserved for each table and the last, both included.
    private var keys: [String: (next: Int64, last: Int64)]
    private(set) var batches: [Batch] = []
    /// Where each batched statement's rows are in `batches`, by its text.
    private var batchIndex: [String: Int] = [:]
    /// The batch the last row went to.
    private var lastIndex: Int?
    /// Held-back UPDATEs sent that changed no row, not yet reported.
    var misses: [DeferredWriteMiss] = []

    /// A deferral whose tables' inserts take keys from `keys` (first and last, by table).
    init(keys: [String: ClosedRange<Int64>]) {
        self.keys = keys.mapValues { (next: $0.lowerBound, last: $0.upperBound) }
    }

    var isHolding: Bool { !batches.isEmpty }

    /// Holds one statement's row: true with the key it takes (an insert
    /// into a table with a key column), true without one (other writes),
    /// false when an insert finds its table's reserved keys used up (it
    /// then runs alone).
    mutating func hold(_ write: PostgresBatchedWrite, parameters: [SQLiteValue]) -> (held: Bool, key: Int64?) {
        var key: Int64?
        if case .insert(keyColumn: .some) = write.kind {
            guard let range = keys[write.table], range.next <= range.last else { return (false, nil) }
            key = range.next
        }
        // One array per parameter (and one for the key): a statement bound
        // otherwise is not the shape recognized, and runs alone.
        guard parameters.count + (key == nil ? 0 : 1) == write.arrayTypes.count else { return (false, nil) }
        if let key { keys[write.table]?.next = key + 1 }
        let index: Int
        // Rows of one statement come in a run: no hashing of its text for each.
        if let last = lastIndex, batches[last].write === write {
            index = last
        } else if let known = batchIndex[write.sql] {
            index = known
        } else {
            index = batches.count
            batchIndex[write.sql] = index
            batches.append(Batch(write: write))
        }
        lastIndex = index
        if let key { batches[index].keys.append(key) }
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
