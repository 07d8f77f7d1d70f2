// Get/set bindings for UI frameworks on Linux, where SwiftUI's `Binding` and
// `@Bindable` do not exist: the `@State` seed article's binding (002), a pair
// of functions whose setter is `nonmutating` because the value lives
// elsewhere (here, in a model object, through a `ModelReference`).
//
// Named `ModelBinding` and `ModelBindable` rather than `Binding` and
// `Bindable`, so that they never clash with a UI framework's own types in a
// file that imports both.

/// A value read and written elsewhere, as a pair of functions: SwiftUI's
/// `Binding`, for UI frameworks on Linux.
///
/// Make one from a reference (`trip.reference(\.budget).binding`), from a
/// `ModelBindable` (`$trip.budget`), or from any pair of functions. Narrow it
/// by dynamic member: `budget.amount` is a `ModelBinding<Double>` that reads
/// and writes `amount` inside the budget.
///
/// ```swift
/// @ModelBindable var trip: Trip
/// let amount: ModelBinding<Double> = $trip.budget.amount
/// amount.wrappedValue = 1_200      // writes trip.budget.amount through the model
/// ```
///
/// Not `Sendable`: a binding to a model belongs to the model's isolation
/// domain.
@propertyWrapper
@dynamicMemberLookup
public struct ModelBinding<Value> {
    private let getValue: () -> Value
    private let setValue: (Value) -> Void

    /// Creates a binding from a function that reads the value and one that
    /// writes it.
    public init(get: @escaping () -> Value, set: @escaping (Value) -> Void) {
        getValue = get
        setValue = set
    }

    /// Creates a binding to what `reference` points at. Setting a value the
    /// reference cannot write (an element out of range) writes nothing; see
    /// `ModelReference.value`.
    public init<Root>(_ reference: ModelReference<Root, Value>) {
        self.init(get: { reference.value }, set: { reference.value = $0 })
    }

    /// Creates a binding from another one, as `@ModelBinding var x: T`
    /// initialised with `$x` in a view's initialiser.
    public init(projectedValue: ModelBinding<Value>) {
        self = projectedValue
    }

    /// A binding that always reads `value` and ignores writes, for previews
    /// and tests.
    public static func constant(_ value: Value) -> ModelBinding<Value> {
        ModelBinding(get: { value }, set: { _ in })
    }

    /// The value: reading calls the getter, setting the setter. The setter is
    /// `nonmutating`: the binding does not hold the value.
    public var wrappedValue: Value {
        get { getValue() }
        nonmutating set { setValue(newValue) }
    }

    /// The binding itself, so that `$name` of a `@ModelBinding var name`
    /// passes it on.
    public var projectedValue: ModelBinding<Value> { self }

    /// A binding to `member` inside the value: reads this binding's value and
    /// picks `member`; writes read the value, change `member` in it, and
    /// write it back through this binding.
    public subscript<Member>(dynamicMember member: WritableKeyPath<Value, Member>) -> ModelBinding<Member> {
        let parent = self
        return ModelBinding<Member>(
            get: { parent.getValue()[keyPath: member] },
            set: { newMember in
                var value = parent.getValue()
                value[keyPath: member] = newMember
                parent.setValue(value)
            })
    }
}

@available(*, unavailable)
extension ModelBinding: Sendable {}

extension ModelReference {
    /// A get/set binding to this reference's value, for a UI framework; see
    /// `ModelBinding`.
    public var binding: ModelBinding<Value> {
        ModelBinding(self)
    }
}

/// Bindings to a model's properties: SwiftUI's `@Bindable`, for UI
/// frameworks on Linux.
///
/// ```swift
/// struct BudgetForm {
///     @ModelBindable var trip: Trip
///     var body: some View {
///         TextField("Amount", value: $trip.budget.amount)   // ModelBinding<Double>
///     }
/// }
/// ```
///
/// `$trip.budget` is `trip.reference(\.budget).binding`: writes go through
/// the model's setter, are tracked and observed, and dirty only `budget`.
@propertyWrapper
@dynamicMemberLookup
public struct ModelBindable<Model: PersistentModel> {
    /// The model whose properties the bindings read and write.
    public var wrappedValue: Model

    /// Wraps `wrappedValue`, as `@ModelBindable var trip = trip` does.
    public init(wrappedValue: Model) {
        self.wrappedValue = wrappedValue
    }

    /// Wraps `model`, for bindings without a property wrapper:
    /// `ModelBindable(trip).budget`.
    public init(_ model: Model) {
        wrappedValue = model
    }

    /// The wrapper itself, so that `$trip.name` makes a binding.
    public var projectedValue: ModelBindable<Model> { self }

    /// A binding to the property at `keyPath` of the model.
    public subscript<Value>(dynamicMember keyPath: ReferenceWritableKeyPath<Model, Value>) -> ModelBinding<Value> {
        wrappedValue.reference(keyPath).binding
    }
}

@available(*, unavailable)
extension ModelBindable: Sendable {}
