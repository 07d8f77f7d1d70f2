// The identity map's self-check (see RowRegistry+Invariants.swift): debug
// builds only, called after each save and fetch, and by tests.

extension ModelContext {
    /// Checks the identity map: every entity's registry passes
    /// `RowRegistry._checkInvariants()`, and the registry kept for the last
    /// lookup is the one the map holds for its key. Stops the program with
    /// a message naming the broken invariant; does nothing in a release
    /// build.
    ///
    /// - Complexity: O(*n*) for *n* slots over all registries, in debug
    ///   builds.
    #if DEBUG
    func _checkIdentityMap() {
        for registry in identityMap.values { registry._checkInvariants() }
        if let (key, registry) = lastRegistry {
            precondition(identityMap[key] === registry, "the last registry looked up is not the identity map's")
        }
    }
    #else
    @inline(__always)
    func _checkIdentityMap() {}
    #endif
}
