import Observation

/// Workload 10's reference: an `@Observable` class with one property.
@Observable final class ObservableCounter {
    var number = 0
}

/// Workload 10's floor: a plain class with one stored property.
final class PlainCounter {
    var number = 0
}
