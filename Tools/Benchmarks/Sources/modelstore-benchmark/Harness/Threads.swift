import Foundation

/// Threads of their own for the concurrent workloads (13 and 14).
///
/// Not Swift tasks: the cooperative pool has one thread per core (2 on the
/// benchmark machine), so 4 tasks that block in SQLite or on a lock would
/// not all run at once. Each thread makes what it works on itself (a
/// context is not `Sendable`), and keeps it.
enum Threads {
    /// Runs `count` threads. Each calls `setUp(index)`, untimed, and gets
    /// back its work; once every thread is set up, all start their work at
    /// once. Returns the seconds from that start until the last one
    /// finished.
    /// - Throws: the first error of any thread's set-up or work (the others
    ///   still run to their end).
    static func timed(_ count: Int, setUp: @escaping @Sendable (Int) throws -> () throws -> Void) throws -> Double {
        let ready = DispatchSemaphore(value: 0)
        let start = DispatchSemaphore(value: 0)
        let finished = DispatchSemaphore(value: 0)
        let errors = ErrorList()
        for index in 0..<count {
            let thread = Thread {
                var work: (() throws -> Void)?
                do { work = try setUp(index) } catch { errors.append(error) }
                ready.signal()
                start.wait()
                do { try work?() } catch { errors.append(error) }
                finished.signal()
            }
            thread.start()
        }
        for _ in 0..<count { ready.wait() }
        let began = monotonicSeconds()
        for _ in 0..<count { start.signal() }
        for _ in 0..<count { finished.wait() }
        let seconds = monotonicSeconds() - began
        if let error = errors.first { throw error }
        return seconds
    }

    /// Starts `body` on a thread of its own; `join` waits for it to end and
    /// rethrows its error.
    static func start(_ body: @escaping @Sendable () throws -> Void) -> Joinable {
        let joinable = Joinable()
        let thread = Thread {
            do { try body() } catch { joinable.errors.append(error) }
            joinable.finished.signal()
        }
        thread.start()
        return joinable
    }

    /// A thread started by `start`.
    final class Joinable: Sendable {
        fileprivate let finished = DispatchSemaphore(value: 0)
        fileprivate let errors = ErrorList()

        /// Waits for the thread to end.
        /// - Throws: the thread's error.
        func join() throws {
            finished.wait()
            if let error = errors.first { throw error }
        }
    }
}

/// Errors of several threads, behind a lock.
final class ErrorList: @unchecked Sendable {
    // @unchecked: `errors` is only touched under `lock`.
    private let lock = NSLock()
    private var errors: [any Error] = []

    func append(_ error: any Error) { lock.withLock { errors.append(error) } }
    var first: (any Error)? { lock.withLock { errors.first } }
}

/// Hands a value that is not `Sendable` (a context and its objects, a raw
/// connection) to one other thread, made on the preparing thread.
/// `@unchecked`: the preparing thread never touches the value again once
/// it handed it over, so only one thread at a time uses it.
final class HandOver<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}

/// A flag one thread raises and another polls.
final class Flag: @unchecked Sendable {
    // @unchecked: `raised` is only touched under `lock`.
    private let lock = NSLock()
    private var raised = false

    func raise() { lock.withLock { raised = true } }
    var isRaised: Bool { lock.withLock { raised } }
}
