/// The objects one prefetch loads a relationship for (the holders), found by
/// the key that the prefetch's rows carry: the holder's own row key, or for a
/// to-one held in the holder's row, the related row's key.
///
/// A holder keeps its fault; what it receives waits in its state
/// (`ModelState.prefetched`) until the fault resolves on first access
/// (`_$faultValue`), as a load from the store would, with its forwarding
/// links. Going through the setter instead would compare arrays, mirror
/// inverses and notify observers of relationships that nobody has read yet.
final class PrefetchHolders {
    // Unchecked exclusivity: confined to the prefetch that made it, and no
    // access spans a call; the runtime's check cost more than the work.
    private let ordinal: Int
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    private var holders: [any PersistentModel] = []
    /// Whether each holder has received rows in this prefetch.
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    private var received: [Bool]
    /// Each key's first holder, by index in `holders`.
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    private var firstHolder: [Int64: Int]
    /// Each holder's next holder of the same key (several objects can hold
    /// one to-one), or -1: a chain instead of an array per key, which would
    /// be an allocation per holder.
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    private var nextHolder: [Int] = []

    /// The ordinal of the related objects' relationship back to their
    /// holder when it is a column of their row (the inverse of a to-many or
    /// to-one stored there): each row's value there is its holder. Nil
    /// otherwise.
    let backOrdinal: Int?

    /// The holders among `models`: those for which `relationship` is a fault
    /// with a key to load it by.
    init(_ relationship: RuntimeRelationship, of models: [any PersistentModel]) {
        let ordinal = relationship.ordinal
        self.ordinal = ordinal
        let holdsForeignKey = relationship.holdsForeignKey
        backOrdinal = relationship.inverseColumnOrdinal
        firstHolder = Dictionary(minimumCapacity: models.count)
        holders.reserveCapacity(models.count)
        nextHolder.reserveCapacity(models.count)
        for model in models {
            let state = model._$modelState
            guard state.isFault(ordinal), let key = holdsForeignKey ? state.extras?.faultKeys[ordinal] : state.rowID
            else { continue }
            nextHolder.append(firstHolder.updateValue(holders.count, forKey: key) ?? -1)
            holders.append(model)
        }
        received = Array(repeating: false, count: holders.count)
    }

    var isEmpty: Bool { holders.isEmpty }
    var count: Int { holders.count }
    /// The distinct keys the holders are found by.
    var keys: Dictionary<Int64, Int>.Keys { firstHolder.keys }

    /// The first holder of `key`, by index, if any holds it.
    func first(forKey key: Int64) -> Int? { firstHolder[key] }

    /// The holder at `index`.
    func model(at index: Int) -> any PersistentModel { holders[index] }

    /// Hands `models` to the holder at `index` (see `first(forKey:)`) and
    /// every other holder of its key. A key's rows normally come in one run;
    /// a later run is appended.
    func receive(_ models: RelatedObjects, from first: Int) {
        var index = first
        while index >= 0 {
            let state = holders[index]._$modelState
            if received[index] {
                let extras = state.makeExtras()
                extras.prefetched[ordinal] = (extras.prefetched[ordinal] ?? .empty).appending(models)
            } else {
                state.makeExtras().prefetched[ordinal] = models
                received[index] = true
            }
            index = nextHolder[index]
        }
    }

    /// Gives the holders that received nothing an empty list, so that their
    /// faults resolve without reading the store.
    func finish() {
        for index in holders.indices where !received[index] {
            holders[index]._$modelState.makeExtras().prefetched[ordinal] = .empty
        }
    }
}
