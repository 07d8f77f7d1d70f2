import Foundation

/// What deleting a set of objects does, worked out before a save writes
/// anything: every row to delete (the objects deleted, and those reached
/// through cascade rules, at any depth), the foreign-key columns to clear,
/// and the objects that deny the delete.
///
/// The rules are applied with set-based queries, one per relationship and
/// level of the cascade, so deleting objects whose relationships were never
/// loaded costs no query per object. Where an object's relationship is
/// loaded, its in-memory value (with unsaved changes) counts instead.
package struct DeletePlan {
    /// Rows to delete, by table.
    private(set) var keys: [ObjectIdentifier: Set<Int64>] = [:]
    private(set) var tables: [ObjectIdentifier: EntityTable] = [:]
    /// Columns to set to NULL where they hold a deleted row's key: the
    /// links of the objects that stay.
    package private(set) var nullifications: [Nullification] = []
    /// Objects inserted in this save that a cascade reached: they are
    /// dropped instead of written.
    private(set) var discardedInserts: [any PersistentModel] = []
    /// The holders whose `.deny` rules block the delete, with the objects
    /// that block it. A plan with denials must not be written.
    package private(set) var denials: [Denial] = []
    /// New objects that a `.deny` relationship of a deleted object holds:
    /// each blocks the delete unless the plan drops it too (a cascade reaches
    /// it), which is known only once the plan is complete.
    private(set) var newBlockers: [NewBlocker] = []
    /// Rows that new objects dropped from the save lead to through cascade
    /// rules, found in memory (the planner's queries cannot see new
    /// objects); the planner takes them as it goes and follows their rules.
    private var rowsFoundInMemory: [(table: EntityTable, key: Int64)] = []

    /// A `.deny` relationship of a deleted object that still holds objects
    /// that are not deleted.
    package struct Denial {
        package let table: EntityTable
        package let holder: Int64
        package let relationship: String
        package let destination: EntityTable
        /// The keys of the blocking objects, in `destination`, ascending.
        package let blockers: [Int64]

        /// The error a save throws for it.
        package var error: ModelStoreError {
            .deleteDenied(
                object: "\(table.name):\(holder)", relationship: relationship,
                blockers: blockers.map { "\(destination.name):\($0)" })
        }
    }

    struct NewBlocker {
        /// The deleted holder, as `Entity:key`.
        let holder: String
        let relationship: String
        let model: any PersistentModel

        /// The error a save throws for it.
        var error: ModelStoreError {
            .deleteDenied(
                object: holder, relationship: relationship, blockers: ["new \(type(of: model).entityName)"])
        }
    }

    package struct Nullification {
        package let table: EntityTable
        package let column: String
        package let orderColumn: String?
        /// The table whose deleted keys the column may hold.
        package let destination: EntityTable
    }

    package var isEmpty: Bool { keys.isEmpty && discardedInserts.isEmpty }

    package func contains(_ table: EntityTable, _ key: Int64) -> Bool {
        keys[ObjectIdentifier(table)]?.contains(key) ?? false
    }

    /// False when `model` is being deleted by this plan: a save writes the
    /// pending objects this is true for. Without deletes (most saves) it is
    /// one test.
    @inline(__always)
    func writes(_ model: any PersistentModel) -> Bool {
        isEmpty || !contains(model)
    }

    /// True when `model` is being deleted by this plan.
    func contains(_ model: any PersistentModel) -> Bool {
        let state = model._$modelState
        guard let table = state.table, let key = state.rowID else {
            return discardedInserts.contains { $0 === model }
        }
        return containsRow(of: table, key)
    }

    /// True when the row `key` of `table`'s SQL table is being deleted,
    /// whichever entity of its class hierarchy the plan has it under: a
    /// cascade through a relationship to a superclass plans the rows of a
    /// subclass's objects under the superclass, and a delete of a subclass's
    /// object empties relationships to its superclass.
    func containsRow(of table: EntityTable, _ key: Int64) -> Bool {
        if contains(table, key) { return true }
        guard table.hierarchy != nil else { return false }
        return keys.contains { id, keys in
            tables[id]?.registryKey == table.registryKey && keys.contains(key)
        }
    }

    /// Adds the keys not yet in the plan; returns them.
    mutating func add(_ newKeys: some Sequence<Int64>, of table: EntityTable) -> [Int64] {
        let id = ObjectIdentifier(table)
        tables[id] = table
        var added: [Int64] = []
        for key in newKeys where keys[id, default: []].insert(key).inserted { added.append(key) }
        return added
    }

    mutating func nullify(_ nullification: Nullification) {
        let isKnown = nullifications.contains {
            $0.table === nullification.table && $0.column == nullification.column
                && $0.destination === nullification.destination
        }
        if !isKnown { nullifications.append(nullification) }
    }

    mutating func deny(_ denial: Denial) {
        denials.append(denial)
    }

    mutating func noteNewBlocker(_ blocker: NewBlocker) {
        newBlockers.append(blocker)
    }

    var hasRowsFoundInMemory: Bool { !rowsFoundInMemory.isEmpty }

    mutating func addFoundInMemory(_ key: Int64, of table: EntityTable) {
        rowsFoundInMemory.append((table, key))
    }

    /// The rows found in memory since the last call.
    mutating func takeRowsFoundInMemory() -> [(table: EntityTable, key: Int64)] {
        defer { rowsFoundInMemory = [] }
        return rowsFoundInMemory
    }

    mutating func discard(_ model: any PersistentModel) {
        if !discardedInserts.contains(where: { $0 === model }) { discardedInserts.append(model) }
    }

    /// The tables with rows to delete and their keys.
    package var rowsByTable: [(table: EntityTable, keys: Set<Int64>)] {
        keys.compactMap { id, keys in tables[id].map { ($0, keys) } }
    }
}

/// Binds a set of row keys as one parameter, read in SQL with
/// `IN (SELECT value FROM json_each(?))`: one statement whatever the count.
package func jsonKeys(_ keys: some Collection<Int64>) -> String {
    // Digits written straight into one buffer sized for the longest keys
    // (20 characters and a comma each), each key's from its last digit back,
    // two digits a division: a save's history and its link and delete
    // statements pass every changed row's key through here, where a string
    // per key and a join, or an append per digit, cost more than the
    // statements.
    let pairs = decimalDigitPairs
    var bytes = [UInt8](repeating: 0, count: 2 + keys.count * 21)
    bytes[0] = UInt8(ascii: "[")
    var end = 1
    for key in keys {
        if end > 1 {
            bytes[end] = UInt8(ascii: ",")
            end += 1
        }
        if key < 0 {
            bytes[end] = UInt8(ascii: "-")
            end += 1
        }
        var magnitude = key.magnitude
        end += decimalDigitCount(magnitude)
        var position = end
        while magnitude >= 100 {
            let pair = Int(truncatingIfNeeded: magnitude % 100) &* 2
            magnitude /= 100
            position -= 2
            bytes[position] = pairs[pair]
            bytes[position + 1] = pairs[pair + 1]
        }
        if magnitude >= 10 {
            let pair = Int(truncatingIfNeeded: magnitude) &* 2
            bytes[position - 2] = pairs[pair]
            bytes[position - 1] = pairs[pair + 1]
        } else {
            bytes[position - 1] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: magnitude)
        }
    }
    bytes[end] = UInt8(ascii: "]")
    return String(decoding: bytes[...end], as: UTF8.self)
}

/// "00", "01", … "99", as 200 ASCII digits: `jsonKeys` writes two digits
/// for each division.
private let decimalDigitPairs: [UInt8] = (0..<100).flatMap {
    [UInt8(ascii: "0") + UInt8($0 / 10), UInt8(ascii: "0") + UInt8($0 % 10)]
}

/// How many decimal digits `value` has (1 for 0; at most 20).
@inline(__always)
private func decimalDigitCount(_ value: UInt64) -> Int {
    var count = 1
    // 10^19 is the largest power of ten a UInt64 holds.
    var power: UInt64 = 10
    while value >= power {
        count += 1
        if count == 20 { break }
        power &*= 10
    }
    return count
}
