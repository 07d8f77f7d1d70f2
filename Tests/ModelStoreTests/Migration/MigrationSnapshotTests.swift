import Foundation
import Testing
@testable import ModelStore

/// Migration snapshots: a killed migration's snapshot never piles up or
/// gets relied on, a failed one's is removed, and removal waits for the
/// store's write lock. (What several script migrations leave, pruning and
/// the listing are in ModelStoreScriptsTests' ScriptSnapshotTests.)
@Suite("Migration snapshots")
struct MigrationSnapshotTests {
    /// Opens the example store with version 1.1 (an inferred migration of
    /// three table operations), snapshots on.
    @discardableResult
    private func openV11(_ url: URL, kept: Int? = 3, failsBeforeStep: Int? = nil, killed: Bool = false) throws -> ModelContainer {
        var configuration = migrationConfiguration(url, snapshot: true)
        configuration.migrationOptions.keptSnapshots = kept
        configuration.migrationOptions.failsBeforeStep = failsBeforeStep
        configuration.migrationOptions.simulatesKill = killed
        return try ModelContainer(for: ExampleV11.schema, configurations: [configuration])
    }

    // MARK: Killed and failed migrations

    @Test("A migration killed after its snapshot leaves it unrecorded with its marker; the next open removes both and records its own")
    func killedAfterSnapshot() throws {
        let url = try makeExampleV1Store()
        let file = StoreFile(url: url)
        let before = try file.everything()
        #expect(throws: ModelStoreError.self) { try openV11(url, failsBeforeStep: 1, killed: true) }
        // The store is wholly old; the snapshot is complete but unrecorded.
        #expect(try file.everything() == before)
        let orphans = try snapshotNames(url)
        #expect(orphans.count == 1)
        #expect(try leftovers(url) == orphans + orphans.map { $0 + SnapshotFolder.markerSuffix })
        #expect(try recordedSnapshots(url).isEmpty)

        try openV11(url)
        let names = try snapshotNames(url)
        #expect(try leftovers(url) == names, "no marker or partial copy is left")
        #expect(names.count == 1 && names != orphans, "the orphan is gone, the new snapshot is there")
        #expect(try recordedSnapshots(url).map { URL(filePath: $0).lastPathComponent } == names)
        #expect(try file.metadata("schemaVersion") == .text("1.1.0"))
        let snapshot = StoreFile(url: url.deletingLastPathComponent().appending(path: names[0]))
        #expect(try snapshot.metadata("schemaVersion") == .text("1.0.0"))
        #expect(try snapshot.rows("SELECT name FROM Trip ORDER BY _pk") == file.rows("SELECT name FROM Trip ORDER BY _pk"))
    }

    @Test("Repeated kills never leave more than one orphan, and the store is always wholly old until a migration completes")
    func repeatedKills() throws {
        let url = try makeExampleV1Store()
        let file = StoreFile(url: url)
        let before = try file.everything()
        for step in [0, 1, 2, 0, 2, 1] {
            #expect(throws: ModelStoreError.self) { try openV11(url, failsBeforeStep: step, killed: true) }
            #expect(try file.everything() == before, "killed before step \(step)")
            #expect(try snapshotNames(url).count == 1, "killed before step \(step)")
        }
        try openV11(url)
        #expect(try snapshotNames(url).count == 1)
        #expect(try leftovers(url) == snapshotNames(url))
        #expect(try recordedSnapshots(url).count == 1)
    }

    @Test("A migration that fails (not killed) removes the snapshot it took: the store is what it holds")
    func failedMigrationRemovesItsSnapshot() throws {
        let url = try makeExampleV1Store()
        let file = StoreFile(url: url)
        let before = try file.everything()
        #expect(throws: ModelStoreError.self) { try openV11(url, failsBeforeStep: 2) }
        #expect(try file.everything() == before)
        #expect(try leftovers(url).isEmpty)
    }

    @Test("Removing snapshots waits for the store's write lock, then fails cleanly: a running migration's snapshot stays")
    func removalTakesTheWriteLock() throws {
        let url = try makeExampleV1Store()
        #expect(throws: ModelStoreError.self) { try openV11(url, failsBeforeStep: 0, killed: true) }
        let orphan = try #require(try snapshotNames(url).first)
        let blocker = try Connection(location: url.path(percentEncoded: false), mode: .readWrite)
        try blocker.execute("BEGIN IMMEDIATE")
        var options = MigrationOptions()
        options.busyTimeout = .milliseconds(50)
        let migrator = try StoreMigrator(storeAt: url, options: options)
        #expect(throws: SQLiteError.self) { try migrator.pruneSnapshots(keeping: 3) }
        #expect(try snapshotNames(url) == [orphan])
        try blocker.execute("ROLLBACK")
        #expect(try migrator.pruneSnapshots(keeping: 3).map(\.state) == [.unfinished])
        #expect(try leftovers(url).isEmpty)
    }
}
