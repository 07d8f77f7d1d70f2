import CSwiftRuntime

// References that answer as weak ones do (nil once the object's deinit has
// begun) without being weak references.
//
// A weak reference gives its object a side table: an allocation when the
// first one is made, a second free when the object goes, and the runtime's
// slow path for every retain and release of the object for the rest of its
// life (in a save of N objects, more instructions than binding their
// values). An unowned reference keeps its count in the object. It keeps the
// object's memory, not the object, so that a load can ask the runtime, as a
// weak load does, whether the object is being freed before it makes a
// strong reference. The price: a freed object's memory (not what it held)
// stays allocated until its last unowned reference goes.
//
// Class-bound existentials (`any PersistentModel`) do not satisfy an
// `AnyObject` constraint, so each holder keeps its own `unowned` field and
// the object's address, and loads through `loadUnlessFreed`.

/// The address `loadUnlessFreed` needs: the object's, taken when the
/// reference is made rather than read out of the unowned reference, so that
/// nothing depends on how an unowned reference is laid out.
@inline(__always)
func unownedAddress(of object: AnyObject) -> UnsafeMutableRawPointer {
    Unmanaged.passUnretained(object).toOpaque()
}

/// `load()` (a read of an unowned reference to the object at `address`), or
/// nil when the object's deinit has begun, where the read would trap. The
/// holder's unowned reference keeps the memory valid to ask.
@inline(__always)
func loadUnlessFreed<Object>(_ address: UnsafeMutableRawPointer, _ load: () -> Object) -> Object? {
    // A strong reference only to an object that is not being freed; while
    // it is held, the load cannot trap.
    guard swift_tryRetain(address) != nil else { return nil }
    defer { Unmanaged<AnyObject>.fromOpaque(address).release() }
    return load()
}
