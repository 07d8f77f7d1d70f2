import Foundation
import ModelStore

// Unique values of the dynamic layer: a `.unique` attribute and a `#Unique`
// list are both rules over a tuple of attributes. An insert through the
// entity's SQL would turn a conflict into an upsert of the other row (as
// `.unique` does for the typed API), so the dynamic layer finds conflicts
// first and refuses them, set-based: one query per batch of tuples.

/// One uniqueness rule of an entity: a `.unique` attribute, or the
/// attributes of a `#Unique` list, whose values together are unique.
struct UniqueRule {
    let attributes: [Schema.Attribute]
    /// True for a `#Unique` list (even of one attribute).
    let isCompound: Bool

    var names: [String] { attributes.map(\.name) }

    /// `name` or `(name, startDate)`, for messages.
    var label: String { isCompound ? "(" + names.joined(separator: ", ") + ")" : names.joined() }
}

/// A value as SQLite compares it in a UNIQUE index: by its stored form, text
/// byte by byte (Swift's `String` equality would join "é" and "e\u{301}",
/// which SQLite keeps apart).
enum StoredKey: Hashable {
    case null
    case integer(Int64)
    case real(Double)
    case text([UInt8])
    case blob(Data)

    init(_ value: DynamicValue) {
        switch value.storedValue {
        case .null: self = .null
        case .integer(let value): self = .integer(value)
        case .real(let value): self = .real(value)
        case .text(let text): self = .text(Array(text.utf8))
        case .blob(let data): self = .blob(data)
        }
    }
}

extension Schema.Entity {
    /// The entity's uniqueness rules: each `.unique` attribute, then each `#Unique` list.
    var uniqueRules: [UniqueRule] {
        let single = attributes.filter(\.isUnique).map { UniqueRule(attributes: [$0], isCompound: false) }
        let compound = uniqueConstraints.compactMap { names -> UniqueRule? in
            let found = names.compactMap { attribute(named: $0) }
            return found.count == names.count ? UniqueRule(attributes: found, isCompound: true) : nil
        }
        return single + compound
    }
}

extension DynamicStore {
    /// The rows of `table` that hold the same values as the tuples, by tuple
    /// index: a tuple with a nil value never conflicts (a UNIQUE index lets
    /// NULLs repeat), nor does the row `excluding[i]` (the object itself).
    /// One query per batch of tuples.
    /// - Throws: `SQLiteError`; `ModelStoreError.invalidValue` for a stored
    ///   value that does not read as its type.
    func storedDuplicates(
        of tuples: [[DynamicValue]], rule: UniqueRule, table: EntityTable, excluding: [Int64?]
    ) throws -> [Int: Int64] {
        var indexesByKey: [[StoredKey]: [Int]] = [:]
        var candidates: [Int] = []
        for (index, tuple) in tuples.enumerated() where !tuple.contains(where: \.isNull) {
            let key = tuple.map(StoredKey.init)
            if indexesByKey[key] == nil { candidates.append(index) }
            indexesByKey[key, default: []].append(index)
        }
        let width = rule.attributes.count
        let columns = rule.names.map(quoteIdentifier).joined(separator: ", ")
        let batchSize = max(1, 900 / width)
        var result: [Int: Int64] = [:]
        var start = 0
        while start < candidates.count {
            let batch = candidates[start..<min(start + batchSize, candidates.count)]
            start += batchSize
            let placeholders = Array(repeating: "(" + Array(repeating: "?", count: width).joined(separator: ", ") + ")", count: batch.count)
            let condition = width == 1
                ? "\(columns) IN (\(Array(repeating: "?", count: batch.count).joined(separator: ", ")))"
                : "(\(columns)) IN (VALUES \(placeholders.joined(separator: ", ")))"
            let statement = try connection.prepare(
                "SELECT \(columns), \(quoteIdentifier(primaryKeyColumn)) FROM \(quoteIdentifier(table.tableName)) WHERE \(condition)")
            var parameter: Int32 = 1
            for index in batch {
                for value in tuples[index] {
                    try value.bind(to: statement, at: parameter)
                    parameter += 1
                }
            }
            while try statement.step() {
                let row = statement.int64(at: Int32(width))
                var key: [StoredKey] = []
                for (column, attribute) in rule.attributes.enumerated() {
                    do {
                        key.append(StoredKey(try DynamicValue.decode(attribute, from: statement, column: Int32(column))))
                    } catch {
                        throw ModelStoreError.invalidValue(
                            entity: table.name, property: attribute.name, row: row, reason: error.reason, path: path)
                    }
                }
                for index in indexesByKey[key] ?? [] where excluding[index] != row && result[index] == nil {
                    result[index] = row
                }
            }
        }
        return result
    }

    /// Refuses an insert or edit whose unique values another object holds:
    /// `values` are the new values, `current` the object before the edit
    /// (nil for an insert), whose other values complete a `#Unique` tuple.
    /// - Throws: `DynamicStoreError.validationFailed` naming the rule and the
    ///   other object; `SQLiteError`.
    func checkUnique(_ values: [String: DynamicValue], current: DynamicObject?, table: EntityTable, key: Int64?) throws {
        var problems: [StoreProblem] = []
        for rule in table.entity.uniqueRules where rule.names.contains(where: { values[$0] != nil }) {
            let tuple = rule.names.map { values[$0] ?? current?[$0] ?? .null }
            guard let other = try storedDuplicates(of: [tuple], rule: rule, table: table, excluding: [key])[0] else { continue }
            problems.append(
                StoreProblem(
                    .duplicateUniqueValue, entity: table.name, object: key.map { ObjectID(entity: table.name, key: $0) },
                    property: rule.label,
                    message: rule.isCompound
                        ? "\(table.name).\(rule.label) are unique together (#Unique), and \(table.name):\(other) has the same values"
                        : "\(table.name).\(rule.label) is unique, and \(table.name):\(other) has the same value"))
        }
        guard problems.isEmpty else { throw DynamicStoreError.validationFailed(problems) }
    }
}
