// UNSAFE CODE, CONTAINED (see RegistrySlots.swift for the folder's rule).
//
// What it implements: comparisons of lists of class references by identity
// (`===`) that read the references' bits from the arrays' buffers. Appending
// to a to-many of thousands compares the list with its shadow and its
// committed value (ListShadow.swift): through `===`, each element was loaded
// as a reference, retained and released; here the common prefix is one
// `memcmp`, and a search is a loop over machine words.
//
// Invariants it relies on:
// 1. Layout. An `[AnyObject]` (or a slice of one) stores one strong reference
//    per element, a pointer-sized word that is the object's address: on
//    Linux every class instance is a native Swift object, with no tagged
//    pointers and no bridging. Two elements are the same object exactly
//    when their words are equal, and `ObjectIdentifier` holds the same word.
// 2. Lifetime. Nothing is retained or released: the caller's arrays keep
//    their objects alive during the call, and a word read is only compared,
//    never turned back into a reference.
// 3. Bounds. Every read is at an index below the count of the buffer it
//    reads (the counts are clamped first).
// Under `MODELSTORE_SAFE_REFERENCES` both are plain loops of `===`.
import Foundation

/// Identity comparisons of lists of class references.
enum ReferenceLists {
    /// How many leading elements `a` and `b` share (the same objects in the
    /// same order), counting at most `limit`.
    /// - Complexity: O(min(a, b, limit)).
    static func commonPrefixCount(_ a: [AnyObject], _ b: [AnyObject], upTo limit: Int = .max) -> Int {
        let count = min(a.count, b.count, max(limit, 0))
        guard count > 0 else { return 0 }
        #if MODELSTORE_SAFE_REFERENCES
        var index = 0
        while index < count && a[index] === b[index] { index += 1 }
        return index
        #else
        let stride = MemoryLayout<UInt>.stride
        return a.withUnsafeBytes { first in
            b.withUnsafeBytes { second in
                guard let firstStart = first.baseAddress, let secondStart = second.baseAddress else { return 0 }
                // The common case (an append) is a whole prefix in common.
                if memcmp(firstStart, secondStart, count * stride) == 0 { return count }
                var index = 0
                while index < count
                    && first.load(fromByteOffset: index * stride, as: UInt.self)
                        == second.load(fromByteOffset: index * stride, as: UInt.self)
                {
                    index += 1
                }
                return index
            }
        }
        #endif
    }

    /// Whether `object` is among the first `limit` elements of `list`.
    /// - Complexity: O(min(list, limit)).
    static func contains(_ object: AnyObject, in list: [AnyObject], upTo limit: Int = .max) -> Bool {
        contains(object, in: list[...], upTo: limit)
    }

    /// Whether `object` is among the first `limit` elements of `list`.
    /// - Complexity: O(min(list, limit)).
    static func contains(_ object: AnyObject, in list: ArraySlice<AnyObject>, upTo limit: Int = .max) -> Bool {
        let count = min(list.count, max(limit, 0))
        guard count > 0 else { return false }
        #if MODELSTORE_SAFE_REFERENCES
        return list.prefix(count).contains { $0 === object }
        #else
        let word = UInt(bitPattern: ObjectIdentifier(object))
        return list.withUnsafeBytes { bytes in
            guard let start = bytes.baseAddress else { return false }
            // Raw loads only: the memory is bound to references, and is read
            // as words without binding it to another type.
            let stride = MemoryLayout<UInt>.stride
            var index = 0
            // Eight words per step, compared as vectors with one branch: a
            // long list is searched at about an instruction per member.
            let splat = SIMD8<UInt>(repeating: word)
            while index + 8 <= count {
                let lanes = start.loadUnaligned(fromByteOffset: index * stride, as: SIMD8<UInt>.self)
                if any(lanes .== splat) { return true }
                index += 8
            }
            while index < count {
                if start.load(fromByteOffset: index * stride, as: UInt.self) == word { return true }
                index += 1
            }
            return false
        }
        #endif
    }
}
