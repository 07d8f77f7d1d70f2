/// A set of property ordinals. Models rarely have more than 64 stored
/// properties, so the first 64 live inline and only larger models allocate.
///
/// A plain value of the schema layer (the columns a statement selects or
/// omits), which the object model above uses for its dirty and fault bits.
@usableFromInline
package struct PropertyBitSet: Hashable, Sendable, Sequence {
    @usableFromInline var low: UInt64 = 0
    /// Ordinals 64 and up, 64 to a word; nil while there are none. A
    /// reference that is nil for most models, not an array: a save copies
    /// an object's dirty set several times, and copying a set whose
    /// reference is nil touches no reference count, where even an empty
    /// array is one more object to retain and release. Never changed once
    /// made (an insert makes a new one), so sets that share it stay values;
    /// nil when none of its bits would be set, so that an empty set has none.
    @usableFromInline var overflow: Overflow?

    @usableFromInline
    final class Overflow: Sendable {
        /// Ordinals 64 + 64 × i up to 127 + 64 × i in word i.
        @usableFromInline let words: [UInt64]

        init(_ words: [UInt64]) {
            self.words = words
        }
    }

    package init() {}

    @inlinable var isEmpty: Bool { low == 0 && overflow == nil }

    @inlinable
    func contains(_ ordinal: Int) -> Bool {
        if ordinal < 64 { return low & (1 << UInt64(ordinal)) != 0 }
        guard let words = overflow?.words else { return false }
        let word = ordinal / 64 - 1
        return word < words.count && words[word] & (1 << UInt64(ordinal % 64)) != 0
    }

    @inline(__always)
    mutating func remove(_ ordinal: Int) {
        if ordinal < 64 {
            low &= ~(1 << UInt64(ordinal))
            return
        }
        removeOverflowing(ordinal)
    }

    @usableFromInline
    mutating func removeOverflowing(_ ordinal: Int) {
        guard contains(ordinal), var words = overflow?.words else { return }
        words[ordinal / 64 - 1] &= ~(1 << UInt64(ordinal % 64))
        overflow = words.allSatisfy { $0 == 0 } ? nil : Overflow(words)
    }

    @inline(__always)
    mutating func insert(_ ordinal: Int) {
        if ordinal < 64 {
            low |= 1 << UInt64(ordinal)
            return
        }
        insertOverflowing(ordinal)
    }

    @usableFromInline
    mutating func insertOverflowing(_ ordinal: Int) {
        guard !contains(ordinal) else { return }
        var words = overflow?.words ?? []
        let word = ordinal / 64 - 1
        if word >= words.count { words += Array(repeating: 0, count: word - words.count + 1) }
        words[word] |= 1 << UInt64(ordinal % 64)
        overflow = Overflow(words)
    }

    /// The ordinals in ascending order.
    var ordinals: [Int] { Array(self) }

    /// The overflow words without the trailing zero ones: sets that hold
    /// the same ordinals are equal however they came to hold them.
    private var significantOverflowWords: ArraySlice<UInt64> {
        guard let words = overflow?.words, let last = words.lastIndex(where: { $0 != 0 }) else { return [] }
        return words[...last]
    }

    @inlinable
    package static func == (lhs: PropertyBitSet, rhs: PropertyBitSet) -> Bool {
        guard lhs.low == rhs.low else { return false }
        if lhs.overflow == nil && rhs.overflow == nil { return true }
        return overflowsAreEqual(lhs, rhs)
    }

    @usableFromInline
    static func overflowsAreEqual(_ lhs: PropertyBitSet, _ rhs: PropertyBitSet) -> Bool {
        lhs.significantOverflowWords.elementsEqual(rhs.significantOverflowWords)
    }

    @inlinable
    package func hash(into hasher: inout Hasher) {
        hasher.combine(low)
        if overflow != nil { hashOverflow(into: &hasher) }
    }

    @usableFromInline
    func hashOverflow(into hasher: inout Hasher) {
        for word in significantOverflowWords { hasher.combine(word) }
    }

    @usableFromInline
    package struct Iterator: IteratorProtocol {
        private let overflow: Overflow?
        private var wordIndex = 0
        private var bits: UInt64

        init(_ set: PropertyBitSet) {
            overflow = set.overflow
            bits = set.low
        }

        @usableFromInline
        package mutating func next() -> Int? {
            while bits == 0 {
                guard let words = overflow?.words, wordIndex < words.count else { return nil }
                bits = words[wordIndex]
                wordIndex += 1
            }
            let ordinal = wordIndex * 64 + bits.trailingZeroBitCount
            bits &= bits - 1
            return ordinal
        }
    }

    @usableFromInline
    package func makeIterator() -> Iterator { Iterator(self) }
}
