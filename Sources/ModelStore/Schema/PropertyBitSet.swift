/// A set of property ordinals. Models rarely have more than 64 stored
/// properties, so the first 64 live inline and only larger models allocate.
///
/// A plain value of the schema layer (the columns a statement selects or
/// omits), which the object model above uses for its dirty and fault bits.
@usableFromInline
package struct PropertyBitSet: Hashable, Sendable, Sequence {
    @usableFromInline var low: UInt64 = 0
    @usableFromInline var high: [UInt64] = []

    package init() {}

    var isEmpty: Bool { low == 0 && (high.isEmpty || high.allSatisfy { $0 == 0 }) }

    @inlinable
    func contains(_ ordinal: Int) -> Bool {
        if ordinal < 64 { return low & (1 << UInt64(ordinal)) != 0 }
        let word = ordinal / 64 - 1
        return word < high.count && high[word] & (1 << UInt64(ordinal % 64)) != 0
    }

    @inline(__always)
    mutating func remove(_ ordinal: Int) {
        if ordinal < 64 {
            low &= ~(1 << UInt64(ordinal))
            return
        }
        let word = ordinal / 64 - 1
        if word < high.count { high[word] &= ~(1 << UInt64(ordinal % 64)) }
    }

    @inline(__always)
    mutating func insert(_ ordinal: Int) {
        if ordinal < 64 {
            low |= 1 << UInt64(ordinal)
            return
        }
        let word = ordinal / 64 - 1
        if word >= high.count { high += Array(repeating: 0, count: word - high.count + 1) }
        high[word] |= 1 << UInt64(ordinal % 64)
    }

    /// The ordinals in ascending order.
    var ordinals: [Int] { Array(self) }

    @usableFromInline
    package struct Iterator: IteratorProtocol {
        private var words: [UInt64]
        private var wordIndex = 0
        private var bits: UInt64

        init(_ set: PropertyBitSet) {
            words = set.high
            bits = set.low
        }

        @usableFromInline
        package mutating func next() -> Int? {
            while bits == 0 {
                guard wordIndex < words.count else { return nil }
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
