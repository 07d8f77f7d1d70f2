import Foundation
import ModelStore
import Testing

/// The repository's Migrations/ folder: the example app's scripts.
private let migrationsFolder = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appending(path: "Migrations").path(percentEncoded: false)

/// Stores this user cannot write: a read-only file, a read-only folder, a
/// WAL store with and without its `-wal` and `-shm` files. Every read
/// command works on them; every write exits 4 and names what is not
/// writable, and leaves the file as it was.
///
/// The tests run store-tool as an unprivileged user (uid 65534, through
/// `setpriv`) when they run as root, who ignores file permissions.
@Suite("store-tool: read-only stores")
struct ReadOnlyStoreTests {
    /// Every read command, on a store at `path`.
    static func readCommands(_ path: String) -> [[String]] {
        [
            ["info", path, "--format", "table"], ["schema", path], ["schema", path, "--format", "mermaid"],
            ["list", path, "Trip"], ["count", path, "Trip"], ["show", path, "Trip:1", "--depth", "1"],
            ["export", path], ["check", path], ["sql", path, "SELECT name FROM Trip"], ["history", path],
            ["migrate", path, "--status", "--scripts", migrationsFolder], ["snapshots", path],
            ["delete", path, "Trip:1"],  // without --yes: shows the plan, writes nothing
        ]
    }

    /// Every kind of write, on a store at `path`; `export` is a json export
    /// of it in a folder this user can read.
    static func writeCommands(_ path: String, export: String) -> [[String]] {
        [
            ["set", path, "Trip:1", "notes=x"], ["insert", path, "Stop", "title=x"], ["delete", path, "Trip:1", "--yes"],
            ["import", path, export], ["migrate", path, "--scripts", migrationsFolder, "--no-snapshot"],
            ["migrate", path, "--scripts", migrationsFolder], ["history", path, "--prune-before", "2"],
            ["set", path, "Trip:1", "notes=x", "--dry-run"], ["snapshots", path, "--prune"],
        ]
    }

    @Test("a store in a read-only folder, without -wal and -shm files: reads work, read immutable and saying so")
    func readOnlyFolder() throws {
        let fixture = try Fixture()
        #expect(!FileManager.default.fileExists(atPath: fixture.path + "-wal"), "the fixture's container closed its store")
        try ReadOnly.protect(fixture, file: 0o444, folder: 0o555)
        defer { ReadOnly.release(fixture) }
        for arguments in Self.readCommands(fixture.path) {
            let run = try Unprivileged.run(arguments)
            #expect(run.status == 0, "\(arguments): \(run.stderr)")
            // migrate --status and snapshots read through the migration
            // engine, which does not report how it opened the file.
            if !["migrate", "snapshots"].contains(arguments[0]) {
                #expect(run.stderr.contains("immutable: the folder is not writable"), "\(arguments): \(run.stderr)")
            }
        }
        let info = try Unprivileged.run(["info", fixture.path, "--format", "table"])
        #expect(info.stdout.contains("Opened:          read-only (immutable: the folder is not writable)"), "\(info.stdout)")
        #expect(info.stdout.contains("Journal mode:    wal"), "the file's mode, not the immutable connection's: \(info.stdout)")
        #expect(info.stdout.contains("assumes no other process writes the store"), "\(info.stdout)")
        #expect(info.stdout.contains("Trip      3 objects"), "\(info.stdout)")
        // backup reads the store, and writes its copy where this user can.
        let backups = try Fixture(populated: false)
        try ReadOnly.protect(backups, file: 0o644, folder: 0o777)
        defer { ReadOnly.release(backups) }
        let backup = try Unprivileged.run(["backup", fixture.path, backups.file("copy.store")])
        #expect(backup.status == 0, "\(backup.stderr)")
        #expect(try Fixture.runTool(["count", backups.file("copy.store"), "Trip"]).stdout.contains("3"))
        let json = try Unprivileged.run(["info", fixture.path, "--format", "json"])
        #expect(json.stdout.contains("\"immutable\":\"the folder is not writable\""), "\(json.stdout)")
        #expect(try Unprivileged.run(["list", fixture.path, "Trip", "--fields", "name", "--format", "csv"]).lines.count == 4)
    }

    @Test("a read-only file in a writable folder: reads work as usual, not immutable")
    func readOnlyFileInWritableFolder() throws {
        let fixture = try Fixture()
        try ReadOnly.protect(fixture, file: 0o444, folder: 0o777)
        defer { ReadOnly.release(fixture) }
        for arguments in Self.readCommands(fixture.path) {
            let run = try Unprivileged.run(arguments)
            #expect(run.status == 0, "\(arguments): \(run.stderr)")
            #expect(!run.stderr.contains("immutable"), "\(arguments): \(run.stderr)")
        }
        #expect(try Unprivileged.run(["info", fixture.path, "--format", "table"]).stdout.contains("Opened:          read-only"))
    }

    @Test(
        "every write to a store this user cannot write exits 4, names the file or folder, and changes nothing",
        arguments: [(0o444, 0o555, "the file is not writable"), (0o444, 0o777, "the file is not writable"), (0o666, 0o555, "its folder")])
    func writesAreRefused(file: Int, folder: Int, mentions: String) throws {
        let fixture = try Fixture()
        let export = fixture.file("trips.json")
        #expect(try fixture.run("export", fixture.path, "--output", export).status == 0)
        try ReadOnly.protect(fixture, file: file, folder: folder)
        defer { ReadOnly.release(fixture) }
        let before = try Data(contentsOf: fixture.store)
        for arguments in Self.writeCommands(fixture.path, export: export) {
            let run = try Unprivileged.run(arguments)
            #expect(run.status == 4, "\(arguments): \(run.stderr)")
            #expect(run.stderr.contains("not writable by this user"), "\(arguments): \(run.stderr)")
            #expect(run.stderr.contains(mentions), "\(arguments): \(run.stderr)")
            #expect(!run.stderr.contains("attempt to write a readonly database"), "\(arguments): \(run.stderr)")
        }
        #expect(try Data(contentsOf: fixture.store) == before)
    }

    @Test("a WAL store whose -wal holds changes, with its -wal and -shm, in a read-only folder: reads see the changes")
    func walAndShmPresent() throws {
        let (fixture, copy) = try Self.copyWithPendingLog(keeping: ["-wal", "-shm"])
        defer { ReadOnly.release(copy) }
        try ReadOnly.protect(copy, file: 0o444, folder: 0o555, journalFiles: 0o444)
        let list = try Unprivileged.run(["list", copy.path, "Trip", "--fields", "name", "--format", "csv"])
        #expect(list.status == 0, "\(list.stderr)")
        #expect(list.stdout.contains("Lima"), "the change in the -wal is read: \(list.stdout)")
        #expect(!list.stderr.contains("immutable"), "\(list.stderr)")
        _ = fixture
    }

    @Test("a -wal that holds changes without its -shm, in a read-only folder, exits 4 instead of showing the store without them")
    func walWithoutShm() throws {
        let (fixture, copy) = try Self.copyWithPendingLog(keeping: ["-wal"])
        defer { ReadOnly.release(copy) }
        try ReadOnly.protect(copy, file: 0o444, folder: 0o555, journalFiles: 0o444)
        for arguments in [["list", copy.path, "Trip"], ["info", copy.path]] {
            let run = try Unprivileged.run(arguments)
            #expect(run.status == 4, "\(arguments): \(run.stdout) \(run.stderr)")
            #expect(run.stderr.contains("write-ahead log"), "\(arguments): \(run.stderr)")
            #expect(run.stderr.contains("holds changes that are not in the file yet"), "\(arguments): \(run.stderr)")
        }
        _ = fixture
    }

    @Test("a left-over -shm this user cannot write, without a -wal, in a read-only folder: reads work, immutable")
    func leftOverShm() throws {
        let (fixture, copy) = try Self.copyWithPendingLog(keeping: ["-shm"], checkpointed: true)
        defer { ReadOnly.release(copy) }
        try ReadOnly.protect(copy, file: 0o444, folder: 0o555, journalFiles: 0o444)
        let list = try Unprivileged.run(["list", copy.path, "Trip", "--fields", "name", "--format", "csv"])
        #expect(list.status == 0, "\(list.stderr)")
        #expect(list.stdout.contains("Lima"), "\(list.stdout)")
        #expect(list.stderr.contains("immutable"), "\(list.stderr)")
        _ = fixture
    }

    /// A copy of a fixture store, made while a connection that renamed
    /// Trip:1 to Lima still has it open, so that the rename is in the
    /// copy's `-wal` and not (unless `checkpointed`) in its file; the copy
    /// keeps the store's files with the suffixes given.
    static func copyWithPendingLog(keeping suffixes: [String], checkpointed: Bool = false) throws -> (Fixture, Fixture) {
        let fixture = try Fixture()
        let copy = try Fixture(populated: false)
        let writer = try Connection(location: fixture.path, mode: .readWrite)
        try writer.execute("PRAGMA wal_autocheckpoint = 0")
        try writer.execute("UPDATE Trip SET name = 'Lima' WHERE rowid = 1")
        if checkpointed { try writer.execute("PRAGMA wal_checkpoint(TRUNCATE)") }
        let manager = FileManager.default
        for suffix in ["", "-wal", "-shm"] { try? manager.removeItem(atPath: copy.path + suffix) }
        for suffix in [""] + suffixes {
            try manager.copyItem(atPath: fixture.path + suffix, toPath: copy.path + suffix)
        }
        if !checkpointed {
            let size = try #require(try manager.attributesOfItem(atPath: fixture.path + "-wal")[.size] as? NSNumber)
            #expect(size.int64Value > 32, "the rename is in the -wal")
        }
        withExtendedLifetime(writer) {}
        return (fixture, copy)
    }
}

/// Permissions that make a fixture's store read-only for the unprivileged user.
enum ReadOnly {
    static func protect(_ fixture: Fixture, file: Int, folder: Int, journalFiles: Int? = nil) throws {
        let manager = FileManager.default
        try manager.setAttributes([.posixPermissions: file], ofItemAtPath: fixture.path)
        if let journalFiles {
            for suffix in ["-wal", "-shm"] where manager.fileExists(atPath: fixture.path + suffix) {
                try manager.setAttributes([.posixPermissions: journalFiles], ofItemAtPath: fixture.path + suffix)
            }
        }
        try manager.setAttributes([.posixPermissions: folder], ofItemAtPath: fixture.folder.path(percentEncoded: false))
    }

    /// Gives the folder back to the test process, which removes it at exit.
    static func release(_ fixture: Fixture) {
        try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: fixture.folder.path(percentEncoded: false))
    }
}

/// Runs store-tool as a user for whom file permissions count: as uid and
/// gid 65534 (through `setpriv`) when the tests run as root, as the test's
/// own user otherwise.
enum Unprivileged {
    static let unprivilegedID = "65534"

    static func run(_ arguments: [String]) throws -> ToolRun {
        guard getuid() == 0 else { return try Fixture.runTool(arguments) }
        let setpriv = try #require(
            ["/usr/bin/setpriv", "/bin/setpriv"].first { FileManager.default.isExecutableFile(atPath: $0) },
            "these tests run as root, who ignores file permissions: they need setpriv (util-linux) to run store-tool as uid 65534")
        let binary = try #require(binaryPath, "store-tool must be built next to the tests, and copied where uid 65534 can run it")
        return try Fixture.runProcess(
            URL(filePath: setpriv), ["--reuid=\(unprivilegedID)", "--regid=\(unprivilegedID)", "--clear-groups", binary] + arguments)
    }

    /// store-tool where uid 65534 can run it: the built binary when every
    /// folder above it lets others in, else a copy in the tests' folder
    /// (made once); nil when neither works.
    static let binaryPath: String? = {
        guard let built = storeToolBinary else { return nil }
        if isReachableByOthers(built) { return built.path(percentEncoded: false) }
        let folder = testRoot.appending(path: "unprivileged-bin")
        let copy = folder.appending(path: "store-tool")
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: built, to: copy)
        } catch {
            return nil
        }
        return copy.path(percentEncoded: false)
    }()

    /// True when others may execute `file` and enter every folder above it.
    private static func isReachableByOthers(_ file: URL) -> Bool {
        var path = file.path(percentEncoded: false)
        while true {
            guard let mode = (try? FileManager.default.attributesOfItem(atPath: path))?[.posixPermissions] as? Int,
                mode & 0o001 != 0
            else { return false }
            if path == "/" { return true }
            path = (path as NSString).deletingLastPathComponent
        }
    }
}
