import Foundation
import ModelStore

// The linking pass of an import: once every record's row exists, the links
// the check kept in the scratch table `links` (keys as the file gives them)
// are written in file order, each key of the file mapped to its new key by
// a join with the table `records`, the others naming objects of the store.
// Only one record's to-ones, or one to-many's members, are in memory at a time.

extension DynamicStore {
    /// The writes linking takes: one per record with to-ones, one per to-many.
    /// - Throws: `SQLiteError` from the scratch tables.
    func importLinkSteps(_ scratch: ImportScratch) throws -> Int {
        let links = ImportScratch.table("links")
        let records = try scratch.int64(
            "SELECT count(*) FROM (SELECT DISTINCT holder_entity, holder_key FROM \(links) WHERE kind = ?)",
            [.integer(ImportLinkKind.toOne.rawValue)]) ?? 0
        let lists = try scratch.int64("SELECT count(*) FROM \(links) WHERE kind = ?", [.integer(ImportLinkKind.toMany.rawValue)]) ?? 0
        return Int(records + lists)
    }

    /// Writes the links of the imported records: to-ones first (grouped by
    /// record: one UPDATE of its foreign-key columns), then to-manys, whose
    /// order wins, each through the dynamic write path.
    /// `progress` is called after each of `importLinkSteps`.
    /// - Throws: as `writeRelationships`; `ModelStoreError.saveFailed`.
    func writeImportLinks(_ scratch: ImportScratch, changes: inout InverseChanges, progress: (Int) -> Void) throws {
        // Each link with its holder's new key, whether the holder is an
        // object of the store that a record updates, and its target's new
        // key (the key as given when the target is not a record of the file).
        let select = """
            SELECT l.holder_entity, h.new_key, h.match IS NOT NULL, l.relationship, l.kind, coalesce(r.new_key, l.target_key) \
            FROM \(ImportScratch.table("links")) l \
            JOIN \(ImportScratch.table("records")) h ON h.entity = l.holder_entity AND h.key = l.holder_key \
            LEFT JOIN \(ImportScratch.table("records")) r ON r.entity = l.target_entity AND r.key = l.target_key
            """
        var done = 0
        var toOnes = PendingToOnes()
        func writeToOnes() throws {
            guard let holder = toOnes.holder, let table = store.table(named: holder.entity) else { return }
            // An object of the store that a record updates lets go of its
            // previous targets, as `set` makes it.
            let previous = toOnes.isUpdate ? try object(holder, toleratingUnreadable: true) : nil
            try writeAttributes(toOnes.resolved, table: table, key: holder.key, current: nil)
            try writeRelationships(
                toOnes.resolved, table: table, key: holder.key, previous: previous, isNew: previous == nil, changes: &changes,
                checksTargets: false)
            toOnes = PendingToOnes()
            done += 1
            progress(done)
        }
        try scratch.forEachRow(select + " WHERE l.kind = ? ORDER BY l.seq", [.integer(ImportLinkKind.toOne.rawValue)]) { row in
            let holder = ObjectID(entity: row.string(at: 0), key: row.int64(at: 1))
            // The to-ones of one record are consecutive.
            if toOnes.holder != holder { try writeToOnes() }
            guard let table = store.table(named: holder.entity),
                let relationship = table.entity.relationship(named: row.string(at: 3))
            else { return }
            toOnes.holder = holder
            toOnes.isUpdate = row.int64(at: 2) != 0
            let target = ObjectID(entity: relationship.destination, key: row.int64(at: 5))
            toOnes.resolved.toOne.append((relationship, target))
            if relationship.foreignKeyColumn != nil { toOnes.resolved.values[relationship.name] = .object(target) }
        }
        try writeToOnes()
        var list: (holder: ObjectID, relationship: Schema.Relationship, members: [ObjectID])?
        func writeList() throws {
            guard let (holder, relationship, members) = list, let table = store.table(named: holder.entity) else { return }
            var resolved = ResolvedEdits()
            resolved.toMany.append((relationship, .set, members))
            try writeRelationships(resolved, table: table, key: holder.key, previous: nil, isNew: false, changes: &changes, checksTargets: false)
            list = nil
            done += 1
            progress(done)
        }
        try scratch.forEachRow(select + " WHERE l.kind <> ? ORDER BY l.seq", [.integer(ImportLinkKind.toOne.rawValue)]) { row in
            if row.int64(at: 4) == ImportLinkKind.toMany.rawValue {
                try writeList()
                let holder = ObjectID(entity: row.string(at: 0), key: row.int64(at: 1))
                guard let relationship = store.table(named: holder.entity)?.entity.relationship(named: row.string(at: 3)) else { return }
                list = (holder, relationship, [])
            } else if let relationship = list?.relationship {
                list?.members.append(ObjectID(entity: relationship.destination, key: row.int64(at: 5)))
            }
        }
        try writeList()
    }
}

/// The to-ones of one record, gathered before they are written together.
private struct PendingToOnes {
    var holder: ObjectID?
    var isUpdate = false
    var resolved = DynamicStore.ResolvedEdits()
}
