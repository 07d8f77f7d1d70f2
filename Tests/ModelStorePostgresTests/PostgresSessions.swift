import Foundation
import ModelStorePostgres
import PostgresNIO
import Testing

/// What the tests of the listener and the pool do to server sessions: end
/// one as an administrator would, and wait until one is gone.
enum PostgresSessions {
    /// How long a test waits for what must come; a guard against a hang,
    /// never a measurement.
    static let patience = Duration.seconds(20)

    /// Ends the session `pid` from `killer` (`pg_terminate_backend`, as an
    /// administrator would).
    static func terminate(_ pid: Int32, from killer: PostgresExecutor) throws {
        var binds = PostgresBindings()
        binds.append(pid)
        #expect(try killer.execute("SELECT pg_terminate_backend($1)", binds).rows.first?.decode(Bool.self) == true)
    }

    /// Whether the server still has a session with process ID `pid`.
    static func exists(_ pid: Int32, from observer: PostgresExecutor) throws -> Bool {
        var binds = PostgresBindings()
        binds.append(pid)
        return try !observer.execute("SELECT 1 FROM pg_stat_activity WHERE pid = $1", binds).rows.isEmpty
    }

    /// Checks `condition` again and again until it holds or `patience`
    /// passed (a guard against a hang: no sleep, each check is typically a
    /// round trip to the server); returns whether it held.
    static func poll(_ condition: () throws -> Bool) rethrows -> Bool {
        let deadline = ContinuousClock.now + patience
        while ContinuousClock.now < deadline {
            if try condition() { return true }
        }
        return false
    }
}
