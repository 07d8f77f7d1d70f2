import Foundation
import ModelStore
import Testing

/// The repository's Migrations/ folder: the example app's scripts.
private let migrationsFolder = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appending(path: "Migrations").path(percentEncoded: false)

/// Each failure exits with the code the manual's table gives it, whichever
/// layer (the library, the migration engine, the tool) reports it.
@Suite("store-tool: exit codes as the manual's table says")
struct ExitCodeTests {
    @Test(
        "migrate under another process's lock exits 6 (locked), and writes nothing",
        arguments: [["--no-snapshot"], [], ["--baseline"], ["--one-transaction", "--no-snapshot"]])
    func migrateLocked(extra: [String]) throws {
        let fixture = try Fixture()
        let connection = try Connection(location: fixture.path, mode: .readWrite)
        try connection.execute("BEGIN IMMEDIATE")
        let run = try fixture.runTool(["migrate", fixture.path, "--scripts", migrationsFolder, "--wait", "0"] + extra)
        try connection.execute("ROLLBACK")
        #expect(run.status == 6, "\(extra): \(run.stderr)")
        #expect(run.stderr.contains("locked"), "\(extra): \(run.stderr)")
        let status = try fixture.run("migrate", fixture.path, "--status", "--scripts", migrationsFolder)
        #expect(status.stdout.contains("Applied:         none"), "\(status.stdout)")
    }

    @Test("a missing table in sql is bad input (2), as any statement that does not compile")
    func sqlMissingTable() throws {
        let fixture = try Fixture()
        for statement in ["SELECT * FROM Nope", "SELECT name FROM Trip WHERE id IN (SELECT id FROM Nope)"] {
            let run = try fixture.run("sql", fixture.path, statement)
            #expect(run.status == 2, "\(statement): \(run.stderr)")
            #expect(run.stderr.contains("no such table: Nope"), "\(statement): \(run.stderr)")
        }
    }

    @Test("backup to an existing file cannot write it (9), also for a dry run, and leaves the file as it was")
    func backupToExistingFile() throws {
        let fixture = try Fixture()
        let existing = fixture.file("existing.store")
        try Data("keep me".utf8).write(to: URL(filePath: existing))
        for extra in [[], ["--dry-run"]] {
            let run = try fixture.runTool(["backup", fixture.path, existing] + extra)
            #expect(run.status == 9, "\(extra): \(run.stderr)")
            #expect(run.stderr.contains("already exists"), "\(extra): \(run.stderr)")
        }
        #expect(try Data(contentsOf: URL(filePath: existing)) == Data("keep me".utf8))
    }

    @Test("--version names the tool and the store format; completion scripts are generated")
    func versionAndCompletion() throws {
        let version = try Fixture.runTool(["--version"])
        #expect(version.status == 0)
        #expect(version.stdout.hasPrefix("store-tool ") && version.stdout.contains("store format "), "\(version.stdout)")
        for shell in ["bash", "zsh", "fish"] {
            let script = try Fixture.runTool(["--generate-completion-script", shell])
            #expect(script.status == 0, "\(shell): \(script.stderr)")
            #expect(script.stdout.contains("store-tool") && script.stdout.contains("import"), "\(shell)")
        }
    }
}
