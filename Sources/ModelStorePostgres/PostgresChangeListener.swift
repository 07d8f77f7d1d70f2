import Foundation
import Logging
import ModelStore
import PostgresNIO

/// Hears, on a connection of its own, of the commits other servers make to
/// one store: PostgreSQL's `LISTEN` on the store's channel, counted.
///
/// A container (one per process) keeps one listener. Each save's
/// transaction notifies the store's channel with its history token
/// (`PostgresExecutor.notify(channel:payload:)`); PostgreSQL delivers the
/// notification at COMMIT to every listening session, this one included.
/// The listener counts the notifications whose sender is not one of this
/// process's own sessions (`registerOwnSession(pid:)`), and keeps their
/// payloads until `takeReceived()`. `changeCount` is what SQLite's
/// `PRAGMA data_version` is to the library: when it moved, somebody else
/// committed, and the change history says what.
///
/// When its connection is lost (the server restarted, an administrator
/// ended the session), the listener connects again on its own, with a
/// delay that doubles after each failed attempt up to a maximum, and
/// LISTENs again. Notifications sent in between are lost, so once it
/// listens again it counts one change ("you may have missed some: catch up
/// from the history") and says so in `reconnectCount` and in the next
/// `takeReceived()`. It stops trying when closed.
///
/// Nothing here blocks an event loop: notifications and reconnects run on
/// SwiftNIO's threads and take the listener's lock only to update its
/// counters. Only `init` waits (for the first LISTEN), and refuses to run
/// on an event loop.
///
/// ```swift
/// let listener = try PostgresChangeListener(location: location, storeIdentifier: store)
/// listener.registerOwnSession(pid: try writer.backendPID())
/// let seen = listener.changeCount
/// // … later: somebody else committed if the count moved
/// if listener.changeCount != seen { let received = listener.takeReceived() }
/// ```
package final class PostgresChangeListener: Sendable {
    /// One notification from another session.
    package struct Notification: Sendable, Equatable {
        /// The server process ID of the session that sent it.
        package var senderPID: Int32
        /// What the sender passed (a save's history token).
        package var payload: String

        /// A notification from `senderPID` with `payload`.
        package init(senderPID: Int32, payload: String) {
            self.senderPID = senderPID
            self.payload = payload
        }
    }

    /// What `takeReceived()` hands over.
    package struct Received: Sendable, Equatable {
        /// The notifications from other sessions since the last take, in
        /// the order their transactions committed.
        package var notifications: [Notification]
        /// True when some notifications since the last take are not in
        /// `notifications`: the connection was lost (notifications sent
        /// while it was down are gone), or more arrived than the listener
        /// keeps. Read the change history instead of trusting the list.
        package var missedSome: Bool
    }

    /// Where the listener connects.
    package let location: PostgresLocation
    /// The channel it listens on, named after the store.
    package let channel: String
    let configuration: PostgresConnection.Configuration
    let initialReconnectDelay: Duration
    let maximumReconnectDelay: Duration
    private let maximumKeptNotifications: Int
    let logger = Logger(label: "ModelStorePostgres.listener", factory: { _ in SwiftLogNoOpLogHandler() })
    let state = WaitableState(State())

    /// What the lock guards.
    struct State {
        var changeCount: Int64 = 0
        var reconnectCount = 0
        var ownPIDs: Set<Int32> = []
        var kept: [Notification] = []
        var missedSome = false
        /// The current session; nil while connecting again, and once closed.
        var session: Session?
        /// The ID of the last connection opened; a closed connection whose
        /// ID is not the current session's is an old one and ignored.
        var connectionsOpened = 0
        /// The next reconnect attempt, while one is scheduled.
        var retry: Scheduled<Void>?
        var isClosed = false
    }

    /// One connection that listens.
    struct Session {
        var id: Int
        var connection: PostgresConnection
        var backendPID: Int32
    }

    /// The channel for the store with this identifier:
    /// `modelstore_changes_` and the identifier's 32 hexadecimal digits,
    /// 51 bytes (PostgreSQL's limit is 63), lowercase letters, digits and
    /// underscores only, so that it reads the same quoted or not.
    package static func channel(forStore identifier: UUID) -> String {
        "modelstore_changes_" + identifier.uuidString.lowercased().replacingOccurrences(of: "-", with: "")
    }

    /// Connects to `location` and LISTENs on the store's channel; returns
    /// once the server listens, so that every commit after it is heard.
    ///
    /// The session's `application_name` is the channel, so that an
    /// administrator can tell listeners apart in `pg_stat_activity`.
    /// - Parameters:
    ///   - storeIdentifier: the store's identifier, which names the channel.
    ///   - initialReconnectDelay: the wait before the first attempt to
    ///     connect again after the connection was lost; it doubles after
    ///     each failed attempt.
    ///   - maximumReconnectDelay: the longest wait between two attempts.
    ///   - maximumKeptNotifications: how many notifications are kept until
    ///     `takeReceived()`; later ones are counted but not kept.
    /// - Throws: `PostgresStoreError.connectionFailed` when the server
    ///   cannot be reached, `.calledOnEventLoop` on an event loop thread,
    ///   or the server's error for the LISTEN.
    package init(
        location: PostgresLocation,
        storeIdentifier: UUID,
        initialReconnectDelay: Duration = .milliseconds(50),
        maximumReconnectDelay: Duration = .seconds(5),
        maximumKeptNotifications: Int = 10_000
    ) throws(PostgresStoreError) {
        precondition(initialReconnectDelay > .zero, "the initial reconnect delay must be positive")
        precondition(maximumReconnectDelay >= initialReconnectDelay, "the maximum reconnect delay is below the initial one")
        precondition(maximumKeptNotifications >= 0, "a listener cannot keep a negative number of notifications")
        self.location = location
        self.channel = Self.channel(forStore: storeIdentifier)
        var configuration = try location.connectionConfiguration()
        configuration.options.additionalStartupParameters.append(("application_name", channel))
        self.configuration = configuration
        self.initialReconnectDelay = initialReconnectDelay
        self.maximumReconnectDelay = maximumReconnectDelay
        self.maximumKeptNotifications = maximumKeptNotifications
        try listenFirst()
    }

    deinit {
        close()
    }

    /// How many changes other sessions made: one per notification from a
    /// session that is not registered as this process's own, and one per
    /// reconnect. It only grows.
    package var changeCount: Int64 {
        state.withLock { $0.changeCount }
    }

    /// How many times the listener connected again after its connection
    /// was lost.
    package var reconnectCount: Int {
        state.withLock { $0.reconnectCount }
    }

    /// The server process ID of the listener's own session; nil while it
    /// connects again and once closed.
    package var backendPID: Int32? {
        state.withLock { $0.session?.backendPID }
    }

    /// True while the listener's session LISTENs (false while it connects
    /// again, and once closed).
    package var isListening: Bool {
        state.withLock { $0.session != nil }
    }

    /// Counts no notification from the session with this process ID (one
    /// of this process's executors: its own saves are merged already).
    /// Register the ID again after that executor connected again.
    package func registerOwnSession(pid: Int32) {
        state.withLock { _ = $0.ownPIDs.insert(pid) }
    }

    /// Counts the notifications from this session again (it is closed, and
    /// the server may give its process ID to another session).
    package func unregisterOwnSession(pid: Int32) {
        state.withLock { _ = $0.ownPIDs.remove(pid) }
    }

    /// Hands over the notifications kept since the last take, and whether
    /// some were missed, and forgets them.
    package func takeReceived() -> Received {
        state.withLock { state in
            defer {
                state.kept = []
                state.missedSome = false
            }
            return Received(notifications: state.kept, missedSome: state.missedSome)
        }
    }

    /// Waits until `changeCount` is at least `count`, or `timeout` passed,
    /// blocking the calling thread (so never call it on an event loop,
    /// whose notifications it would wait for).
    /// - Returns: whether the count was reached.
    package func waitForChangeCount(atLeast count: Int64, timeout: Duration) -> Bool {
        state.withLock(waitingUntil: .now + timeout, for: { $0.changeCount >= count }) { _, reached in reached }
    }

    /// Stops listening and closes the connection; no reconnect follows.
    /// Waits for the connection to close, except on an event loop thread.
    package func close() {
        let (session, retry) = state.withLock { state -> (Session?, Scheduled<Void>?) in
            state.isClosed = true
            defer {
                state.session = nil
                state.retry = nil
            }
            return (state.session, state.retry)
        }
        retry?.cancel()
        if let session { Self.close(session.connection) }
    }

    /// Counts a notification unless an own session sent it. Runs on the
    /// connection's event loop.
    func received(_ notification: PostgresMessage.NotificationResponse) {
        state.withLock { state in
            guard !state.isClosed, !state.ownPIDs.contains(notification.backendPID) else { return }
            state.changeCount += 1
            if state.kept.count < maximumKeptNotifications {
                state.kept.append(Notification(senderPID: notification.backendPID, payload: notification.payload))
            } else {
                state.missedSome = true
            }
        }
    }

    /// Closes `connection`, waiting for it unless on an event loop (where
    /// nothing may wait: the closure keeps the connection until it is
    /// closed, which postgres-nio requires before it goes away).
    static func close(_ connection: PostgresConnection) {
        if MultiThreadedEventLoopGroup.currentEventLoop == nil {
            try? connection.close().wait()
        } else {
            connection.close().whenComplete { _ in withExtendedLifetime(connection) {} }
        }
    }
}
