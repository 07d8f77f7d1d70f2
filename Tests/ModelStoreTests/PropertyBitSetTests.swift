import Testing
@testable import ModelStore

/// The set of ordinals behind dirty and fault bits, statement shapes and
/// history groups: the first 64 inline, the rest in a shared overflow.
@Suite struct PropertyBitSetTests {
    @Test("Ordinals below and above 64 are kept, listed in order and removed")
    func insertContainsRemove() {
        var set = PropertyBitSet()
        #expect(set.isEmpty)
        for ordinal in [200, 3, 64, 63, 0, 127, 128] { set.insert(ordinal) }
        #expect(set.ordinals == [0, 3, 63, 64, 127, 128, 200])
        #expect(set.contains(128) && !set.contains(129) && !set.contains(1_000))
        for ordinal in [3, 64, 200, 500] { set.remove(ordinal) }
        #expect(set.ordinals == [0, 63, 127, 128])
        for ordinal in [0, 63, 127, 128] { set.remove(ordinal) }
        #expect(set.isEmpty)
        #expect(set.ordinals.isEmpty)
    }

    @Test("Sets of the same ordinals are equal and hash alike, however they came to hold them")
    func equalityIsBySet() {
        var emptied = PropertyBitSet()
        emptied.insert(5)
        emptied.insert(300)
        emptied.remove(300)
        var plain = PropertyBitSet()
        plain.insert(5)
        #expect(emptied == plain)
        #expect(emptied.hashValue == plain.hashValue)
        #expect(Set([emptied, plain]).count == 1)
        var wide = plain
        wide.insert(70)
        #expect(wide != plain)
        #expect(!plain.contains(70), "a copy changed does not change the set it was copied from")
    }
}
