// UNSAFE CODE, CONTAINED (see RegistrySlots.swift for the folder's rule).
//
// What it implements: reinterpreting an array of class references as an
// array of another class type, in O(1): `[AnyObject]` as `[Element]` and
// back, where `Element` is a model class. A fetch collects its objects as
// `[AnyObject]` (appending to `[T]` in unspecialized code looks up Array<T>'s
// metadata on every append) and returns them as `[T]`; a prefetch keeps
// each holder's objects as their class's array, handed to a getter of
// `[Child]` as it is. A checked conversion copies the array, with a retain
// and a cast per element.
//
// Invariants it relies on:
// 1. Layout. `Element` is a class (model types are classes: PersistentModel
//    is class-bound), and an array of class references has the same layout
//    whatever the class: one strong reference per element, so the buffer's
//    retain counts are right under either type.
// 2. Contents. Every element of an array read as `[Element]` is an
//    `Element` (that class or a subclass): made by Element's initializer,
//    checked with `as? Element`, or read from the entity's table, whose
//    objects are of its class. Debug builds check each element.
// Under `MODELSTORE_SAFE_REFERENCES` both conversions copy, with checked
// casts.

/// Conversions between `[AnyObject]` and an array of one model class.
@usableFromInline
enum ClassArrays {
    /// Whether the conversions reuse the array's buffer (false under
    /// SafeReferences, where they copy).
    #if MODELSTORE_SAFE_REFERENCES
    static let reinterpretsInPlace = false
    #else
    static let reinterpretsInPlace = true
    #endif

    /// `objects` as `[Element]`; every element must be an `Element`.
    /// - Complexity: O(1) (O(*n*) in debug builds and under SafeReferences).
    @usableFromInline @inline(__always)
    static func reinterpret<Element>(_ objects: [AnyObject], as type: Element.Type) -> [Element] {
        #if MODELSTORE_SAFE_REFERENCES
        return objects.map { object in
            guard let element = object as? Element else {
                preconditionFailure("an object of \(Swift.type(of: object)) in an array of \(Element.self)")
            }
            return element
        }
        #else
        assert(Element.self is AnyObject.Type, "\(Element.self) is not a class")
        assert(objects.allSatisfy { $0 is Element }, "an object in an array of \(Element.self) is not one")
        return unsafeBitCast(objects, to: [Element].self)
        #endif
    }

    /// `elements`, an array of a class, as `[AnyObject]`.
    /// - Complexity: O(1) (O(*n*) under SafeReferences).
    @usableFromInline @inline(__always)
    static func erase<Element>(_ elements: [Element]) -> [AnyObject] {
        #if MODELSTORE_SAFE_REFERENCES
        return elements.map { $0 as AnyObject }
        #else
        assert(Element.self is AnyObject.Type, "\(Element.self) is not a class")
        return unsafeBitCast(elements, to: [AnyObject].self)
        #endif
    }
}
