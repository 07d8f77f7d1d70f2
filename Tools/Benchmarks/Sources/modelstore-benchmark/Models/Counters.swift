import Observation

/// Workload 10's reference: an `@Observable` class with one property.
@Observable final class ObservableCounter {
    var number = 0
}

/// Workload 10's floor: a plain class with one stored property, set through
/// a call. With the setter inlined, the optimizer turned the loop of a
/// million sets into one store, and the floor read 0 ms: it measured nothing.
final class PlainCounter {
    private var storage = 0

    var number: Int {
        get { storage }
        @inline(never) set { storage = newValue }
    }
}
