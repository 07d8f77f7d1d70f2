/// How a to-many's members changed since the order last written or read,
/// in the two forms its writers know it (see `LinkWriter.Stored`).
///
/// A to-many stores each member's position (0, 1, 2, …) in an order column.
/// The typed context keeps no positions, only the list as it was last
/// loaded or saved: members at the start of the list that are where they
/// were (the common prefix) and, when the list kept its length, members at
/// its end that are where they were (the common suffix) keep their stored
/// positions, and only the run between them is written. Appending one
/// object to a list of N writes one position, not N + 1. Whether the stored
/// positions of the kept ends can be trusted is for the writer to check.
/// The dynamic layer reads the stored positions, and writes exactly those
/// that differ.
enum LinkDiff {
    /// What the typed context's comparison found.
    struct Kept {
        /// Leading members at the same index in both lists.
        var prefix: Int
        /// Trailing members at the same index in both lists (zero unless
        /// both have the same length).
        var suffix: Int
        /// The objects of the old list that are not members any more.
        var removed: [AnyObject]
    }

    /// Compares a to-many as last loaded or saved (`old`) with its members
    /// now (no repeats), by identity. `isMember` tells whether an object of
    /// `old` is still a member. `old` holds no repeats when the store and
    /// ModelStore keep their invariants (see `ModelContext.holdSavedMembers`);
    /// a repeat is still handled, so that a list read from a store edited
    /// by other means is stored right.
    ///
    /// A kept start holds no repeat (its objects match members, which do
    /// not repeat), so it is the start of the stored order. A kept end is
    /// only kept when none of its objects also comes earlier in `old`: the
    /// stored order has such an object at its first place, not at the end.
    /// - Complexity: O(old + members) comparisons of references; hashing
    ///   only for a kept end (appending hashes nothing).
    static func compare(previous old: [AnyObject], members: [AnyObject], isMember: (AnyObject) -> Bool) -> Kept {
        var prefix = 0
        let shorter = min(old.count, members.count)
        while prefix < shorter && old[prefix] === members[prefix] { prefix += 1 }
        var suffix = 0
        if old.count == members.count {
            // Positions after a length change all move: only then is an end kept.
            while suffix < members.count - prefix && old[old.count - 1 - suffix] === members[members.count - 1 - suffix] {
                suffix += 1
            }
            if suffix > 0 {
                var end = IdentitySet(capacity: suffix)
                for object in old[(old.count - suffix)...] { end.insert(object) }
                if old[..<(old.count - suffix)].contains(where: { end.contains($0) }) { suffix = 0 }
            }
        }
        let removed = old[prefix..<(old.count - suffix)].filter { !isMember($0) }
        return Kept(prefix: prefix, suffix: suffix, removed: removed)
    }

    /// How many objects were appended to `old` to make `members`, when
    /// that is all that changed: `members` starts with `old`'s objects in
    /// their order, then holds at most `maximumAppended` more, none of them
    /// twice or already in `old`. Nil otherwise, and for an unchanged list.
    ///
    /// `old` is the list as last loaded or saved, which holds no repeats
    /// (see `ModelContext.holdSavedMembers`), so `members` holds none.
    /// - Complexity: O(old × appended) comparisons of references, with no
    ///   hashing and no allocation: for the few objects appended to a long
    ///   list, a walk of it costs less than an identity set of it.
    static func appendedCount(
        to old: [AnyObject], making members: [AnyObject], maximumAppended: Int = 8
    ) -> Int? {
        appendedCount(toFirst: old.count, of: old, making: members, maximumAppended: maximumAppended)
    }

    /// `appendedCount(to:making:maximumAppended:)` for an old list that is
    /// the first `oldCount` objects of `list` (a list's shadow, see
    /// ListShadow.swift), without copying them.
    static func appendedCount(
        toFirst oldCount: Int, of list: [AnyObject], making members: [AnyObject], maximumAppended: Int = 8
    ) -> Int? {
        let appended = members.count - oldCount
        guard oldCount <= list.count, appended > 0, appended <= maximumAppended,
            ReferenceLists.commonPrefixCount(list, members, upTo: oldCount) == oldCount
        else { return nil }
        let added = members[oldCount...]
        for (offset, object) in zip(added.indices, added) {
            if ReferenceLists.contains(object, in: added[..<offset])
                || ReferenceLists.contains(object, in: list, upTo: oldCount)
            {
                return nil
            }
        }
        return appended
    }

    /// Compares links whose stored positions are known with the members to
    /// store (no repeats): the members that left, and the indices of the
    /// members whose stored position is not their index (new members have
    /// none).
    /// - Complexity: O(stored + members), one hash per link and member.
    static func exact<Key: Hashable>(stored: [(key: Key, position: Int64?)], members: [Key])
        -> (removed: [Key], positions: [Int])
    {
        var positions: [Key: Int64] = [:]
        positions.reserveCapacity(stored.count)
        for link in stored {
            if let position = link.position { positions[link.key] = position }
        }
        let changed = members.indices.filter { positions[members[$0]] != Int64($0) }
        let kept = Set(members)
        return (stored.map(\.key).filter { !kept.contains($0) }, changed)
    }
}

/// A member of a to-many as stored: its row key and its position (nil when
/// NULL).
package typealias StoredLink = (key: Int64, position: Int64?)
