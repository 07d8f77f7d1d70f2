/// How a to-many's members changed between the order last written (or read)
/// and the order to write: the members that left, and the run of positions
/// that must be written again.
///
/// A to-many stores each member's position (0, 1, 2, …) in an order column.
/// Members at the start of the list that are where they were (the common
/// prefix) and, when the list kept its length, members at its end that are
/// where they were (the common suffix) keep their stored positions; only the
/// run between them is written. Appending one object to a list of N writes
/// one position, not N + 1. Whether the stored positions of the kept ends
/// can be trusted is for the writer to check (see `LinkWriter`): this type
/// only compares the two lists.
///
/// - Complexity: O(previous + members), with one hash per member: no
///   membership test walks a list.
struct LinkDiff<Key: Hashable> {
    /// Members of `previous` that are not in `members`, in their old order.
    let removed: [Key]
    /// The number of leading members at the same index in both lists.
    let prefix: Int
    /// The number of trailing members at the same index in both lists
    /// (zero unless both lists have the same length).
    let suffix: Int
    /// The new list's length.
    let count: Int

    /// The positions of `members` to write: those outside the kept ends.
    var changed: Range<Int> { prefix..<(count - suffix) }

    /// Compares `previous` (the stored order) with `members` (the order to
    /// store). Neither list may hold a key twice.
    init(previous: [Key], members: [Key]) {
        count = members.count
        var prefix = 0
        let shorter = min(previous.count, members.count)
        while prefix < shorter && previous[prefix] == members[prefix] { prefix += 1 }
        var suffix = 0
        // Positions after a length change all move, so a suffix is only kept
        // when the lengths match (a member replaced, or a few reordered).
        if previous.count == members.count {
            while suffix < count - prefix && previous[count - 1 - suffix] == members[count - 1 - suffix] {
                suffix += 1
            }
        }
        self.prefix = prefix
        self.suffix = suffix
        if previous.isEmpty {
            removed = []
        } else {
            let kept = Set(members)
            removed = previous.filter { !kept.contains($0) }
        }
    }

    /// Compares links whose stored positions are known with the members to
    /// store: the members that left, and the indices of the members whose
    /// stored position is not their index (new members have none).
    /// - Complexity: O(stored + members).
    static func exact(stored: [(key: Key, position: Int64?)], members: [Key]) -> (removed: [Key], positions: [Int]) {
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
typealias StoredLink = (key: Int64, position: Int64?)

