import Foundation
import ModelStore

// The write pass of an import: each record is read once more (the check
// pass read it first), its row inserted, and its relationships kept in
// compact form (`ImportLinkLog`: indexes and keys, never the records), so
// that linking runs from memory after every row exists. Memory grows with
// the keys and links of the file, not with its records' values.

/// The relationships of the inserted records, by new key, in file order:
/// what the linking passes need, and nothing else.
struct ImportLinkLog {
    /// One relationship of one inserted record.
    struct Link {
        /// The record's entity table, as an index into `tables`.
        let table: Int32
        /// The relationship, as an index into its entity's relationships.
        let relationship: Int32
        /// The record's new key.
        let holder: Int64
        /// For a to-one, its target; for a to-many, its members' range in `members`.
        let target: ObjectID?
        let members: Range<Int>
        /// The record updates an object of the store (an upsert), whose
        /// links before are the ones replaced.
        let isUpdate: Bool
    }

    private(set) var tables: [EntityTable] = []
    private var tableIndexes: [String: Int32] = [:]
    private(set) var toOne: [Link] = []
    private(set) var toMany: [Link] = []
    /// The members of every to-many, one after another (exported keys).
    private(set) var members: [ObjectID] = []
    /// The writes linking takes: one per record with to-ones, one per to-many.
    private(set) var steps = 0

    /// Keeps a record's links, as `importLinks` read them.
    mutating func add(_ links: ImportLinks, table: EntityTable, holder: Int64, isUpdate: Bool) {
        guard !links.toOne.isEmpty || !links.toMany.isEmpty else { return }
        let tableIndex = index(of: table)
        steps += (links.toOne.isEmpty ? 0 : 1) + links.toMany.count
        for (relationship, target) in links.toOne {
            toOne.append(
                Link(table: tableIndex, relationship: position(of: relationship, in: table), holder: holder, target: target, members: 0..<0,
                    isUpdate: isUpdate))
        }
        for (relationship, targets) in links.toMany {
            let start = members.count
            members.append(contentsOf: targets)
            toMany.append(
                Link(
                    table: tableIndex, relationship: position(of: relationship, in: table), holder: holder, target: nil,
                    members: start..<members.count, isUpdate: isUpdate))
        }
    }

    /// The relationship a link names.
    func relationship(of link: Link) -> Schema.Relationship { tables[Int(link.table)].entity.relationships[Int(link.relationship)] }

    private mutating func index(of table: EntityTable) -> Int32 {
        if let index = tableIndexes[table.name] { return index }
        let index = Int32(tables.count)
        tables.append(table)
        tableIndexes[table.name] = index
        return index
    }

    private func position(of relationship: Schema.Relationship, in table: EntityTable) -> Int32 {
        Int32(table.entity.relationships.firstIndex { $0.name == relationship.name } ?? 0)
    }
}

extension DynamicStore {
    /// Writes the links of the inserted records: to-ones first (grouped by
    /// record: one UPDATE of its foreign-key columns), then to-manys, whose
    /// order wins, each through the dynamic write path; keys of the file map
    /// to the new keys, the others name objects of the store.
    /// `progress` is called after each of `log.steps`.
    /// - Throws: as `writeRelationships`; `ModelStoreError.saveFailed`.
    func writeImportLinks(
        _ log: ImportLinkLog, keys: [ObjectID: ObjectID], changes: inout InverseChanges, progress: (Int) -> Void
    ) throws {
        var done = 0
        var start = 0
        let toOne = log.toOne
        while start < toOne.count {
            // The to-ones of one record are consecutive.
            var end = start + 1
            while end < toOne.count && toOne[end].holder == toOne[start].holder && toOne[end].table == toOne[start].table { end += 1 }
            let table = log.tables[Int(toOne[start].table)]
            var resolved = ResolvedEdits()
            for link in toOne[start..<end] {
                guard let target = link.target else { continue }
                let relationship = log.relationship(of: link)
                let mapped = keys[target] ?? target
                resolved.toOne.append((relationship, mapped))
                if relationship.foreignKeyColumn != nil { resolved.values[relationship.name] = .object(mapped) }
            }
            let holder = toOne[start].holder
            // An object of the store that a record updates lets go of its
            // previous targets, as `set` makes it.
            let previous = toOne[start].isUpdate ? try object(ObjectID(entity: table.name, key: holder), toleratingUnreadable: true) : nil
            try writeAttributes(resolved, table: table, key: holder, current: nil)
            try writeRelationships(
                resolved, table: table, key: holder, previous: previous, isNew: previous == nil, changes: &changes, checksTargets: false)
            done += 1
            progress(done)
            start = end
        }
        for link in log.toMany {
            let table = log.tables[Int(link.table)]
            var resolved = ResolvedEdits()
            resolved.toMany.append((log.relationship(of: link), .set, log.members[link.members].map { keys[$0] ?? $0 }))
            try writeRelationships(resolved, table: table, key: link.holder, previous: nil, isNew: false, changes: &changes, checksTargets: false)
            done += 1
            progress(done)
        }
    }
}
