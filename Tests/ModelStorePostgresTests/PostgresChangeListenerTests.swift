import Foundation
import ModelStore
import ModelStorePostgres
import PostgresNIO
import Testing

@Suite("PostgreSQL change listener", .enabled(if: PostgresTestDatabase.isEnabled, PostgresTestDatabase.disabledReason))
struct PostgresChangeListenerTests {
    struct Failure: Error {}

    /// Runs `body` with a listener on a store of its own (a fresh channel)
    /// and two executors on a fresh schema.
    static func withListener(
        maximumKeptNotifications: Int = 10_000,
        _ body: (PostgresChangeListener, PostgresExecutor, PostgresExecutor) throws -> Void
    ) throws {
        try PostgresTestDatabase.withTwoExecutors { first, second, database in
            let listener = try PostgresChangeListener(
                location: database.location, storeIdentifier: UUID(),
                maximumKeptNotifications: maximumKeptNotifications)
            defer { listener.close() }
            try body(listener, first, second)
        }
    }

    @Test("The channel is named after the store: 51 bytes, the same for the same store, another for another")
    func channelName() {
        let store = UUID()
        let channel = PostgresChangeListener.channel(forStore: store)
        #expect(channel.utf8.count == 51)
        #expect(channel.allSatisfy { $0.isLowercase || $0.isNumber || $0 == "_" })
        #expect(channel == PostgresChangeListener.channel(forStore: store))
        #expect(channel != PostgresChangeListener.channel(forStore: UUID()))
    }

    @Test("A notification committed by another session is counted and its payload kept, with its sender")
    func committedNotificationIsHeard() throws {
        try Self.withListener { listener, sender, _ in
            #expect(listener.changeCount == 0)
            try sender.transaction { try sender.notify(channel: listener.channel, payload: "17") }
            #expect(listener.waitForChangeCount(atLeast: 1, timeout: PostgresSessions.patience))
            let received = listener.takeReceived()
            #expect(received.notifications == [.init(senderPID: try sender.backendPID(), payload: "17")])
            #expect(!received.missedSome)
            #expect(listener.takeReceived().notifications.isEmpty)
        }
    }

    @Test("A notification is delivered at COMMIT, after one committed earlier by another session")
    func deliveredAtCommit() throws {
        try Self.withListener { listener, first, second in
            try first.transaction {
                try first.notify(channel: listener.channel, payload: "first, committed last")
                try second.notify(channel: listener.channel, payload: "second, committed first")
                #expect(listener.waitForChangeCount(atLeast: 1, timeout: PostgresSessions.patience))
            }
            #expect(listener.waitForChangeCount(atLeast: 2, timeout: PostgresSessions.patience))
            let payloads = listener.takeReceived().notifications.map(\.payload)
            #expect(payloads == ["second, committed first", "first, committed last"])
        }
    }

    @Test("A notification in a rolled-back transaction is never delivered")
    func rolledBackNotificationIsNotHeard() throws {
        try Self.withListener { listener, sender, _ in
            // Not `#expect(throws:)`: built with Swift 6.3.1, the next
            // transaction below then ran the closure that macro wraps
            // instead of its own (a stack trace showed the same closure
            // number for both).
            do {
                try sender.transaction {
                    try sender.notify(channel: listener.channel, payload: "rolled back")
                    throw Failure()
                }
            } catch is Failure {}
            // Notifications arrive in commit order: once the later one is
            // here, the rolled-back one would have been too.
            try sender.transaction { try sender.notify(channel: listener.channel, payload: "committed") }
            #expect(listener.waitForChangeCount(atLeast: 1, timeout: PostgresSessions.patience))
            #expect(listener.changeCount == 1)
            #expect(listener.takeReceived().notifications.map(\.payload) == ["committed"])
        }
    }

    @Test("Notifications from a session registered as this process's own are not counted")
    func ownSessionsAreNotCounted() throws {
        try Self.withListener { listener, own, other in
            listener.registerOwnSession(pid: try own.backendPID())
            try own.notify(channel: listener.channel, payload: "own")
            try other.notify(channel: listener.channel, payload: "other")
            #expect(listener.waitForChangeCount(atLeast: 1, timeout: PostgresSessions.patience))
            #expect(listener.changeCount == 1)
            #expect(listener.takeReceived().notifications.map(\.payload) == ["other"])

            listener.unregisterOwnSession(pid: try own.backendPID())
            try own.notify(channel: listener.channel, payload: "own again")
            #expect(listener.waitForChangeCount(atLeast: 2, timeout: PostgresSessions.patience))
            #expect(listener.takeReceived().notifications.map(\.payload) == ["own again"])
        }
    }

    @Test("Beyond the notifications it keeps, the listener counts and says that it missed some")
    func keepsAtMostTheMaximum() throws {
        try Self.withListener(maximumKeptNotifications: 2) { listener, sender, _ in
            for payload in ["1", "2", "3"] { try sender.notify(channel: listener.channel, payload: payload) }
            #expect(listener.waitForChangeCount(atLeast: 3, timeout: PostgresSessions.patience))
            let received = listener.takeReceived()
            #expect(received.notifications.map(\.payload) == ["1", "2"])
            #expect(received.missedSome)
            #expect(!listener.takeReceived().missedSome)
        }
    }

    @Test("After its session is ended, the listener connects again, counts one change, and hears later notifications")
    func reconnectsAfterItsSessionIsEnded() throws {
        try Self.withListener { listener, killer, sender in
            let pid = try #require(listener.backendPID)
            try PostgresSessions.terminate(pid, from: killer)
            #expect(listener.waitForChangeCount(atLeast: 1, timeout: PostgresSessions.patience))
            #expect(listener.reconnectCount == 1)
            #expect(listener.isListening)
            #expect(listener.backendPID != pid)
            let received = listener.takeReceived()
            #expect(received.notifications.isEmpty)
            #expect(received.missedSome)

            try sender.notify(channel: listener.channel, payload: "after the reconnect")
            #expect(listener.waitForChangeCount(atLeast: 2, timeout: PostgresSessions.patience))
            #expect(listener.takeReceived().notifications.map(\.payload) == ["after the reconnect"])
        }
    }

    @Test("close() ends the listener's session, and nothing connects again")
    func closeEndsTheSession() throws {
        try Self.withListener { listener, observer, _ in
            let pid = try #require(listener.backendPID)
            listener.close()
            #expect(!listener.isListening)
            #expect(listener.backendPID == nil)
            #expect(try PostgresSessions.poll { try !PostgresSessions.exists(pid, from: observer) })
            #expect(listener.reconnectCount == 0)
        }
    }

    @Test("A listener that goes away closes its session")
    func deinitClosesTheSession() throws {
        try PostgresTestDatabase.withTwoExecutors { observer, _, database in
            var listener: PostgresChangeListener? = try PostgresChangeListener(
                location: database.location, storeIdentifier: UUID())
            let pid = try #require(listener?.backendPID)
            #expect(try PostgresSessions.exists(pid, from: observer))
            listener = nil
            #expect(try PostgresSessions.poll { try !PostgresSessions.exists(pid, from: observer) })
        }
    }
}
