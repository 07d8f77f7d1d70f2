// In-place changes of long to-many lists without copying them.
//
// `parent.children.append(child)` runs the generated `_modify` accessor.
// The context needs the list as it was before the change: to mirror the
// change in the inverse of the objects that joined or left, and, for the
// first change since the last save, as the committed value that the save
// compares with (and a rollback restores). Keeping that list by holding
// the property's array shares its buffer, so the append copies all of it,
// a retain per member, and the save frees the copy, a release per member:
// for a list of thousands, far more than the rest of the append and save.
//
// A list of at least `ListShadow.minimumCount` members instead gets a
// shadow: the same members in a buffer of its own, kept in the object's
// state. Before an in-place change the shadow is checked against the
// property (a comparison of references; a shadow that differs, because the
// property was set or loaded since, is made anew), the property's array is
// changed in place, and the shadow is the list as it was. After the change
// the shadow follows the property: an append is appended to it; any other
// change drops it (the next change makes a new one).
//
// Second invariant: every member at index `checkedFrom` or later was found,
// when it was appended, absent from every member before it (the change's
// comparison finds that anyway, to tell joining objects for the inverses).
// So the members from `checkedFrom` on hold no repeat and none of the
// earlier ones: a save of an append after a list saved with `checkedFrom`
// members or fewer needs no search for repeats.
//
// Invariant: a shadow's members are only ever appended to. So the
// committed value of a list whose first change since the save was in place
// can be a prefix of its shadow (`SavedListPrefix`) rather than a copy, and
// stays right whatever is appended to the shadow after; a dropped shadow
// lives on, unchanged, in the committed values that refer to it.

/// A long to-many's members as the context last saw them, in a buffer the
/// property does not share.
final class ListShadow {
    /// Lists shorter than this are copied by an in-place change, as before:
    /// the copy costs little, and a shadow would double what they hold.
    static let minimumCount = 32

    /// The members, in order; only ever appended to (see above).
    private(set) var members: [AnyObject]
    /// From this index on, each member is absent from all members before it
    /// (see above); `members.count` when none is known to be.
    private(set) var checkedFrom: Int

    /// A shadow of `list`, in a buffer of its own.
    init(copying list: [AnyObject]) {
        var members: [AnyObject] = []
        // Room for appends: a shadow made for one grows at the next.
        members.reserveCapacity(list.count + max(16, list.count / 4))
        members.append(contentsOf: list)
        self.members = members
        checkedFrom = list.count
    }

    /// Whether the shadow holds exactly `list`, by identity and in order.
    func matches(_ list: [AnyObject]) -> Bool {
        list.count == members.count && ReferenceLists.commonPrefixCount(members, list) == list.count
    }

    /// Makes the shadow hold `list` when `list` is its members followed by
    /// more (an append): appends those and returns true. Returns false for
    /// any other change, which the shadow cannot follow without changing
    /// members it has. `shared` is `ReferenceLists.commonPrefixCount(members,
    /// list)`, which the caller has computed already. `appendedAreNew`: the
    /// caller found each appended object absent from the members and the
    /// appended objects distinct; otherwise nothing up to the new end is
    /// known to be free of repeats.
    func followAppend(to list: [AnyObject], sharing shared: Int, appendedAreNew: Bool) -> Bool {
        guard list.count >= members.count, shared == members.count else { return false }
        members.append(contentsOf: list[members.count...])
        if !appendedAreNew { checkedFrom = members.count }
        return true
    }

    /// How many objects were appended to the shadow's first `count` members
    /// to make `list`, when the shadow holds exactly `list` and those
    /// appended are known to repeat nothing (see above): then the save
    /// writes them without searching for repeats. Nil otherwise.
    /// - Complexity: one comparison of `list` with the members.
    func knownNewAppended(after count: Int, making list: [AnyObject]) -> Int? {
        guard checkedFrom <= count, count < list.count, list.count == members.count,
            ReferenceLists.commonPrefixCount(members, list) == list.count
        else { return nil }
        return list.count - count
    }

    /// Whether the objects hold no repeat, by identity: a loop over a few
    /// (an append adds one or a few), a set beyond.
    static func areDistinct(_ objects: ArraySlice<AnyObject>) -> Bool {
        guard objects.count > 1 else { return true }
        if objects.count <= 8 {
            for index in objects.indices.dropFirst()
            where ReferenceLists.contains(objects[index], in: objects[objects.startIndex..<index]) {
                return false
            }
            return true
        }
        var seen = IdentitySet(capacity: objects.count)
        for object in objects where !seen.insert(object) { return false }
        return true
    }
}

/// The committed value of a to-many whose first change since the last save
/// was made in place with a shadow: the shadow's first `count` members.
/// `ModelContext.committedValue(of:state:ordinal:)` turns it into the
/// property's value for whoever asks; the save compares with it as it is.
struct SavedListPrefix {
    let shadow: ListShadow
    let count: Int
    /// The property's type (`[Stop]`, `[Stop]?`).
    let valueType: any RelationshipValue.Type

    /// The members as stored, in a new array.
    var members: [AnyObject] { Array(shadow.members[..<count]) }

    /// The committed value as the property's type; nil only if the members
    /// do not fit it, which they do: they were the property's.
    var value: Any? {
        valueType._value(holdingObjects: members, of: valueType._destinationType)
    }
}

extension ModelState {
    /// The shadow of relationship `ordinal`, which holds `list`, for an
    /// in-place change about to be made: the one kept if it still matches,
    /// else a new one. Nil for a list too short to have one.
    func listShadow(_ ordinal: Int, holding list: [AnyObject]) -> ListShadow? {
        if let shadow = extras?.listShadows[ordinal] {
            if shadow.matches(list) { return shadow }
            extras?.listShadows[ordinal] = nil
        }
        guard list.count >= ListShadow.minimumCount else { return nil }
        let shadow = ListShadow(copying: list)
        makeExtras().listShadows[ordinal] = shadow
        return shadow
    }

    /// Forgets relationship `ordinal`'s shadow: its property was set.
    func dropListShadow(_ ordinal: Int) {
        guard let extras, !extras.listShadows.isEmpty else { return }
        extras.listShadows[ordinal] = nil
    }
}
