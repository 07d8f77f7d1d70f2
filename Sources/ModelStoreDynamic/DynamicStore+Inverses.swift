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
/// lost members, with the members each gained, in order.
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
    private(set) var keys: [Key] = []
    /// Lists that an edit or an import record set explicitly: their order is
    /// the one given, not rewritten here.
    private(set) var explicit: Set<Key> = []

    /// `holder`'s `relationship` (of `entity`) lost a member or must be
    /// renumbered.
    mutating func touch(_ relationship: Schema.Relationship, of entity: String, holder: Int64) {
        let key = Key(entity: entity, relationship: relationship.name, holder: holder)
        if entries[key] == nil {
            entries[key] = Entry(relationship: relationship)
            keys.append(key)
        }
    }

    /// `member` joins the end of `holder`'s `relationship` (of `entity`).
    mutating func append(_ member: Int64, to relationship: Schema.Relationship, of entity: String, holder: Int64) {
        touch(relationship, of: entity, holder: holder)
        let key = Key(entity: entity, relationship: relationship.name, holder: holder)
        entries[key]?.append(member)
    }

    /// `holder`'s `relationship` was written in the order an edit gave.
    mutating func markExplicit(_ relationship: Schema.Relationship, of entity: String, holder: Int64) {
        explicit.insert(Key(entity: entity, relationship: relationship.name, holder: holder))
    }

    /// The relationship and the members appended to it, for a touched key.
    func entry(_ key: Key) -> (relationship: Schema.Relationship, appended: [Int64])? {
        entries[key].map { ($0.relationship, $0.appended) }
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
        for key in changes.keys where !changes.explicit.contains(key) {
            guard let (relationship, appended) = changes.entry(key) else { continue }
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
        for key in changes.keys {
            guard let (relationship, _) = changes.entry(key) else { continue }
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
