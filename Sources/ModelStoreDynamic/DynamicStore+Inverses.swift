import Foundation
import ModelStore

// The other side of a dynamic edit. The typed API mirrors a relationship
// change into the inverse of every object gained or lost (a stop moved to
// another trip leaves its old trip's `stops` and joins the end of the new
// one's; a tag added to a trip joins the end of the tag's `trips`), and its
// save writes those objects' to-many order and checks their counts. The
// dynamic layer records the same effects by keys here, then writes them with
// the same link writer and checks the same limits.

/// The to-many lists of objects on the other side of an edit that gained or
/// lost members, with the members each gained, in order. In memory for an
/// edit; for an import, which may touch a list per record, in the scratch
/// tables `touched`, `explicit` and `appended` (`init(spillingTo:)`).
struct InverseChanges {
    /// A to-many relationship of one holder.
    struct Key: Hashable {
        let entity: String
        let relationship: String
        let holder: Int64
    }

    private struct Entry {
        let relationship: Schema.Relationship
        /// Every member appended, in order, repeats included: a member
        /// appended again belongs at its last place, which `latest` tells.
        /// Kept this way so that an append is O(1), not a search and a
        /// removal in a list that an import may grow to thousands.
        var appendLog: [Int64] = []
        var latest: [Int64: Int] = [:]

        mutating func append(_ member: Int64) {
            latest[member] = appendLog.count
            appendLog.append(member)
        }

        var appended: [Int64] {
            appendLog.indices.compactMap { index in latest[appendLog[index]] == index ? appendLog[index] : nil }
        }
    }

    private var entries: [Key: Entry] = [:]
    /// The keys in the order they were first touched.
    private var keys: [Key] = []
    /// Lists that an edit or an import record set explicitly: their order is
    /// the one given, not rewritten here.
    private var explicit: Set<Key> = []
    private let scratch: ImportScratch?

    /// No changes, kept in memory.
    init() { scratch = nil }

    /// No changes, kept in `scratch`'s tables.
    init(spillingTo scratch: ImportScratch) { self.scratch = scratch }

    private static let touchSQL =
        "INSERT OR IGNORE INTO \(ImportScratch.table("touched")) (entity, relationship, holder) VALUES (?, ?, ?)"

    /// `holder`'s `relationship` (of `entity`) lost a member or must be
    /// renumbered.
    /// - Throws: `SQLiteError` writing the scratch tables.
    mutating func touch(_ relationship: Schema.Relationship, of entity: String, holder: Int64) throws {
        if let scratch {
            try scratch.run(Self.touchSQL, [.text(entity), .text(relationship.name), .integer(holder)])
            return
        }
        let key = Key(entity: entity, relationship: relationship.name, holder: holder)
        if entries[key] == nil {
            entries[key] = Entry(relationship: relationship)
            keys.append(key)
        }
    }

    /// `member` joins the end of `holder`'s `relationship` (of `entity`).
    /// - Throws: `SQLiteError` writing the scratch tables.
    mutating func append(_ member: Int64, to relationship: Schema.Relationship, of entity: String, holder: Int64) throws {
        try touch(relationship, of: entity, holder: holder)
        if let scratch {
            try scratch.run(
                "INSERT INTO \(ImportScratch.table("appended")) (list, member) SELECT seq, ? FROM \(ImportScratch.table("touched")) "
                    + "WHERE entity = ? AND relationship = ? AND holder = ?",
                [.integer(member), .text(entity), .text(relationship.name), .integer(holder)])
            return
        }
        let key = Key(entity: entity, relationship: relationship.name, holder: holder)
        entries[key]?.append(member)
    }

    /// `holder`'s `relationship` was written in the order an edit gave.
    /// - Throws: `SQLiteError` writing the scratch tables.
    mutating func markExplicit(_ relationship: Schema.Relationship, of entity: String, holder: Int64) throws {
        if let scratch {
            try scratch.run(
                "INSERT OR IGNORE INTO \(ImportScratch.table("explicit")) (entity, relationship, holder) VALUES (?, ?, ?)",
                [.text(entity), .text(relationship.name), .integer(holder)])
            return
        }
        explicit.insert(Key(entity: entity, relationship: relationship.name, holder: holder))
    }

    /// Calls `body` with each touched list in the order first touched, its
    /// relationship (looked up in `schema`), whether it was set explicitly,
    /// and the members appended to it, each at its last place (none
    /// unless `readsAppended`).
    /// - Throws: `SQLiteError` reading the scratch tables; what `body` throws.
    func forEach(schema: Schema, readsAppended: Bool = true, _ body: (Key, Schema.Relationship, _ isExplicit: Bool, _ appended: [Int64]) throws -> Void) throws {
        guard let scratch else {
            for key in keys {
                guard let entry = entries[key] else { continue }
                try body(key, entry.relationship, explicit.contains(key), entry.appended)
            }
            return
        }
        let touched = ImportScratch.table("touched")
        let explicitTable = ImportScratch.table("explicit")
        try scratch.forEachRow(
            "SELECT t.seq, t.entity, t.relationship, t.holder, e.holder IS NOT NULL FROM \(touched) t LEFT JOIN \(explicitTable) e "
                + "ON e.entity = t.entity AND e.relationship = t.relationship AND e.holder = t.holder ORDER BY t.seq"
        ) { row in
            let key = Key(entity: row.string(at: 1), relationship: row.string(at: 2), holder: row.int64(at: 3))
            guard let relationship = schema.entity(named: key.entity)?.relationship(named: key.relationship) else { return }
            // Each member once, at the place it was appended last.
            var appended: [Int64] = []
            if readsAppended {
                try scratch.forEachRow(
                "SELECT member FROM \(ImportScratch.table("appended")) WHERE list = ? GROUP BY member ORDER BY max(seq)",
                [.integer(row.int64(at: 0))]
                ) { appended.append($0.int64(at: 0)) }
            }
            try body(key, relationship, row.int64(at: 4) != 0, appended)
        }
    }
}

extension DynamicStore {
    /// Writes the order of every touched list that was not set explicitly
    /// (its members in their stored order, then the appended ones, numbered
    /// from 0 as the typed save numbers them), then checks the count limits
    /// of every touched list.
    /// - Throws: `ModelStoreError.relationshipCount` for the first list
    ///   outside its limits; `.saveFailed`; `SQLiteError`.
    func apply(_ changes: InverseChanges) throws {
        try changes.forEach(schema: schema) { key, relationship, isExplicit, appended in
            guard !isExplicit else { return }
            let stored = try storedLinks(relationship, of: key.holder)
            let current = stored.map(\.key)
            let added = Set(appended)
            // A member appended here and then taken elsewhere by a later
            // link is no longer in the list.
            let stillThere = Set(current)
            let members = current.filter { !added.contains($0) } + appended.filter { stillThere.contains($0) }
            try LinkWriter.writeLinks(
                relationship, inverse: inverse(of: relationship), destinationTable: schema.tableName(of: relationship.destination),
                holder: key.holder, members: members,
                stored: .positions(stored), connection: connection)
        }
        try changes.forEach(schema: schema, readsAppended: false) { key, relationship, _, _ in
            try checkCount(relationship, of: key.entity, holder: key.holder)
        }
    }

    /// Checks that `holder`'s to-many holds a number of objects within its limits.
    /// - Throws: `ModelStoreError.relationshipCount`; `SQLiteError`.
    func checkCount(_ relationship: Schema.Relationship, of entity: String, holder: Int64) throws {
        let (minimum, maximum) = relationship.countLimits
        guard relationship.isToMany, minimum != nil || maximum != nil else { return }
        let count = try relatedKeys(relationship, of: holder).count
        if count < (minimum ?? 0) || count > (maximum ?? Int.max) {
            throw ModelStoreError.relationshipCount(
                object: "\(entity):\(holder)", relationship: relationship.name, count: count, minimum: minimum,
                maximum: maximum)
        }
    }
}
