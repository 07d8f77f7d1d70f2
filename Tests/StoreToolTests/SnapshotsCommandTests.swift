import Foundation
import Testing
@testable import ModelStore
@testable import ModelStoreDynamic

@Suite("store-tool: snapshots")
struct SnapshotsCommandTests {
    /// A store with two recorded snapshots (two migrations of one data
    /// script each) and what a killed migration left: a marker and a
    /// partial copy. Returns the recorded snapshots' paths, oldest first.
    private func storeWithSnapshots(_ fixture: Fixture) throws -> [String] {
        let scripts = fixture.folder.appending(path: "Scripts")
        try FileManager.default.createDirectory(at: scripts, withIntermediateDirectories: true)
        for number in 1...2 {
            try "UPDATE \"Trip\" SET \"destination\" = 'D\(number)' WHERE \"name\" = 'Lisbon';"
                .write(to: scripts.appending(path: "000\(number)_step.sql"), atomically: true, encoding: .utf8)
        }
        var paths: [String] = []
        for version in ["0001", "0002"] {
            let run = try fixture.run("migrate", fixture.path, "--scripts", scripts.path(percentEncoded: false), "--to", version)
            #expect(run.status == 0, "\(run.stderr)")
            let line = try #require(run.lines.first { $0.hasPrefix("Snapshot: ") })
            paths.append(String(line.dropFirst("Snapshot: ".count)))
        }
        let killed = fixture.file("trips-before-migration-2020-01-01T00-00-00Z.store")
        let identifier = try DynamicStore(path: fixture.path).storeIdentifier
        let marker = SnapshotFolder.Marker(store: fixture.path, storeIdentifier: identifier, created: Date())
        try JSONEncoder().encode(marker).write(to: URL(filePath: killed + SnapshotFolder.markerSuffix))
        try Data(repeating: 0, count: 512).write(to: URL(filePath: killed + SnapshotFolder.partialSuffix))
        return paths
    }

    private func exists(_ path: String) -> Bool { FileManager.default.fileExists(atPath: path) }

    @Test("lists every snapshot with its state, size, time, path and migrations, as text and JSON")
    func list() throws {
        let fixture = try Fixture()
        let recorded = try storeWithSnapshots(fixture)
        let run = try fixture.run("snapshots", fixture.path)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.lines.count == 3, "\(run.stdout)")
        #expect(run.lines[0].hasPrefix("recorded") && run.lines[0].contains(recorded[0]) && run.lines[0].hasSuffix("0001_step.sql"))
        #expect(run.lines[1].hasPrefix("recorded") && run.lines[1].contains(recorded[1]) && run.lines[1].contains(" bytes"))
        #expect(run.lines[2].hasPrefix("unfinished") && run.lines[2].contains(".store.partial"))

        let json = try fixture.run("snapshots", fixture.path, "--format", "json")
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        let snapshots = try decoder.decode([MigrationSnapshot].self, from: Data(json.stdout.utf8))
        #expect(snapshots.map(\.state) == [.recorded, .recorded, .unfinished])
        #expect(snapshots.map(\.migrations) == [["0001_step.sql"], ["0002_step.sql"], []])

        let empty = try Fixture()
        #expect(try empty.run("snapshots", empty.path).stdout.contains("No snapshots"))
    }

    @Test("--prune removes the unfinished snapshot and the recorded ones beyond --keep; --dry-run removes nothing")
    func prune() throws {
        let fixture = try Fixture()
        let recorded = try storeWithSnapshots(fixture)
        let partial = fixture.file("trips-before-migration-2020-01-01T00-00-00Z.store.partial")
        let dryRun = try fixture.run("snapshots", fixture.path, "--prune", "--keep", "1", "--dry-run")
        #expect(dryRun.status == 0, "\(dryRun.stderr)")
        #expect(dryRun.lines == ["would remove recorded \(recorded[0])", "would remove unfinished \(partial)", "dry run: nothing was removed"])
        #expect(exists(recorded[0]) && exists(partial))

        let run = try fixture.run("snapshots", fixture.path, "--prune", "--keep", "1")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(!exists(recorded[0]) && !exists(partial) && exists(recorded[1]))
        #expect(!exists(fixture.file("trips-before-migration-2020-01-01T00-00-00Z.store.pending")))
        let after = try fixture.run("snapshots", fixture.path)
        #expect(after.lines.map { String($0.prefix { $0 != " " }) } == ["missing", "recorded"])
    }

    @Test("--remove removes the snapshots named; a path that is not one is bad input and removes nothing")
    func remove() throws {
        let fixture = try Fixture()
        let recorded = try storeWithSnapshots(fixture)
        let bad = try fixture.run("snapshots", fixture.path, "--remove", recorded[0], fixture.path)
        #expect(bad.status == 2)
        #expect(bad.stderr.contains("\(fixture.path) is not a migration snapshot"), "\(bad.stderr)")
        #expect(exists(recorded[0]) && exists(fixture.path))

        let run = try fixture.run("snapshots", fixture.path, "--remove", recorded[0])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.lines == ["removed recorded \(recorded[0])"])
        #expect(!exists(recorded[0]) && exists(recorded[1]))
    }

    @Test("a store locked by another process is waited for, then reported with exit code 6; bad options are usage errors")
    func lockedAndUsage() throws {
        let fixture = try Fixture()
        let recorded = try storeWithSnapshots(fixture)
        let blocker = try Connection(location: fixture.path, mode: .readWrite)
        try blocker.execute("BEGIN IMMEDIATE")
        let locked = try fixture.run("snapshots", fixture.path, "--remove", recorded[0], "--wait", "0.1")
        try blocker.execute("ROLLBACK")
        #expect(locked.status == 6, "\(locked.stderr)")
        #expect(exists(recorded[0]))
        #expect(try fixture.run("snapshots", fixture.path, "--keep", "1").status == 64)
        #expect(try fixture.run("snapshots", fixture.path, "--prune", "--remove", recorded[0]).status == 64)
        #expect(try fixture.run("snapshots", fixture.file("none.store")).status == 4)
    }
}
