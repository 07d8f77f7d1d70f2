import Observation
import Synchronization

// Whether the current thread is inside an Observation tracking scope
// (`withObservationTracking`, or a UI framework's tracking), so that an
// object makes its registrar only when a read can register an observer.
//
// A registrar costs two allocations and a lock (about 1,300 instructions),
// which was most of the cost of reading a fetched object once. Outside a
// tracking scope `ObservationRegistrar.access` does nothing, and an object
// without a registrar has no observers to tell of a write, so a registrar
// made for an untracked read is wasted. Observation keeps its tracking scope
// in a thread-local that it does not export, so the probe asks through the
// public API instead: it reports a read of its own property to a registrar of
// its own. Inside a scope, the registrar records the read by inserting the
// key path into a set, which hashes it; the key path has a subscript
// argument, and hashing a key path hashes its arguments. The argument's
// `hash(into:)` counts, so a count that moved during the report means the
// read was recorded.
//
// The probe's property never changes, so the observers that scopes install
// on its registrar never fire; they go when their scope is cancelled (when
// something else it read changes), as with any observed object.
//
// That a recorded read hashes its key path is how Observation works, not a
// promise it makes, so the probe first checks itself inside a scope of its
// own; if it does not see that scope, every read is taken as tracked, which
// is what reads did before the probe (a registrar for every object read).

/// Answers whether the current thread is inside an Observation tracking
/// scope; see the comment at the top of ObservationProbe.swift.
///
/// A namespace, not the probe's class: a static member of a class is called
/// with the class's metadata, which every generated getter would ask the
/// runtime for on each read.
@usableFromInline
enum ObservationProbe {
    /// The probe, or nil when it failed its own check (reads are then taken
    /// as tracked). It lives as long as the process; held unmanaged, so that
    /// asking it costs no retain and release (two atomic operations per read
    /// of a fetched object otherwise).
    private static let shared: Unmanaged<ProbeSubject>? = {
        let probe = ProbeSubject()
        return probe.seesTrackingScopes() ? Unmanaged.passRetained(probe) : nil
    }()

    /// True when a read now could register an observer: inside a tracking
    /// scope, or whenever the probe cannot tell.
    @usableFromInline
    static var isTracking: Bool {
        guard let shared else { return true }
        return shared._withUnsafeGuaranteedRef { $0.isInsideTrackingScope() }
    }
}

/// The observable object whose reads the probe reports to its own registrar.
final class ProbeSubject: Observable, Sendable {
    private let signal: ProbeSignal
    private let keyPath: KeyPath<ProbeSubject, Int> & Sendable
    private let registrar = ObservationRegistrar()

    fileprivate init() {
        let signal = ProbeSignal()
        self.signal = signal
        keyPath = \ProbeSubject.[signal]
    }

    /// The probed property; its value never matters and never changes.
    subscript(signal: ProbeSignal) -> Int { 0 }

    fileprivate func isInsideTrackingScope() -> Bool {
        let before = signal.hashes.load(ordering: .relaxed)
        registrar.access(self, keyPath: keyPath)
        // Another thread's recorded read can move the count too: then a read
        // outside a scope makes a registrar it did not need, which is safe.
        return signal.hashes.load(ordering: .relaxed) != before
    }

    /// Checks that the probe sees a scope of its own. (Not that it sees none
    /// outside one: it may first be asked inside an app's scope, and a probe
    /// that always answered yes would only cost time.)
    fileprivate func seesTrackingScopes() -> Bool {
        withObservationTracking { isInsideTrackingScope() } onChange: {}
    }
}

/// The subscript argument of the probe's key path: counts how often the key
/// path is hashed. All signals are equal, so that the key path equals itself
/// wherever it is compared.
final class ProbeSignal: Hashable, Sendable {
    let hashes = Atomic<Int>(0)

    init() {}

    static func == (lhs: ProbeSignal, rhs: ProbeSignal) -> Bool { true }

    func hash(into hasher: inout Hasher) {
        hashes.add(1, ordering: .relaxed)
    }
}
