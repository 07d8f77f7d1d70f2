// How a value that cannot be loaded is reported.
//
// Relationships and the attributes a partial fetch left out are loaded by
// their getters on first access, and a getter cannot throw. When a load
// fails (a disk error, a row whose data does not fit its property, a to-one
// that two rows claim), the getter returns the property's unloaded value
// (nil, empty, or a partial fetch's placeholder), which looks like a stored
// one. So a failure is never left at that:
// - the property stays unloaded, and its next read tries again;
// - the owning context keeps the error in `lastFaultError`;
// - a read made through `loadedValue(of:)` throws it.
// Code that must not take a failed load for an empty value reads through
// `loadedValue(of:)`; code that shows values (a view) may read the getter
// and check `lastFaultError`.

/// Where load failures go while `loadedValue(of:)` reads.
enum LoadFailures {
    /// The failures of the innermost `loadedValue(of:)` running in this task
    /// (or thread, outside tasks); nil outside one.
    @TaskLocal static var sink: LoadFailureSink?

    /// Reports a failed load to the reading `loadedValue(of:)`, if any.
    static func report(_ error: any Error) {
        sink?.record(error)
    }
}

/// The first load failure during one `loadedValue(of:)`.
///
/// `@unchecked Sendable`: a task-local value must be `Sendable`, but a sink
/// is only used by the synchronous read that made it, on its own thread.
final class LoadFailureSink: @unchecked Sendable {
    private(set) var error: (any Error)?

    func record(_ error: any Error) {
        if self.error == nil { self.error = error }
    }
}

extension PersistentModel {
    /// Reads `keyPath` as its getter does, loading what is not loaded yet,
    /// but throws when a load fails instead of returning the unloaded value
    /// (nil, empty, or a partial fetch's placeholder) that the getter returns.
    ///
    /// ```swift
    /// let stops = try trip.loadedValue(of: \.stops)       // [] only when no stop refers to the trip
    /// let city = try stop.loadedValue(of: \.trip?.owner?.city)
    /// ```
    ///
    /// Every load the read makes counts, along the whole key path. Values
    /// that are loaded already are returned as they are.
    /// - Throws: the first error of a load the read made: `ModelStoreError`
    ///   (`invalidValue` naming the entity, property and row: data that does
    ///   not fit, a to-one that several rows claim, an unfetched attribute of
    ///   an object whose deletion was saved; `rowNotFound`), `SQLiteError`.
    public func loadedValue<Value>(of keyPath: KeyPath<Self, Value>) throws -> Value {
        let sink = LoadFailureSink()
        let value = LoadFailures.$sink.withValue(sink) { self[keyPath: keyPath] }
        if let error = sink.error { throw error }
        return value
    }
}
