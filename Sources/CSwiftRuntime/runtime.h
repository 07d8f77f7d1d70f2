// Entry points of the Swift runtime (libswiftCore, which every Swift program
// links) that the standard library does not expose, declared with their C
// signatures from the runtime's HeapObject.h. Swift code may not name it
// with @_silgen_name: the runtime reserves its symbol names.
// Used only by Sources/ModelStore/Unsafe/RegistrySlots.swift (whose header
// states the invariants), and not at all under the SafeReferences trait.
#ifndef MODELSTORE_CSWIFTRUNTIME_H
#define MODELSTORE_CSWIFTRUNTIME_H

/// Retains a native Swift object unless its deinit has begun: what loading a
/// weak reference does, for an object held by an unowned reference (which
/// keeps its memory valid to ask). Returns the object when it retained it,
/// NULL when the object is being freed.
extern void *_Nullable swift_tryRetain(void *_Nonnull object);

/// Adds one to a native Swift object's unowned reference count: what
/// storing an unowned reference does. The object's memory (not the object)
/// stays allocated until the count drops to zero.
extern void *_Nonnull swift_unownedRetain(void *_Nonnull object);

/// Takes one from a native Swift object's unowned reference count: what
/// destroying an unowned reference does.
extern void swift_unownedRelease(void *_Nonnull object);

#endif
