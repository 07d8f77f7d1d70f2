import Foundation
import ModelStore
import Testing
@testable import ModelStore

/// The files a command writes (`export --output`, `backup`'s copy) can never
/// be the store, and appear whole or not at all.
@Suite("store-tool: output files are never the store, and appear whole or not at all")
struct OutputSafetyTests {
    /// Every way to name the store, its -wal and its -shm that a careless
    /// command line might use, made in the fixture's folder.
    func aliases(of fixture: Fixture) throws -> [(name: String, mentions: String)] {
        let manager = FileManager.default
        try manager.createSymbolicLink(atPath: fixture.file("link.store"), withDestinationPath: "trips.store")
        try manager.createSymbolicLink(atPath: fixture.file("link-to-link"), withDestinationPath: fixture.file("link.store"))
        try manager.linkItem(atPath: fixture.path, toPath: fixture.file("hard.store"))
        try manager.createDirectory(atPath: fixture.file("sub"), withIntermediateDirectories: false)
        // A link to the -wal, which SQLite may not have made yet.
        try manager.createSymbolicLink(atPath: fixture.file("wal-link"), withDestinationPath: fixture.path + "-wal")
        return [
            (fixture.path, "is the store"), (fixture.file("link.store"), "the same file by another name"),
            (fixture.file("link-to-link"), "the same file by another name"), (fixture.file("hard.store"), "the same file by another name"),
            (fixture.file("sub") + "/../trips.store", "the same file by another name"), (fixture.path + "-wal", "write-ahead log"),
            (fixture.path + "-shm", "shared-memory index"), (fixture.file("wal-link"), "write-ahead log"),
        ]
    }

    @Test("export --output and backup refuse the store, its -wal and -shm under any name, naming both; the store is unchanged")
    func refusesTheStore() throws {
        let fixture = try Fixture()
        let before = try StoreFiles(fixture)
        // First, while no -wal exists yet (every refusal comes before the
        // store is opened): the store named through a link, whose -wal is
        // beside the file the link names.
        #expect(!FileManager.default.fileExists(atPath: fixture.path + "-wal"))
        let cases = try [(store: fixture.file("link.store"), name: fixture.path + "-wal", mentions: "write-ahead log")]
            + aliases(of: fixture).map { (store: fixture.path, name: $0.name, mentions: $0.mentions) }
        for (store, name, mentions) in cases {
            for arguments in [
                ["export", store, "--output", name], ["export", store, "Stop", "--format", "csv", "--output", name],
                ["backup", store, name], ["backup", store, name, "--dry-run"],
            ] {
                let run = try fixture.runTool(arguments)
                #expect(run.status == 2, "\(arguments): \(run.stderr)")
                #expect(run.stderr.contains(mentions) && run.stderr.contains(name) && run.stderr.contains(store), "\(run.stderr)")
                #expect(run.stderr.contains("would destroy the store"), "\(run.stderr)")
            }
        }
        #expect(try StoreFiles(fixture) == before)
        #expect(try fixture.run("check", fixture.path).status == 0)
        #expect(try fixture.trips().count == 3)
    }

    @Test("a failed export leaves an existing output file as it was and no temporary file; a good one replaces it, keeping its mode")
    func replacesOnlyOnSuccess() throws {
        let fixture = try Fixture()
        let output = fixture.file("trips.json")
        try Data("old export\n".utf8).write(to: URL(filePath: output))
        try FileManager.default.setAttributes([.posixPermissions: 0o640], ofItemAtPath: output)
        // A table gone from under the store fails the export (a JSON export
        // after its opening lines). A value that does not fit its type no
        // longer does: it is exported as a marker (UnreadableValueTests).
        let connection = try Connection(location: fixture.path, mode: .readWrite)
        try connection.execute(#"ALTER TABLE "Stop" RENAME TO "StopAway""#)
        for format in ["json", "jsonl"] {
            let failed = try fixture.run("export", fixture.path, "Trip", "--format", format, "--output", output)
            #expect(failed.status == 8, "\(failed.stderr)")
            #expect(failed.stderr.contains("no such table: Stop"), "\(failed.stderr)")
            #expect(try String(contentsOfFile: output, encoding: .utf8) == "old export\n")
        }
        try connection.execute(#"ALTER TABLE "StopAway" RENAME TO "Stop""#)
        let good = try fixture.run("export", fixture.path, "--output", output)
        #expect(good.status == 0, "\(good.stderr)")
        #expect(try String(contentsOfFile: output, encoding: .utf8).hasPrefix("{\"format\":\"modelstore-export\""))
        let mode = try FileManager.default.attributesOfItem(atPath: output)[.posixPermissions] as? NSNumber
        #expect(mode?.intValue == 0o640)
        #expect(try FileManager.default.contentsOfDirectory(atPath: fixture.folder.path(percentEncoded: false)).filter { $0.hasPrefix(".") } == [])
    }

    @Test("export --output through a symbolic link replaces the file it names and keeps the link")
    func followsLinks() throws {
        let fixture = try Fixture()
        try Data("old\n".utf8).write(to: URL(filePath: fixture.file("real.csv")))
        try FileManager.default.createSymbolicLink(atPath: fixture.file("alias.csv"), withDestinationPath: "real.csv")
        let run = try fixture.run("export", fixture.path, "Stop", "--format", "csv", "--output", fixture.file("alias.csv"))
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: fixture.file("alias.csv")) == "real.csv")
        #expect(try String(contentsOfFile: fixture.file("real.csv"), encoding: .utf8).hasPrefix("id,title,trip\n"))
        // A device is written in place: /dev/null stays /dev/null.
        let null = try fixture.run("export", fixture.path, "--output", "/dev/null")
        #expect(null.status == 0, "\(null.stderr)")
        var info = stat()
        #expect(stat("/dev/null", &info) == 0 && (info.st_mode & S_IFMT) == S_IFCHR)
    }

    @Test("an output file that cannot be written exits 9, names the file and leaves nothing")
    func cannotWrite() throws {
        let fixture = try Fixture()
        let before = try StoreFiles(fixture)
        let missing = fixture.file("no/such/folder/out.json")
        let cases: [(arguments: [String], mentions: String)] = [
            (["export", fixture.path, "--output", missing], missing),
            (["export", fixture.path, "--output", fixture.folder.path(percentEncoded: false)], "folder"),
            (["backup", fixture.path, missing], missing),
            (["backup", fixture.path, missing, "--dry-run"], missing),
        ]
        for (arguments, mentions) in cases {
            let run = try fixture.runTool(arguments)
            #expect(run.status == 9, "\(arguments): \(run.stderr)")
            #expect(run.stderr.hasPrefix("store-tool: error: cannot write ") && run.stderr.contains(mentions), "\(run.stderr)")
        }
        let copy = fixture.file("copy.store")
        #expect(try fixture.run("backup", fixture.path, copy).status == 0)
        let again = try fixture.run("backup", fixture.path, copy)
        #expect(again.status == 9 && again.stderr.contains("already exists"), "\(again.stderr)")
        #expect(try StoreFiles(fixture) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: fixture.folder.path(percentEncoded: false)).filter { $0.hasPrefix(".") } == [])
    }
}

/// The bytes of a store's file and of its write-ahead log (the -shm is
/// shared memory that readers write their read marks into: not compared).
/// An empty log is no log: a reader may make an empty one.
struct StoreFiles: Equatable {
    let store: Data
    let wal: Data?

    init(_ fixture: Fixture) throws { try self.init(path: fixture.path) }

    init(path: String) throws {
        store = try Data(contentsOf: URL(filePath: path))
        wal = FileManager.default.contents(atPath: path + "-wal").flatMap { $0.isEmpty ? nil : $0 }
    }
}
