import Observation

/// Where an object stands with respect to its context and store.
enum ModelLifecycle: Sendable {
    /// Created, not inserted into any context.
    case detached
    /// Inserted into a context, not yet saved.
    case inserted
    /// Has a row in the store.
    case persisted
    /// Deleted in its context; the row goes away at the next save.
    case deleted
}

/// The context-facing side of a model object, so that the Model layer does
/// not depend on the Context layer above it.
protocol ModelStateOwner: AnyObject {
    /// Called once when an object's first property becomes dirty since the
    /// last save, so that the context keeps the object until it is saved.
    func modelDidBecomeDirty(_ model: any PersistentModel)
}

/// The per-object state that `@Model` embeds in every model class
/// (`_$modelState`): the observation registrar, the link to the owning
/// context, the identifier, and the change-tracking bits.
///
/// Dirty tracking is a bit set indexed by property ordinal; the value a
/// property had when it was last saved is kept only for properties that
/// changed, so tracking costs nothing for objects that are only read.
public final class ModelState {
    /// The Observation registrar that the generated accessors report to.
    public let registrar = ObservationRegistrar()

    weak var owner: (any ModelStateOwner)?
    var table: EntityTable?
    var lifecycle: ModelLifecycle = .detached
    /// The identifier; temporary until saved. Created on first request for
    /// detached objects.
    var identifier: PersistentIdentifier?
    var dirty = PropertyBitSet()
    /// The last saved value of each changed property of a persisted object.
    var committedValues: [Int: Any] = [:]
    /// Set while the context writes values back (rollback, merge), so that the
    /// writes do not count as changes.
    var isApplyingStoredValues = false

    /// Creates the state of a new object; `@Model` calls it.
    public init() {}

    var rowID: Int64? { identifier?.rowID }

    /// Records that property `ordinal` is about to change from `old`.
    @inline(__always)
    func propertyWillChange<Value>(_ ordinal: Int, from old: Value, of model: some PersistentModel) {
        // The bit test comes first: it is the common case for an object that
        // is already dirty, and it is cheaper than loading the weak owner.
        guard !dirty.contains(ordinal), !isApplyingStoredValues, let owner else { return }
        let wasClean = dirty.isEmpty
        dirty.insert(ordinal)
        if lifecycle == .persisted { committedValues[ordinal] = old }
        if wasClean { owner.modelDidBecomeDirty(model) }
    }

    /// Forgets all changes: the object's values are now the saved ones.
    func markClean() {
        dirty = PropertyBitSet()
        committedValues.removeAll(keepingCapacity: false)
    }
}

/// A set of property ordinals. Models rarely have more than 64 stored
/// properties, so the first 64 live inline and only larger models allocate.
struct PropertyBitSet: Equatable, Sendable {
    private var low: UInt64 = 0
    private var high: [UInt64] = []

    var isEmpty: Bool { low == 0 && high.allSatisfy { $0 == 0 } }

    func contains(_ ordinal: Int) -> Bool {
        if ordinal < 64 { return low & (1 << UInt64(ordinal)) != 0 }
        let word = ordinal / 64 - 1
        return word < high.count && high[word] & (1 << UInt64(ordinal % 64)) != 0
    }

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
    var ordinals: [Int] {
        var result: [Int] = []
        var bits = low
        while bits != 0 {
            result.append(bits.trailingZeroBitCount)
            bits &= bits - 1
        }
        for (index, word) in high.enumerated() {
            var bits = word
            while bits != 0 {
                result.append((index + 1) * 64 + bits.trailingZeroBitCount)
                bits &= bits - 1
            }
        }
        return result
    }
}
