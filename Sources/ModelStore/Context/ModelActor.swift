import Dispatch

/// Something that runs work with a model context of its own, as SwiftData's
/// `ModelExecutor`: the context is only used by the work the executor runs.
public protocol ModelExecutor: Executor, Sendable {
    /// The context the executor's work uses. Read it only from that work
    /// (inside the model actor); it is not `Sendable`.
    var modelContext: ModelContext { get }
}

/// A `ModelExecutor` that runs one piece of work at a time, in order.
public protocol SerialModelExecutor: ModelExecutor, SerialExecutor {}

/// Runs a model actor's work one job at a time on a serial dispatch queue of
/// its own, with the context it was made with, as SwiftData's
/// `DefaultSerialModelExecutor`.
///
/// `@unchecked Sendable` because it holds a `ModelContext`, which is not
/// `Sendable`. The invariant that makes sharing the executor safe: the
/// context is touched only by jobs this executor runs, and those run one at
/// a time on `queue`, so no two threads ever use the context at once. The
/// model actor that owns the executor is what reads `modelContext`, and its
/// code always runs here (its `unownedExecutor` is this executor).
public final class DefaultSerialModelExecutor: SerialModelExecutor, @unchecked Sendable {
    /// The context the actor's work uses.
    public let modelContext: ModelContext
    private let queue: DispatchQueue

    /// Makes an executor for `modelContext`. The context must not be used
    /// anywhere else afterwards.
    public init(modelContext: ModelContext) {
        self.modelContext = modelContext
        queue = DispatchQueue(label: "ModelStore.DefaultSerialModelExecutor")
    }

    /// Schedules `job` after the jobs already scheduled.
    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedSerialExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }

    /// This executor, in the form the concurrency runtime keeps.
    public func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }
}

/// An actor that owns a model context for background work, as SwiftData's
/// `ModelActor`. Declare one with `@ModelActor`:
///
/// ```swift
/// @ModelActor actor TripImporter {
///     func importTrips(_ names: [String]) throws -> [PersistentIdentifier] {
///         let trips = names.map { Trip(name: $0) }
///         trips.forEach(modelContext.insert)
///         try modelContext.save()
///         return trips.map(\.persistentModelID)
///     }
/// }
/// let importer = TripImporter(modelContainer: container)
/// let ids = try await importer.importTrips(["Oslo", "Rome"])
/// ```
///
/// Models are not `Sendable`, so the compiler keeps them inside the actor;
/// `PersistentIdentifier`s cross between actors, and each side finds its own
/// object with `model(for:)` or the actor's subscript.
public protocol ModelActor: Actor {
    /// The container the actor's context belongs to.
    nonisolated var modelContainer: ModelContainer { get }
    /// The executor the actor's code runs on, which holds its context. Use
    /// `modelContext` to reach the context.
    nonisolated var modelExecutor: any ModelExecutor { get }
}

extension ModelActor {
    /// The actor's executor: its code runs where its context lives.
    ///
    /// The executor must be serial (`@ModelActor` always makes a
    /// `DefaultSerialModelExecutor`). An actor that conforms by hand with an
    /// executor that is not serial breaks the protocol's contract, which
    /// stops the program with a message naming the actor, since no
    /// executor could make its isolation hold.
    public nonisolated var unownedExecutor: UnownedSerialExecutor {
        guard let serial = modelExecutor as? any SerialExecutor else {
            preconditionFailure("\(Self.self).modelExecutor is not a SerialExecutor; a ModelActor needs a serial one")
        }
        return serial.asUnownedSerialExecutor()
    }

    /// The context that the actor's code uses.
    public var modelContext: ModelContext { modelExecutor.modelContext }

    /// The model with identifier `id` in the actor's context, as `T`: the
    /// registered object, or one loaded from the store; nil when there is no
    /// such row or it is not a `T`.
    public subscript<T: PersistentModel>(id: PersistentIdentifier, as type: T.Type) -> T? {
        modelContext.model(for: id) as? T
    }
}

/// Turns an actor into a `ModelActor` that owns a context for background
/// work, as SwiftData's `@ModelActor`: adds `modelContainer`,
/// `modelExecutor` (a `DefaultSerialModelExecutor`) and
/// `init(modelContainer:)`. The actor's code runs on the executor's serial
/// queue and reaches its context through `modelContext`.
///
/// ```swift
/// @ModelActor actor TripImporter {
///     func count() throws -> Int { try modelContext.fetchCount(FetchDescriptor<Trip>()) }
/// }
/// let importer = TripImporter(modelContainer: container)
/// ```
@attached(member, names: named(modelExecutor), named(modelContainer), named(init))
@attached(extension, conformances: ModelActor)
public macro ModelActor() = #externalMacro(module: "ModelStoreMacros", type: "ModelActorMacro")
