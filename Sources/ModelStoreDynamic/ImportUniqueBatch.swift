import Foundation
import ModelStore

/// The values of one uniqueness rule seen in an import file: repeats within
/// the file are found at once (the values seen are in the scratch table
/// `unique_values`, not in memory), values the store holds one batch at a
/// time.
///
/// - Complexity: `add` is one insert into an indexed table, O(log n);
///   `flush` one query for at most `lookupSize` values.
struct UniqueBatch {
    /// The values looked up in the store with one query.
    static let lookupSize = 500
    let rule: UniqueRule
    let table: EntityTable
    /// The rule's name in the scratch table (`Entity#index`).
    let name: String
    private(set) var tuples: [[DynamicValue]] = []
    private var owners: [(id: ObjectID, line: Int?)] = []

    init(rule: UniqueRule, table: EntityTable, name: String) {
        self.rule = rule
        self.table = table
        self.name = name
    }

    /// The problem of `id`'s values, which `other` holds too.
    private func duplicate(_ id: ObjectID, line: Int?, other: String) -> StoreProblem {
        StoreProblem(
            .duplicateUniqueValue, entity: table.name, object: id, property: rule.label, line: line,
            message: "\(id).\(rule.label)"
                + (rule.isCompound
                    ? ": unique together (#Unique), but \(other) has the same values"
                    : ": unique, but \(other) has the same value"))
    }

    /// Adds one record's values; a problem when another record of the file
    /// has the same ones. Tuples with a nil value are never duplicates.
    /// - Throws: `SQLiteError` from the scratch table.
    mutating func add(_ tuple: [DynamicValue], id: ObjectID, line: Int?, scratch: ImportScratch) throws -> StoreProblem? {
        guard !tuple.contains(where: \.isNull) else { return nil }
        if let encoded = StoredKey.encoding(tuple.map(StoredKey.init)) {
            let values = ImportScratch.table("unique_values")
            try scratch.run(
                "INSERT OR IGNORE INTO \(values) (rule, value, owner_entity, owner_key) VALUES (?, ?, ?, ?)",
                [.text(name), .blob(encoded), .text(id.entity), .integer(id.key)])
            if scratch.connection.changes == 0 {
                var first: ObjectID?
                try scratch.forEachRow("SELECT owner_entity, owner_key FROM \(values) WHERE rule = ? AND value = ?", [.text(name), .blob(encoded)]) {
                    first = ObjectID(entity: $0.string(at: 0), key: $0.int64(at: 1))
                }
                if let first { return duplicate(id, line: line, other: "\(first) in the file") }
            }
        }
        tuples.append(tuple)
        owners.append((id, line))
        return nil
    }

    /// A record whose values an object of the store holds: a problem,
    /// or for an upsert the object the record updates.
    struct StoredMatch {
        let record: ObjectID
        let line: Int?
        let row: Int64
        let rule: UniqueRule
        let problem: StoreProblem
    }

    /// Looks the batch up in the store (one query) and empties it.
    mutating func flush(_ store: DynamicStore) throws -> [StoredMatch] {
        defer {
            tuples = []
            owners = []
        }
        guard !tuples.isEmpty else { return [] }
        let conflicts = try store.storedDuplicates(
            of: tuples, rule: rule, table: table, excluding: Array(repeating: nil, count: tuples.count))
        return conflicts.keys.sorted().compactMap { index in
            guard let row = conflicts[index] else { return nil }
            let owner = owners[index]
            return StoredMatch(
                record: owner.id, line: owner.line, row: row, rule: rule,
                problem: duplicate(owner.id, line: owner.line, other: "\(table.name):\(row) of the store"))
        }
    }
}

extension StoredKey {
    /// The bytes that stand for a tuple of values in the scratch table: two
    /// tuples have the same bytes exactly when they are equal as `StoredKey`
    /// lists (each value tagged with its kind, texts and blobs with their
    /// length, -0.0 as 0.0). Nil for a tuple holding NaN, which equals
    /// nothing, so that it is never a duplicate.
    static func encoding(_ keys: [StoredKey]) -> Data? {
        var bytes = Data()
        func append(_ number: UInt64) { withUnsafeBytes(of: number.bigEndian) { bytes.append(contentsOf: $0) } }
        for key in keys {
            switch key {
            case .null: bytes.append(0)
            case .integer(let value):
                bytes.append(1)
                append(UInt64(bitPattern: value))
            case .real(let value):
                guard !value.isNaN else { return nil }
                bytes.append(2)
                append((value == 0 ? 0.0 : value).bitPattern)
            case .text(let text):
                bytes.append(3)
                append(UInt64(text.count))
                bytes.append(contentsOf: text)
            case .blob(let data):
                bytes.append(4)
                append(UInt64(data.count))
                bytes.append(data)
            }
        }
        return bytes
    }
}
