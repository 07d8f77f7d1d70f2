import Foundation
import Testing

/// The repository's Migrations/ folder: the example app's scripts.
private let migrationsFolder = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appending(path: "Migrations").path(percentEncoded: false)

@Suite("store-tool: migrate")
struct MigrateCommandTests {
    @Test("status lists pending scripts, plan changes nothing, apply runs each once")
    func statusPlanApply() throws {
        let fixture = try Fixture()
        let before = try Data(contentsOf: fixture.store)

        let status = try fixture.run("migrate", fixture.path, "--status", "--scripts", migrationsFolder)
        #expect(status.status == 0)
        #expect(status.stdout.contains("0001_stop_notes.yaml") && status.stdout.contains("0002_packing_notes.sql"))

        let info = try fixture.run("info", fixture.path, "--scripts", migrationsFolder, "--format", "table")
        #expect(info.stdout.contains("Pending scripts: 0001_stop_notes.yaml, 0002_packing_notes.sql"))

        let plan = try fixture.run("migrate", fixture.path, "--scripts", migrationsFolder, "--plan")
        #expect(plan.status == 0)
        #expect(plan.stdout.contains("Stop") && plan.stdout.contains("UPDATE"))
        #expect(try Data(contentsOf: fixture.store) == before, "--plan only reads the store")

        let apply = try fixture.run("migrate", fixture.path, "--scripts", migrationsFolder, "--no-snapshot")
        #expect(apply.status == 0)
        #expect(apply.stdout.contains("Applied: 0001_stop_notes.yaml, 0002_packing_notes.sql"))
        let notes = try fixture.run("list", fixture.path, "Trip", "--where", "destination == \"Iceland\"", "--fields", "notes", "--format", "csv")
        #expect(notes.stdout.contains("Pack a rain jacket"))
        let stops = try fixture.run("list", fixture.path, "Stop", "--fields", "title,note", "--format", "csv")
        #expect(stops.status == 0 && stops.stdout.contains("note"))

        let infoAfter = try fixture.run("info", fixture.path, "--scripts", migrationsFolder, "--format", "table")
        #expect(infoAfter.stdout.contains("Pending scripts: none"))
        #expect(infoAfter.stdout.contains("Last migration:  0002"))

        let again = try fixture.run("migrate", fixture.path, "--scripts", migrationsFolder, "--no-snapshot")
        #expect(again.status == 0 && again.stdout.contains("Nothing to apply"))
        let after = try fixture.run("migrate", fixture.path, "--status", "--scripts", migrationsFolder, "--format", "json")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(after.stdout.utf8)) as? [String: Any])
        #expect((json["pending"] as? [Any])?.isEmpty == true)
        #expect((json["applied"] as? [Any])?.count ?? 0 >= 2)
    }

    @Test("baseline records the scripts as applied without running them")
    func baseline() throws {
        let fixture = try Fixture()
        let run = try fixture.run("migrate", fixture.path, "--scripts", migrationsFolder, "--baseline")
        #expect(run.status == 0)
        #expect(run.stdout.contains("Pending:         none"))
        let notes = try fixture.run("list", fixture.path, "Trip", "--where", "notes != nil", "--format", "csv")
        #expect(!notes.stdout.contains("Pack a rain jacket"), "the scripts did not run")
    }

    @Test("bad input: a missing scripts folder, a changed script")
    func badInput() throws {
        let fixture = try Fixture()
        let missing = try fixture.run("migrate", fixture.path, "--scripts", fixture.folder.appending(path: "nope").path(percentEncoded: false))
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("does not exist"))

        let scripts = fixture.folder.appending(path: "scripts")
        try FileManager.default.createDirectory(at: scripts, withIntermediateDirectories: true)
        let script = scripts.appending(path: "0001_flag.sql")
        try "UPDATE \"Trip\" SET \"nights\" = 4;".write(to: script, atomically: true, encoding: .utf8)
        let first = try fixture.run("migrate", fixture.path, "--scripts", scripts.path(percentEncoded: false), "--no-snapshot")
        #expect(first.status == 0)
        try "UPDATE \"Trip\" SET \"nights\" = 5;".write(to: script, atomically: true, encoding: .utf8)
        let changed = try fixture.run("migrate", fixture.path, "--scripts", scripts.path(percentEncoded: false), "--no-snapshot")
        #expect(changed.status == 7)
        #expect(changed.stderr.contains("0001_flag.sql"))
    }
}
