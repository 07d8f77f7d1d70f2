import ModelStore

/// The writes a `PostgresForeignDatabase` holds back during one save's
/// transaction (see the library's ForeignDatabase+DeferredWrites.swift):
/// the keys reserved for each table's inserts, and the rows of each batched
/// statement in the order they came.
///
/// Invariants: a batch's columns all hold `count` values; batches are kept
/// in the order their statement first came, which is the order they are sent.
struct PostgresWriteDeferral {
    /// The rows held for one batched statement, column by column (the
    /// order of `PostgresBatchedWrite.arrayTypes`).
    struct Batch {
        let write: PostgresBatchedWrite
        var columns: [[SQLiteValue]]
        var count = 0

        init(write: PostgresBatchedWrite) {
            self.write = write
            columns = Array(repeating: [], count: write.arrayTypes.count)
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
        var column = 0
        if let key {
            batches[index].columns[0].append(.integer(key))
            column = 1
        }
        for value in parameters {
            batches[index].columns[column].append(value)
            column += 1
        }
        batches[index].count += 1
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
