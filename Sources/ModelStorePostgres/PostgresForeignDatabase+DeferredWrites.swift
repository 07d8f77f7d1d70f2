import ModelStore
import PostgresNIO

/// Deferred writes on PostgreSQL: a save's INSERTs, UPDATEs by key and
/// join-table upserts are held back and sent as one statement per shape and table
/// (`PostgresBatchedWrite`), so that a save of N objects costs a few round
/// trips instead of N. The library's ForeignDatabase+DeferredWrites.swift
/// states the contract; `PostgresWriteDeferral` holds the rows.
extension PostgresForeignDatabase {
    /// The most bytes of values one batched statement carries (as the
    /// rows' text, blobs and numbers add up): bounds the server's memory
    /// for its array parameters, far below PostgreSQL's 1 GB per value.
    /// Rows are not counted otherwise: the server joins an UPDATE's rows
    /// with the table once per statement, a scan of the table each when it
    /// hashes it, so fewer statements are faster.
    static let bytesPerStatement = 64 << 20

    /// Starts holding back writes for the open transaction, with the keys
    /// of `insertCounts` reserved: each table's identity sequence moved
    /// past them in one statement for every table. Outside a transaction
    /// nothing is held back.
    ///
    /// The reservation reads the sequence and moves it in one expression;
    /// no other session draws keys between the two because every writer of
    /// the store holds the store's writer lock (`BEGIN IMMEDIATE`), and a
    /// key drawn by anything else would fail the insert as a duplicate
    /// key, never overwrite a row.
    /// - Throws: `SQLiteError` when the keys cannot be reserved.
    package func deferWrites(insertCounts: [String: Int]) throws(SQLiteError) {
        guard !isAutocommit else { return }
        try sendHeldWrites()
        let counted = insertCounts.filter { $0.value > 0 && translator.keyColumns[$0.key] != nil }
            .sorted { $0.key < $1.key }
        var keys: [String: ClosedRange<Int64>] = [:]
        if !counted.isEmpty {
            let sql =
                "SELECT r.t, setval(CAST(pg_get_serial_sequence(quote_ident(r.t), r.k) AS regclass), "
                + "nextval(CAST(pg_get_serial_sequence(quote_ident(r.t), r.k) AS regclass)) + r.n - 1) "
                + "FROM unnest($1::text[], $2::text[], $3::bigint[]) AS r(t, k, n) "
                + "WHERE pg_get_serial_sequence(quote_ident(r.t), r.k) IS NOT NULL"
            var binds = PostgresBindings(capacity: 3)
            do {
                binds.append(UntypedBytes(bytes: try PostgresArrayText.array(counted.map { SQLiteValue.text($0.key) })))
                binds.append(
                    UntypedBytes(bytes: try PostgresArrayText.array(counted.map { SQLiteValue.text(translator.keyColumns[$0.key] ?? "") })))
                binds.append(UntypedBytes(bytes: try PostgresArrayText.array(counted.map { SQLiteValue.integer(Int64($0.value)) })))
                statementsSent += 1
                for row in try executor().execute(sql, binds).rows {
                    let (table, last) = try row.decode((String, Int64).self)
                    guard let count = insertCounts[table] else { continue }
                    keys[table] = (last - Int64(count) + 1)...last
                }
            } catch {
                throw Self.sqliteError(error, sql: sql)
            }
        }
        deferral = PostgresWriteDeferral(keys: keys)
    }

    /// Sends every write held back, and returns (and forgets) the held-back
    /// UPDATEs that changed no row.
    /// - Throws: `DeferredWriteFailure` naming the table of the write that failed.
    package func sendDeferredWrites() throws(DeferredWriteFailure) -> [DeferredWriteMiss] {
        guard deferral != nil else { return [] }
        try sendHeld()
        let misses = deferral?.misses ?? []
        deferral?.misses = []
        return misses
    }

    /// Holds `write`'s row back: nil when it must run alone, else the key
    /// it took (nil inside for a write that takes none).
    func holdBack(_ write: PostgresBatchedWrite, parameters: [SQLiteValue]) -> Int64?? {
        guard deferral != nil else { return nil }
        guard let (held, key) = deferral?.hold(write, parameters: parameters), held else { return nil }
        return .some(key)
    }

    /// Sends the writes held back, before the next statement runs.
    /// - Throws: `SQLiteError` with the failed write's table in its message.
    func sendHeldWrites() throws(SQLiteError) {
        guard deferral?.isHolding == true else { return }
        do {
            try sendHeld()
        } catch {
            throw SQLiteError(
                extendedCode: error.error.extendedCode,
                message: "writing the rows held back for \(quoteIdentifier(error.table)) before the next statement: \(error.error.message)",
                sql: error.error.sql, origin: error.error.origin)
        }
    }

    /// Sends what is held before COMMIT; an UPDATE held back that changed
    /// no row and was not reported fails the commit, as a conflict must
    /// never be committed silently.
    /// - Throws: `SQLiteError` (busy, for such an UPDATE).
    func sendHeldWritesBeforeCommit() throws(SQLiteError) {
        try sendHeldWrites()
        if let miss = deferral?.misses.first {
            throw SQLiteError(
                extendedCode: SQLiteError.busy,
                message: "an UPDATE of row \(miss.key) of \(quoteIdentifier(miss.table)) changed no row (its version moved); nothing was committed",
                sql: "COMMIT TRANSACTION")
        }
    }

    /// Sends each batch held, in order, in statements of at most
    /// `rowsPerStatement` rows and about `bytesPerStatement` bytes.
    private func sendHeld() throws(DeferredWriteFailure) {
        guard let batches = deferral?.takeBatches() else { return }
        for batch in batches {
            var start = 0
            while start < batch.count {
                var end = start
                var bytes = 0
                while end < batch.count, end - start < rowsPerStatement, end == start || bytes < Self.bytesPerStatement {
                    for column in batch.columns { bytes += column[end].byteCount }
                    end += 1
                }
                try send(batch, rows: start..<end)
                start = end
            }
        }
    }

    /// Sends `rows` of `batch` in one statement. When it fails, the
    /// statement is undone (a savepoint) and the rows are sent one by one,
    /// so that the failure names the row that caused it, as a save that
    /// sends each row alone does. When an UPDATE changes fewer rows than it
    /// was given, it is undone and sent again returning the keys it wrote.
    private func send(_ batch: PostgresWriteDeferral.Batch, rows: Range<Int>) throws(DeferredWriteFailure) {
        guard rows.count > 1 else { return try sendAlone(batch, row: rows.lowerBound) }
        struct RowsMissed: Error {}
        var failure: SQLiteError
        do {
            // A failed statement ends a PostgreSQL transaction; inside the
            // savepoint, the transaction goes on to find the row.
            try executor().savepoint {
                if try !run(batch, rows: rows, returningKeys: false) { throw RowsMissed() }
            }
            return
        } catch is RowsMissed {
            do {
                try executor().savepoint { _ = try run(batch, rows: rows, returningKeys: true) }
                return
            } catch {
                failure = Self.sqliteError(error, sql: batch.write.sql)
            }
        } catch {
            failure = Self.sqliteError(error, sql: batch.write.sql)
        }
        for row in rows { try sendAlone(batch, row: row) }
        // Each row alone went in: the rows conflict with one another only.
        throw DeferredWriteFailure(table: batch.write.table, key: nil, error: failure)
    }

    private func sendAlone(_ batch: PostgresWriteDeferral.Batch, row: Int) throws(DeferredWriteFailure) {
        var key: Int64?
        switch batch.write.kind {
        case .update(let keyParameter), .plainUpdate(let keyParameter):
            if case .integer(let rowKey) = batch.columns[keyParameter][row] { key = rowKey }
        case .insert, .upsert:
            break
        }
        do {
            if try !run(batch, rows: row..<row + 1, returningKeys: false), let key {
                deferral?.misses.append(DeferredWriteMiss(table: batch.write.table, key: key))
            }
        } catch {
            // An insert's key is its reserved one, which no object holds
            // until the save succeeds: the failure names the new object's
            // entity only, as a failed INSERT sent alone does.
            throw DeferredWriteFailure(table: batch.write.table, key: key, error: Self.sqliteError(error, sql: batch.write.sql))
        }
    }

    /// Runs `batch`'s statement for `rows`: false when an UPDATE changed
    /// fewer rows than it was given. With `returningKeys`, the UPDATE
    /// returns the keys it wrote, and the rows it did not write are noted
    /// as misses.
    /// - Throws: the executor's error, or `SQLiteError` for text holding NUL.
    private func run(_ batch: PostgresWriteDeferral.Batch, rows: Range<Int>, returningKeys: Bool) throws -> Bool {
        let write = batch.write
        var binds = PostgresBindings(capacity: write.arrayTypes.count)
        do {
            for (index, element) in write.binaryElements.enumerated() {
                let column = batch.column(index, rows: rows)
                if let element, let binary = try PostgresBinaryArray.parameter(column, as: element) {
                    binds.append(binary)
                } else {
                    binds.append(UntypedBytes(bytes: try PostgresArrayText.array(column)))
                }
            }
        } catch {
            throw SQLiteError(extendedCode: SQLiteError.error, message: Self.nulMessage, sql: write.sql)
        }
        statementsSent += 1
        let sql = returningKeys ? (write.returningSQL ?? write.sql) : write.sql
        let result = try executor().execute(sql, binds)
        guard case .update(let keyParameter) = write.kind else { return true }
        guard returningKeys else { return result.affectedRows == rows.count }
        var written = Set<Int64>()
        for row in result.rows { written.insert(try row.decode(Int64.self)) }
        for case .integer(let key) in batch.column(keyParameter, rows: rows) where !written.contains(key) {
            deferral?.misses.append(DeferredWriteMiss(table: write.table, key: key))
        }
        return true
    }
}

extension SQLiteValue {
    /// About the bytes the value takes in a batched statement.
    fileprivate var byteCount: Int {
        switch self {
        case .null: 4
        case .integer, .real: 12
        case .text(let text): 4 + text.utf8.count
        case .blob(let data): 4 + data.count
        }
    }
}
