import Foundation
import Testing
@testable import ModelStore
import ModelStoreScripts

/// Migration snapshots across several script migrations: what killed runs
/// leave is cleaned up, old snapshots are pruned by the documented rule, and
/// the listing and removal that store-tool uses.
@Suite("Migration snapshots taken by script migrations")
struct ScriptSnapshotTests {
    @Test("What killed runs leave at each point is cleaned up by the next migration; nothing else is touched")
    func handMadeLeftovers() throws {
        let url = try makeExampleV1Store()
        let folder = url.deletingLastPathComponent()
        func path(_ name: String) -> String { folder.appending(path: name).path(percentEncoded: false) }
        let scripts = try copyOfMigrations()
        var options = MigrationOptions()
        options.keptSnapshots = nil
        // A: recorded by a migration that was killed after its commit, before
        // it removed its marker.
        let first = try StoreMigrator(storeAt: url, scriptsFolder: scripts, options: options).apply(to: "0001")
        let a = try #require(first.snapshotPath)
        let id = try storeIdentifier(url)
        try writeSnapshotMarker(a, identifier: id)
        // B: killed while copying: a marker and a partial copy cut short.
        let b = path(snapshotPrefix + "2020-01-01T00-00-00Z.store")
        try writeSnapshotMarker(b, identifier: id)
        try Data(repeating: 7, count: 1_000).write(to: URL(filePath: b + SnapshotFolder.partialSuffix))
        // C: killed after the copy was renamed, before the commit.
        let c = path(snapshotPrefix + "2020-01-02T00-00-00Z.store")
        try writeSnapshotMarker(c, identifier: id)
        try StoreFile(url: url).copy(to: URL(filePath: c))
        // D: killed just after writing the marker.
        let d = path(snapshotPrefix + "2020-01-03T00-00-00Z.store")
        try writeSnapshotMarker(d, identifier: id)
        // Not this store's, or not a killed run's: left alone.
        let other = path("other-before-migration-2020-01-01T00-00-00Z.store")
        try writeSnapshotMarker(other, identifier: id)
        try StoreFile(url: url).copy(to: URL(filePath: other))
        let sameName = path(snapshotPrefix + "2020-01-04T00-00-00Z.store")
        try writeSnapshotMarker(sameName, identifier: "another store of the same name")
        try StoreFile(url: url).copy(to: URL(filePath: sameName))
        let legacy = path(snapshotPrefix + "2020-01-05T00-00-00Z.store")
        try StoreFile(url: url).copy(to: URL(filePath: legacy))
        let untouched = [other, other + SnapshotFolder.markerSuffix, sameName, sameName + SnapshotFolder.markerSuffix, legacy]

        let second = try StoreMigrator(storeAt: url, scriptsFolder: scripts, options: options).apply()
        let g = try #require(second.snapshotPath)
        let expected = ([a, g] + untouched).map { URL(filePath: $0).lastPathComponent }.sorted()
        #expect(try leftovers(url) == expected)
        #expect(try recordedSnapshots(url) == [a, g])
        #expect(try StoreFile(url: url).rows("SELECT version FROM _modelstore_migrations WHERE kind = 'script' ORDER BY id")
            == [[.text("0001")], [.text("0002")]])
    }

    // MARK: Pruning

    /// A folder of `count` scripts that each change one row.
    private func dataScripts(_ count: Int) throws -> URL {
        let folder = try TemporaryDirectory().url.appending(path: "Scripts")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for number in 1...count {
            let name = String(format: "%04d_step.sql", number)
            try "UPDATE \"Trip\" SET \"destination\" = 'D\(number)' WHERE \"name\" = 'Lisbon';"
                .write(to: folder.appending(path: name), atomically: true, encoding: .utf8)
        }
        return folder
    }

    @Test("After each migration, the newest keptSnapshots recorded snapshots stay and older ones go", arguments: [1, 2, 3, nil])
    func pruning(kept: Int?) throws {
        let url = try makeExampleV1Store()
        let scripts = try dataScripts(5)
        var options = MigrationOptions()
        if let kept { options.keptSnapshots = kept }
        for number in 1...5 {
            try StoreMigrator(storeAt: url, scriptsFolder: scripts, options: options).apply(to: String(format: "%04d", number))
        }
        let all = try recordedSnapshots(url)
        #expect(all.count == 5, "the history keeps every snapshot's path")
        let keep = kept ?? 3
        #expect(try snapshotNames(url) == all.suffix(keep).map { URL(filePath: $0).lastPathComponent }.sorted())
        #expect(try leftovers(url) == snapshotNames(url))
    }

    @Test("keptSnapshots nil keeps every snapshot; a value below 1 keeps the one just taken")
    func pruningLimits() throws {
        let url = try makeExampleV1Store()
        let scripts = try dataScripts(3)
        var options = MigrationOptions()
        options.keptSnapshots = nil
        try StoreMigrator(storeAt: url, scriptsFolder: scripts, options: options).apply(to: "0001")
        try StoreMigrator(storeAt: url, scriptsFolder: scripts, options: options).apply(to: "0002")
        #expect(try snapshotNames(url).count == 2)
        options.keptSnapshots = 0
        let result = try StoreMigrator(storeAt: url, scriptsFolder: scripts, options: options).apply()
        #expect(try snapshotNames(url) == [try #require(result.snapshotPath.map { URL(filePath: $0).lastPathComponent })])
    }

    @Test("Pruning removes only files in the snapshot folder named after the store, whatever the history names")
    func pruningIgnoresForeignPaths() throws {
        let url = try makeExampleV1Store()
        let folder = url.deletingLastPathComponent()
        let elsewhere = try TemporaryDirectory().url
        let precious = folder.appending(path: "precious.txt")
        let foreign = elsewhere.appending(path: snapshotPrefix + "2020-01-01T00-00-00Z.store")
        for file in [precious, foreign] { try Data("keep".utf8).write(to: file) }
        for target in [precious, foreign, folder.appending(path: "../" + folder.lastPathComponent + "/precious.txt")] {
            try StoreFile(url: url).execute(
                "INSERT INTO _modelstore_migrations (name, kind, fingerprintBefore, fingerprintAfter, appliedAt, duration, snapshot) "
                    + "VALUES ('hostile', 'script', 'x', 'x', 0, 0, '\(target.path(percentEncoded: false))')")
        }
        var options = MigrationOptions()
        options.keptSnapshots = 1
        try StoreMigrator(storeAt: url, scriptsFolder: try dataScripts(2), options: options).apply()
        #expect(FileManager.default.fileExists(atPath: precious.path(percentEncoded: false)))
        #expect(FileManager.default.fileExists(atPath: foreign.path(percentEncoded: false)))
        #expect(try snapshotNames(url).count == 1)
    }

    // MARK: Listing and removing (store-tool's API)

    @Test("snapshots() tells recorded, missing, unfinished, unrecorded and damaged snapshots apart, and leaves other stores' out")
    func listing() throws {
        let url = try makeExampleV1Store()
        let folder = url.deletingLastPathComponent()
        func path(_ name: String) -> String { folder.appending(path: name).path(percentEncoded: false) }
        var options = MigrationOptions()
        options.keptSnapshots = nil
        let scripts = try dataScripts(2)
        let first = try #require(try StoreMigrator(storeAt: url, scriptsFolder: scripts, options: options).apply(to: "0001").snapshotPath)
        let second = try #require(try StoreMigrator(storeAt: url, scriptsFolder: scripts, options: options).apply().snapshotPath)
        try FileManager.default.removeItem(atPath: first)
        let id = try storeIdentifier(url)
        let partial = path(snapshotPrefix + "2020-01-01T00-00-00Z.store")
        try writeSnapshotMarker(partial, identifier: id)
        try Data(repeating: 1, count: 100).write(to: URL(filePath: partial + SnapshotFolder.partialSuffix))
        let unrecorded = path(snapshotPrefix + "2020-01-02T00-00-00Z.store")
        try StoreFile(url: url).copy(to: URL(filePath: unrecorded))
        // A copy cut short before copies were written under a temporary name.
        let damaged = path(snapshotPrefix + "2020-01-03T00-00-00Z.store")
        let whole = try Data(contentsOf: URL(filePath: unrecorded))
        try whole.prefix(whole.count / 2).write(to: URL(filePath: damaged))
        let otherStore = try makeExampleV1Store()
        try StoreFile(url: otherStore).copy(to: URL(filePath: path(snapshotPrefix + "2020-01-04T00-00-00Z.store")))

        let migrator = try StoreMigrator(storeAt: url)
        let listed = try migrator.snapshots()
        #expect(listed.map(\.state) == [.missing, .recorded, .unfinished, .unrecorded, .damaged])
        #expect(listed.map(\.path) == [first, second, partial + SnapshotFolder.partialSuffix, unrecorded, damaged])
        #expect(listed[0].migrations == ["0001_step.sql"] && listed[1].migrations == ["0002_step.sql"])
        #expect(listed[0].size == nil && listed[1].size ?? 0 > 0)

        // Removing by path: only what is listed, and nothing when one is not.
        #expect(throws: ModelStoreError.notASnapshot(path: url.path(percentEncoded: false), store: url.path(percentEncoded: false))) {
            try migrator.removeSnapshots([unrecorded, url.path(percentEncoded: false)])
        }
        #expect(FileManager.default.fileExists(atPath: unrecorded))
        #expect(try migrator.removeSnapshots([unrecorded], dryRun: true).map(\.path) == [unrecorded])
        #expect(FileManager.default.fileExists(atPath: unrecorded))
        #expect(try migrator.removeSnapshots([unrecorded]).map(\.state) == [.unrecorded])
        #expect(!FileManager.default.fileExists(atPath: unrecorded))

        // Pruning: unfinished and damaged go, the newest recorded one stays.
        let pruned = try migrator.pruneSnapshots(keeping: 1)
        #expect(pruned.map(\.state) == [.unfinished, .damaged])
        #expect(try migrator.snapshots().map(\.state) == [.missing, .recorded])
        try StoreFile(url: url).copy(to: URL(filePath: unrecorded))
        #expect(try migrator.pruneSnapshots(keeping: 1).isEmpty, "unrecorded snapshots go only when asked for")
        #expect(try migrator.pruneSnapshots(keeping: 0, includingUnrecorded: true).map(\.state) == [.recorded, .unrecorded])
        // The other store's copy is neither listed nor removed.
        #expect(try leftovers(url) == [snapshotPrefix + "2020-01-04T00-00-00Z.store"])
    }
}
