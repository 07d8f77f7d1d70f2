import ModelStore
import PostgresNIO

/// Hands out executors (one connection each) for one database and schema,
/// at most `maximumConnections` at a time, synchronously.
///
/// `checkout()` gives an idle executor, or opens one while fewer than the
/// maximum are open, or waits for one to be given back, up to
/// `checkoutTimeout`. `checkin(_:)` gives it back: an executor given back
/// inside a transaction is rolled back first, so that the next borrower
/// never continues somebody else's transaction or waits on its locks.
/// Executors are opened when first needed, never closed for being idle.
///
/// An idle executor whose connection was lost (the server restarted, an
/// administrator ended the session) is replaced at checkout: one idle for
/// at least `pingAfterIdle` is checked with a `SELECT 1` first, and
/// connects again when the check finds the connection gone, so that the
/// borrower's first statement does not fail. (One idle for less is handed
/// out unchecked: its connection reconnects at the first use after the
/// client noticed the loss, and a statement sent before that fails with
/// `.connectionLost`.)
///
/// A borrowed executor belongs to its borrower alone until given back,
/// and is used by one thread at a time, as any executor.
///
/// ```swift
/// let pool = PostgresConnectionPool(location: location, schema: "app", maximumConnections: 8)
/// try pool.withExecutor { executor in
///     try executor.transaction { try executor.execute(sql, binds) }
/// }
/// ```
package final class PostgresConnectionPool: Sendable {
    /// What the pool holds at one moment.
    package struct Statistics: Sendable, Equatable {
        /// Executors waiting in the pool.
        package var idle: Int
        /// Executors handed out and not given back.
        package var leased: Int
        /// Checkouts waiting for an executor to be given back.
        package var waiting: Int
        /// Executors whose lost connection a checkout found and replaced.
        package var replaced: Int

        /// Statistics with these counts.
        package init(idle: Int, leased: Int, waiting: Int, replaced: Int) {
            self.idle = idle
            self.leased = leased
            self.waiting = waiting
            self.replaced = replaced
        }
    }

    /// Where the executors connect.
    package let location: PostgresLocation
    /// The schema of the executors' unqualified names; nil for the
    /// server's default.
    package let schema: String?
    /// The most executors open at once.
    package let maximumConnections: Int
    /// How long a checkout waits for an executor when all are in use.
    package let checkoutTimeout: Duration
    /// How long an executor may have been idle before a checkout checks
    /// its connection.
    package let pingAfterIdle: Duration
    // Executors are not Sendable. Each is held by one party at a time: the
    // idle list (inside the lock) or one borrower, between a checkout and a
    // checkin, and the lock orders the handover between their threads.
    private let state = WaitableState(State())

    private struct State {
        var idle: [(executor: PostgresExecutor, since: ContinuousClock.Instant)] = []
        var leased: Set<ObjectIdentifier> = []
        /// Executors being opened (counted against the maximum).
        var opening = 0
        var waiting = 0
        var replaced = 0
        var isClosed = false
    }

    /// What a checkout may do once it holds the lock.
    private enum Claim {
        case reuse(PostgresExecutor, idleSince: ContinuousClock.Instant)
        case open
    }

    /// Makes a pool; it connects at the first checkout.
    /// - Parameters:
    ///   - schema: the PostgreSQL schema for unqualified names (it must
    ///     exist); nil for the server's default.
    ///   - maximumConnections: at least 1.
    ///   - checkoutTimeout: how long a checkout waits when all executors
    ///     are in use.
    ///   - pingAfterIdle: how long an executor may be idle before a
    ///     checkout checks its connection (`.zero`: at every checkout).
    package init(
        location: PostgresLocation,
        schema: String? = nil,
        maximumConnections: Int = 8,
        checkoutTimeout: Duration = .seconds(5),
        pingAfterIdle: Duration = .seconds(1)
    ) {
        precondition(maximumConnections >= 1, "a connection pool needs at least one connection")
        self.location = location
        self.schema = schema
        self.maximumConnections = maximumConnections
        self.checkoutTimeout = checkoutTimeout
        self.pingAfterIdle = pingAfterIdle
    }

    deinit {
        close()
    }

    /// Hands out an executor: an idle one (its connection checked when it
    /// was idle for `pingAfterIdle`), or a new one, or one given back
    /// within `checkoutTimeout`. Give it back with `checkin(_:)`.
    /// - Throws: `PostgresStoreError.connectionFailed` when all
    ///   `maximumConnections` stay in use for `checkoutTimeout` (naming the
    ///   server and the limit), when the pool is closed, or when no
    ///   connection can be made; `.calledOnEventLoop` on an event loop
    ///   thread, where nothing may wait.
    package func checkout() throws(PostgresStoreError) -> PostgresExecutor {
        if MultiThreadedEventLoopGroup.currentEventLoop != nil { throw .calledOnEventLoop(statement: "a pool checkout") }
        let deadline = ContinuousClock.now + checkoutTimeout
        let claim: Claim
        if let immediate = try state.withLock({ state throws(PostgresStoreError) in try claimNow(&state, isWaiting: false) }) {
            claim = immediate
        } else {
            claim = try state.withLock(waitingUntil: deadline, for: { $0.isClosed || !$0.idle.isEmpty || hasRoom($0) }) {
                state, _ throws(PostgresStoreError) in
                state.waiting -= 1
                guard let claim = try claimNow(&state, isWaiting: true) else {
                    throw .connectionFailed(
                        location: location.description,
                        reason: "all \(maximumConnections) connections of the pool are in use, "
                            + "and none was given back within \(checkoutTimeout)")
                }
                return claim
            }
        }
        switch claim {
        case .reuse(let executor, let idleSince):
            if ContinuousClock.now - idleSince >= pingAfterIdle { try check(executor) }
            return executor
        case .open:
            return try open()
        }
    }

    /// Gives back an executor that `checkout()` handed out. One still in
    /// a transaction is rolled back first (or, on an event loop thread,
    /// where the ROLLBACK cannot be waited for, closed and dropped); once
    /// the pool is closed, the executor is closed.
    package func checkin(_ executor: PostgresExecutor) {
        var keep = true
        if executor.isInTransaction {
            if MultiThreadedEventLoopGroup.currentEventLoop == nil {
                executor.rollback()
            } else {
                keep = false
            }
        }
        let kept = state.withLock { state in
            precondition(
                state.leased.remove(ObjectIdentifier(executor)) != nil,
                "an executor was given back to a pool that did not hand it out")
            guard keep, !state.isClosed else { return false }
            state.idle.append((executor, .now))
            return true
        }
        if !kept { executor.close() }
    }

    /// Runs `body` with an executor from the pool, given back when `body`
    /// returns or throws.
    /// - Throws: what `checkout()` or `body` throws.
    package func withExecutor<T>(_ body: (PostgresExecutor) throws -> T) throws -> T {
        let executor = try checkout()
        defer { checkin(executor) }
        return try body(executor)
    }

    /// Closes the idle executors, and each borrowed one when it is given
    /// back; checkouts, waiting or later, throw.
    package func close() {
        let idle = state.withLock { state in
            state.isClosed = true
            defer { state.idle = [] }
            return state.idle
        }
        for (executor, _) in idle { executor.close() }
    }

    /// What the pool holds now.
    package var statistics: Statistics {
        state.withLock { state in
            Statistics(idle: state.idle.count, leased: state.leased.count, waiting: state.waiting, replaced: state.replaced)
        }
    }

    private var closedError: PostgresStoreError {
        .connectionFailed(location: location.description, reason: "the connection pool is closed")
    }

    private func hasRoom(_ state: State) -> Bool {
        state.idle.count + state.leased.count + state.opening < maximumConnections
    }

    /// Takes an idle executor or room for a new one, or, when there is
    /// neither, counts the caller as waiting and returns nil.
    private func claimNow(_ state: inout State, isWaiting: Bool) throws(PostgresStoreError) -> Claim? {
        guard !state.isClosed else { throw closedError }
        if let (executor, since) = state.idle.popLast() {
            state.leased.insert(ObjectIdentifier(executor))
            return .reuse(executor, idleSince: since)
        }
        if hasRoom(state) {
            state.opening += 1
            return .open
        }
        if !isWaiting { state.waiting += 1 }
        return nil
    }

    /// Opens an executor in the room `claimNow` took.
    private func open() throws(PostgresStoreError) -> PostgresExecutor {
        let executor: PostgresExecutor
        do {
            executor = try PostgresExecutor(location: location, schema: schema)
        } catch {
            state.withLock { $0.opening -= 1 }
            throw error
        }
        let isClosed = state.withLock { state in
            state.opening -= 1
            if !state.isClosed { state.leased.insert(ObjectIdentifier(executor)) }
            return state.isClosed
        }
        guard !isClosed else {
            executor.close()
            throw closedError
        }
        return executor
    }

    /// Checks a reused executor's connection with `SELECT 1`, connecting
    /// again when it was lost; an executor that cannot connect leaves the
    /// pool (its room is free again).
    private func check(_ executor: PostgresExecutor) throws(PostgresStoreError) {
        let opened = executor.connectionsOpened
        do {
            do {
                try executor.execute("SELECT 1")
            } catch where error.losesConnection {
                // The executor has dropped the lost connection; this
                // connects again.
                try executor.execute("SELECT 1")
            }
        } catch {
            state.withLock { _ = $0.leased.remove(ObjectIdentifier(executor)) }
            executor.close()
            throw error
        }
        if executor.connectionsOpened != opened { state.withLock { $0.replaced += 1 } }
    }
}
