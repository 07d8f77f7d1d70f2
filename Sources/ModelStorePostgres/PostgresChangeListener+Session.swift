import Logging
import ModelStore
import PostgresNIO

// How the listener's session is opened, and opened again after it was
// lost, without ever blocking an event loop: each step is a future chained
// on the connection's loop, and the wait between two attempts is a task
// scheduled on a loop, cancelled by close().
//
// Invariant: a session counts as listening (`State.session` is set) only
// once the server answered its LISTEN, and a reconnect bumps the change
// count only then. A caller that sees the bump and reads the change history
// therefore misses nothing: every commit after the LISTEN is notified, and
// every commit before it is in the history.

extension PostgresChangeListener {
    /// Opens the first session and waits until it listens.
    /// - Throws: `PostgresStoreError`.
    func listenFirst() throws(PostgresStoreError) {
        if MultiThreadedEventLoopGroup.currentEventLoop != nil { throw .calledOnEventLoop(statement: listenSQL) }
        let session: Session
        do {
            session = try openSession().wait()
        } catch let error as PostgresStoreError {
            throw error
        } catch {
            throw .connectionFailed(location: location.description, reason: "\(error)")
        }
        install(session, isReconnect: false)
    }

    private var listenSQL: String { "LISTEN \(quoteIdentifier(channel))" }

    /// Connects, LISTENs and reads the session's process ID. Fails with a
    /// `PostgresStoreError`; a connection that fails after it was opened
    /// is closed.
    private func openSession() -> EventLoopFuture<Session> {
        let id = state.withLock { state in
            state.connectionsOpened += 1
            return state.connectionsOpened
        }
        let location = location
        let eventLoop = MultiThreadedEventLoopGroup.singleton.any()
        return PostgresConnection.connect(on: eventLoop, configuration: configuration, id: id, logger: logger)
            .flatMapErrorThrowing { error in
                throw PostgresStoreError.connectionFailed(
                    location: location.description, reason: PostgresExecutor.connectFailureReason(error))
            }
            .flatMap { [weak self] connection in
                guard let self else {
                    return connection.close().flatMapThrowing {
                        throw PostgresStoreError.connectionLost(statement: "LISTEN", reason: "the listener went away")
                    }
                }
                return connection.eventLoop.flatSubmit { self.listen(on: connection) }
                    .map { pid in Session(id: id, connection: connection, backendPID: pid) }
                    .flatMapError { error in connection.close().recover { _ in }.flatMapThrowing { throw error } }
            }
    }

    /// Adds the notification handler to `connection`, LISTENs, and reads
    /// the session's process ID. Runs on the connection's loop, where its
    /// state cannot change between the check and the write: postgres-nio
    /// stops at a precondition when a handler is written to a connection
    /// that has already closed.
    private func listen(on connection: PostgresConnection) -> EventLoopFuture<Int32> {
        let listenSQL = listenSQL
        let pidSQL = "SELECT pg_backend_pid()"
        guard !connection.isClosed else {
            return connection.eventLoop.makeFailedFuture(
                PostgresStoreError.connectionLost(statement: listenSQL, reason: "the connection closed at once"))
        }
        connection.addListener(channel: channel) { [weak self] _, notification in
            self?.received(notification)
        }
        // postgres-nio sends its own LISTEN for the handler; ours, queued
        // after it on the same connection, answers only once the server
        // listens, and fails if it cannot.
        return connection.query(PostgresQuery(unsafeSQL: listenSQL), logger: logger)
            .flatMapErrorThrowing { error in throw PostgresStoreError.classify(error, statement: listenSQL) }
            .flatMap { [logger] _ in
                connection.query(PostgresQuery(unsafeSQL: pidSQL), logger: logger)
                    .flatMapErrorThrowing { error in throw PostgresStoreError.classify(error, statement: pidSQL) }
            }
            .flatMapThrowing { result in
                guard let pid = try? result.rows.first?.decode(Int32.self) else {
                    throw PostgresStoreError.server(
                        sqlState: "", message: "pg_backend_pid() returned no integer", statement: pidSQL)
                }
                return pid
            }
    }

    /// Makes `session` the current one, unless the listener was closed
    /// meanwhile (then closes it), and watches for its end. A reconnect
    /// counts as one change.
    private func install(_ session: Session, isReconnect: Bool) {
        let accepted = state.withLock { state in
            guard !state.isClosed else { return false }
            state.session = session
            state.retry = nil
            if isReconnect {
                state.reconnectCount += 1
                state.changeCount += 1
                state.missedSome = true
            }
            return true
        }
        guard accepted else {
            Self.close(session.connection)
            return
        }
        session.connection.closeFuture.whenComplete { [weak self] _ in
            self?.sessionEnded(id: session.id)
        }
    }

    /// The session with this ID closed: unless it was closed on purpose,
    /// connect again after the first delay.
    private func sessionEnded(id: Int) {
        let lost = state.withLock { state in
            guard !state.isClosed, state.session?.id == id else { return false }
            state.session = nil
            return true
        }
        if lost { scheduleReconnect(after: initialReconnectDelay) }
    }

    /// Tries to connect again after `delay`; after a failure, tries again
    /// after twice the delay, up to the maximum, until closed.
    private func scheduleReconnect(after delay: Duration) {
        let eventLoop = MultiThreadedEventLoopGroup.singleton.any()
        let retry = eventLoop.scheduleTask(in: .nanoseconds(delay.nanoseconds)) { [weak self] () -> Void in
            self?.reconnect(afterWaiting: delay)
        }
        let isClosed = state.withLock { state in
            if !state.isClosed { state.retry = retry }
            return state.isClosed
        }
        if isClosed { retry.cancel() }
    }

    private func reconnect(afterWaiting delay: Duration) {
        guard !state.withLock({ $0.isClosed }) else { return }
        let nextDelay = min(delay * 2, maximumReconnectDelay)
        openSession().whenComplete { [weak self] result in
            switch (self, result) {
            case (let listener?, .success(let session)):
                listener.install(session, isReconnect: true)
            case (let listener?, .failure):
                listener.scheduleReconnect(after: nextDelay)
            case (nil, .success(let session)):
                Self.close(session.connection)
            case (nil, .failure):
                break
            }
        }
    }
}
