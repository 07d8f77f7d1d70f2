import Foundation
import Synchronization

// How the contexts of a container learn of each other's saves, and of
// commits made by other processes.
//
// In this process: a context that commits hands a `ChangeSet` to the inbox
// of every other live context of the container (`MergeInbox`, thread-safe),
// and each context applies what its inbox holds at its next entry point
// (see ModelContext+Merge.swift), in its own isolation domain.
//
// Other processes: SQLite's `PRAGMA data_version` of a connection changes
// when any other connection commits, and not for the connection's own
// commits. Each context reads it once per entry point on its own
// connection; when it moved, somebody committed, in this process or not.
// Which of the two is decided with one more connection per container, the
// watcher (opened when the first context registers, without parsing the
// schema; on a server, the connection that opened the store), that never
// writes: every local commit reads the watcher's
// data_version while it holds the write lock (after BEGIN IMMEDIATE nobody
// else can commit), and again after COMMIT, and records the value after as
// `attributed`: every commit up to that value is accounted for (local ones
// are in the inboxes, foreign ones counted). Local commits take
// `commitLock` around their transaction, so that at most one is between its
// two reads at any time.
// - Inside the transaction, a watcher value other than `attributed` means
//   some commit since the last local one was foreign.
// - Between COMMIT and the second read, a foreign commit could land unseen
//   by the watcher (its one read sees it and the local commit together).
//   The committing connection's own data_version, read inside the
//   transaction and again after the second watcher read, moves only for
//   other connections' commits: if it moved, one landed (it cannot be a
//   local one, which would need `commitLock`).
// - A context whose own data_version moved reads the watcher: equal to
//   `attributed`, everything is accounted for; else, unless a local commit
//   is between its two reads from exactly `attributed` (that commit will
//   account for what the context saw), a foreign commit happened.
// A foreign commit is then read from the change history (see
// ForeignChanges.swift): each of its transactions goes to every context's
// inbox as a `ChangeSet`, as a local save does, so that contexts merge the
// rows it changed and nothing else. When the history cannot tell what
// changed, the foreign commit bumps `foreignGeneration` instead; every
// context compares it with the value it saw last (an atomic load per entry
// point) and reloads what it holds when it moved. Doubt (a pragma that
// fails) counts as a foreign commit: a needless reload is slower, never
// wrong.
//
// In-memory stores share one cache between their connections, whose
// data_version never moves, and no other process can open them; stores of
// a migration's custom stage share one connection. Neither is watched.

/// The contexts of one container, their inboxes and observers, and the
/// bookkeeping that tells local commits from other processes' (see above).
final class ChangeCoordinator: Sendable {
    private struct Subscribers {
        var inboxes: [WeakInbox] = []
        var observers: [Int: @Sendable (StoreChanges) -> Void] = [:]
        var nextObserver = 0
    }

    private struct WeakInbox {
        weak var inbox: MergeInbox?
    }

    private struct Watch {
        /// A server store's bootstrap connection, handed over when the store
        /// was opened (see `adoptWatcher`), or opened when the first context
        /// registers (`Store.openWatcherConnection`).
        var watcher: Connection?
        /// Whether the first context registered and set the baseline.
        var isStarted = false
        /// The watcher's data_version up to which every commit is accounted for.
        var attributed: Int64?
        /// `attributed` when a local commit read it inside its transaction,
        /// until the commit's second read.
        var inFlight: Int64?
        /// How far the change history is accounted for (ForeignChanges.swift).
        var position = HistoryPosition()

        /// The watcher's data_version; nil when it cannot be read.
        mutating func read(_ store: Store) -> Int64? {
            do {
                let connection = try watcher ?? store.openWatcherConnection()
                watcher = connection
                return try connection.dataVersion()
            } catch {
                return nil
            }
        }

        /// Sets the baseline when the first context registers: the
        /// watcher's data_version and the latest history token.
        ///
        /// On a server, both are read on the watcher in one snapshot. On a
        /// SQLite file, the token is read after, on the registering
        /// context's connection (`context`), on which SQLite has parsed the
        /// schema; the watcher, opened for data_version, has not (see
        /// `Store.openWatcherConnection`). A foreign commit between the two
        /// reads is in the token but not behind the watcher's value: it
        /// later looks like a foreign commit whose history was read
        /// already, which costs a look at the history, never a miss.
        /// Nothing can be stale yet: this is the first context to register,
        /// before its first read.
        mutating func start(_ store: Store, reading context: Connection) {
            isStarted = true
            do {
                let connection = try watcher ?? store.openWatcherConnection()
                watcher = connection
                func readToken(on reader: Connection) throws {
                    position.reset(to: try ChangeHistory.latestTokenIfKept(connection: reader))
                }
                if store.configuration.foreignDatabase != nil {
                    try connection.withReadSnapshot {
                        attributed = try connection.dataVersion()
                        try readToken(on: connection)
                    }
                } else if store.keepsHistory {
                    attributed = try connection.dataVersion()
                    position.reset(to: try ChangeHistory.latestTokenOfKeptHistory(connection: context))
                } else {
                    attributed = try connection.dataVersion()
                    try context.withReadSnapshot { try readToken(on: context) }
                }
            } catch {
                attributed = nil
                position.reset(to: nil)
            }
        }

        /// What the foreign commits noticed changed, read from the history
        /// after `position`; `attributed` becomes the version of the read.
        /// Nil when the history cannot tell.
        mutating func foreignChanges(_ store: Store) -> [ChangeSet]? {
            guard let watcher else {
                position.reset(to: nil)
                return nil
            }
            let read = ForeignChanges.read(connection: watcher, store: store, position: &position)
            if let version = read.dataVersion { attributed = version }
            return read.changes
        }
    }

    private let subscribers = Locked(Subscribers())
    private let watch = Locked(Watch())
    /// Held by a local commit of a watched store from before BEGIN until
    /// its second watcher read (see above).
    private let commitLock = NSLock()
    private let foreignCommits = Atomic<Int>(0)

    init() {}

    /// How many times a commit of another process was noticed.
    var foreignGeneration: Int { foreignCommits.load(ordering: .acquiring) }

    /// Keeps the connection that opened and checked a server's store as the
    /// watcher, so that the first context does not open one more: a
    /// server's connection costs a round trip or more whatever it is for.
    /// (A SQLite file's opening connection goes to the first context
    /// instead, and the watcher is opened without parsing the schema: see
    /// `Store.openWatcherConnection`.) The watcher only reads, and its
    /// baseline is set when the first context registers, not here. A
    /// connection left inside a transaction or a statement would read an old
    /// snapshot, so it is not adopted (the first context opens a watcher).
    func adoptWatcher(_ connection: Connection) {
        guard connection.isIdle else { return }
        watch.withLock { watch in
            if watch.watcher == nil && !watch.isStarted { watch.watcher = connection }
        }
    }

    /// Whether the watcher connection is open (for tests).
    var hasWatcher: Bool { watch.withLock { $0.watcher != nil } }

    /// Whether SQLite parsed the schema on the watcher (for tests).
    var watcherHasParsedSchema: Bool { watch.withLock { $0.watcher?.hasParsedSchema == true } }

    // MARK: Contexts

    /// Registers a context's inbox; held weakly. For a watched store, opens
    /// the watcher on first use and returns the context's own data_version.
    func register(_ inbox: MergeInbox, connection: Connection, watching: Bool, store: Store) -> Int64? {
        subscribers.withLock { subscribers in
            subscribers.inboxes.removeAll { $0.inbox == nil }
            subscribers.inboxes.append(WeakInbox(inbox: inbox))
        }
        guard watching else { return nil }
        watch.withLock { watch in
            guard !watch.isStarted else { return }
            // What is in the store now is the baseline: no context has
            // read anything yet that a commit before it could make stale.
            watch.start(store, reading: connection)
        }
        return try? connection.dataVersion()
    }

    /// Called at a context's entry point: reads its data_version and, when
    /// it moved since `lastSeen`, finds out whether a foreign commit is
    /// among those behind it (see above). Returns what the foreign commits
    /// it noticed changed (empty when none), of which observers are to be
    /// told, outside any lock.
    func checkStore(connection: Connection, lastSeen: inout Int64?, store: Store) -> [ChangeSet] {
        let current = try? connection.dataVersion()
        guard current == nil || current != lastSeen else { return [] }
        lastSeen = current
        return watch.withLock { watch in
            let now = watch.read(store)
            guard now == nil || now != watch.attributed else { return [] }
            if now != nil, let inFlight = watch.inFlight, inFlight == watch.attributed { return [] }
            watch.attributed = now
            return foreignCommitNoticed(&watch, store: store)
        }
    }

    /// With the watch locked: delivers what the foreign commits noticed
    /// changed to every context's inbox, or, when the history cannot tell,
    /// bumps `foreignGeneration` so that every context reloads what it
    /// holds. Returns the change sets for the observers. Delivered before
    /// the lock is released: a context that then finds everything
    /// accounted for finds the changes in its inbox.
    private func foreignCommitNoticed(_ watch: inout Watch, store: Store) -> [ChangeSet] {
        if let changes = watch.foreignChanges(store) {
            for changeSet in changes { deliver(changeSet, from: nil) }
            return changes
        }
        foreignCommits.add(1, ordering: .releasing)
        return [.invalidatingAll()]
    }

    // MARK: Local commits

    /// A local commit's notes between `beginCommit` and `endCommit`.
    struct LocalCommit {
        let watches: Bool
        var began = false
        var ownVersion: Int64?
        /// The history token the commit recorded, if any: its changes are
        /// in the inboxes, so the history reader leaves it out.
        var historyToken: Int64?
        /// What foreign commits noticed when the transaction began changed.
        var foreign: [ChangeSet] = []
    }

    /// Called before a save or erase begins its transaction.
    func beginCommit(watching: Bool) -> LocalCommit {
        if watching { commitLock.lock() }
        return LocalCommit(watches: watching)
    }

    /// Called first inside the transaction, once it holds the write lock.
    func transactionDidBegin(_ commit: inout LocalCommit, connection: Connection, store: Store) {
        guard commit.watches else { return }
        commit.began = true
        commit.ownVersion = try? connection.dataVersion()
        commit.foreign = watch.withLock { watch in
            let now = watch.read(store)
            let foreign = now == nil || now != watch.attributed
            watch.attributed = now
            // Nobody else can commit now: the history read is exactly the
            // foreign commits before this one.
            let changes = foreign ? foreignCommitNoticed(&watch, store: store) : []
            watch.inFlight = watch.attributed
            return changes
        }
    }

    /// Called after the transaction committed (`changes`) or failed (nil):
    /// hands the changes to every other context's inbox, then accounts for
    /// the commit and lets the next one begin. Returns what the foreign
    /// commits noticed during the commit changed (empty when none), of
    /// which observers are to be told.
    func endCommit(
        _ commit: LocalCommit, changes: ChangeSet?, from sender: MergeInbox?, connection: Connection,
        store: Store
    ) -> [ChangeSet] {
        // Into the inboxes before `attributed` moves past the commit: a
        // context that finds everything accounted for then finds the
        // changes in its inbox too.
        if let changes { deliver(changes, from: sender) }
        guard commit.watches else { return [] }
        defer { commitLock.unlock() }
        guard commit.began else { return [] }
        let noticed = watch.withLock { watch in
            let now = watch.read(store)
            let own = try? connection.dataVersion()
            watch.inFlight = nil
            watch.attributed = now
            // A failed commit's token was rolled back with it, and will be
            // issued again to the next writer.
            if changes != nil, let token = commit.historyToken { watch.position.recordOwn(token) }
            guard now == nil || own == nil || own != commit.ownVersion else { return [ChangeSet]() }
            return foreignCommitNoticed(&watch, store: store)
        }
        return commit.foreign + noticed
    }

    private func deliver(_ changes: ChangeSet, from sender: MergeInbox?) {
        let inboxes = subscribers.withLock { subscribers in
            subscribers.inboxes.removeAll { $0.inbox == nil }
            return subscribers.inboxes.compactMap(\.inbox)
        }
        for inbox in inboxes where inbox !== sender { inbox.post(changes) }
    }

    // MARK: Observers

    /// Adds an observer of every save; returns its key for `removeObserver`.
    func addObserver(_ observer: @escaping @Sendable (StoreChanges) -> Void) -> Int {
        subscribers.withLock { subscribers in
            let key = subscribers.nextObserver
            subscribers.nextObserver += 1
            subscribers.observers[key] = observer
            return key
        }
    }

    func removeObserver(_ key: Int) {
        _ = subscribers.withLock { $0.observers.removeValue(forKey: key) }
    }

    /// Tells every observer; runs them on the caller's thread, outside any lock.
    func notifyObservers(_ changes: StoreChanges) {
        let observers = subscribers.withLock { $0.observers.sorted { $0.key < $1.key }.map(\.value) }
        for observer in observers { observer(changes) }
    }
}

/// A context's thread-safe list of other contexts' saves not yet applied.
///
/// A context that is not used for a long time while others save would hold
/// every change set; past a limit they collapse into one that invalidates
/// everything (the context then reloads what it holds, once).
final class MergeInbox: Sendable {
    private static let limit = 10_000

    private struct Pending {
        var changes: [ChangeSet] = []
        var rows = 0
    }

    private let pending = Locked(Pending())
    private let hasPending = Atomic<Bool>(false)
    /// Called when the inbox receives changes while empty: the main
    /// context's wakes it on the main actor.
    private let wake: (@Sendable () -> Void)?

    init(wake: (@Sendable () -> Void)? = nil) {
        self.wake = wake
    }

    func post(_ changes: ChangeSet) {
        let wasEmpty = pending.withLock { pending in
            let wasEmpty = pending.changes.isEmpty
            pending.rows += changes.inserted.count + changes.updated.count + changes.deleted.count
            if pending.rows > Self.limit || changes.invalidatesAll {
                pending.changes = [.invalidatingAll()]
            } else if pending.changes.first?.invalidatesAll != true {
                pending.changes.append(changes)
            }
            hasPending.store(true, ordering: .releasing)
            return wasEmpty
        }
        if wasEmpty { wake?() }
    }

    /// The change sets received since the last call, oldest first.
    func take() -> [ChangeSet] {
        guard hasPending.load(ordering: .acquiring) else { return [] }
        return pending.withLock { pending in
            hasPending.store(false, ordering: .releasing)
            defer { pending = Pending() }
            return pending.changes
        }
    }
}
