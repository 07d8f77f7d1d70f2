import Foundation
import Testing

/// `migrate` meeting a store as it really is (issue 23 item 5): a change the
/// store has already, a drop that would lose values, an applied script
/// edited afterwards, a status without a scripts folder, a script's default.
@Suite("store-tool: migrate against the store's own state")
struct MigrateStoreStateTests {
    /// A scripts folder in the fixture's folder holding one script.
    private func scripts(_ fixture: Fixture, _ name: String, _ text: String) throws -> String {
        let folder = fixture.folder.appending(path: "scripts-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try text.write(to: folder.appending(path: name), atomically: true, encoding: .utf8)
        return folder.path(percentEncoded: false)
    }

    @Test("a script whose change the store has already: the error names it and suggests --baseline, which then works")
    func changeAlreadyInStore() throws {
        let fixture = try Fixture()
        let folder = try scripts(fixture, "0001_trip_notes.yaml", "steps:\n  - addAttribute: Trip.notes\n    type: string?\n")
        let run = try fixture.run("migrate", fixture.path, "--scripts", folder, "--no-snapshot")
        #expect(run.status == 2)
        #expect(run.stderr.contains("0001_trip_notes.yaml") && run.stderr.contains("addAttribute Trip.notes"))
        #expect(run.stderr.contains("column \"notes\" of table \"Trip\""))
        #expect(run.stderr.contains("--baseline --to 0001"))

        let baseline = try fixture.run("migrate", fixture.path, "--scripts", folder, "--baseline", "--to", "0001")
        #expect(baseline.status == 0)
        let again = try fixture.run("migrate", fixture.path, "--scripts", folder, "--no-snapshot")
        #expect(again.status == 0 && again.stdout.contains("Nothing to apply"))
    }

    @Test("removeAttribute of an attribute holding values: exit 7 naming it and the rows, in the plan too, unless --allow-data-loss")
    func removeAttributeHoldingValues() throws {
        let fixture = try Fixture()
        let folder = try scripts(fixture, "0001_drop_nights.yaml", "steps:\n  - removeAttribute: Trip.nights\n")
        let before = try Data(contentsOf: fixture.store)
        for extra in [["--plan"], ["--no-snapshot"]] {
            let run = try fixture.runTool(["migrate", fixture.path, "--scripts", folder] + extra)
            #expect(run.status == 7, "\(extra)")
            #expect(run.stderr.contains("would lose data") && run.stderr.contains("Trip.nights") && run.stderr.contains("3 rows"))
            #expect(run.stderr.contains("--allow-data-loss"))
        }
        #expect(try Data(contentsOf: fixture.store) == before)

        let plan = try fixture.run("migrate", fixture.path, "--scripts", folder, "--plan", "--allow-data-loss")
        #expect(plan.status == 0 && plan.stdout.contains("(destroys data)"))
        #expect(plan.stdout.contains("--allow-data-loss allows"))
        let apply = try fixture.run("migrate", fixture.path, "--scripts", folder, "--no-snapshot", "--allow-data-loss")
        #expect(apply.status == 0 && apply.stdout.contains("Applied: 0001_drop_nights.yaml"))
    }

    @Test("an applied script edited afterwards: --status and info --scripts show it as changed; migrate refuses with 7")
    func editedAppliedScript() throws {
        let fixture = try Fixture()
        let folder = try scripts(fixture, "0001_nights.sql", "UPDATE \"Trip\" SET \"nights\" = 4;")
        #expect(try fixture.run("migrate", fixture.path, "--scripts", folder, "--no-snapshot").status == 0)
        try "UPDATE \"Trip\" SET \"nights\" = 5;".write(
            to: URL(filePath: folder).appending(path: "0001_nights.sql"), atomically: true, encoding: .utf8)

        let status = try fixture.run("migrate", fixture.path, "--status", "--scripts", folder)
        #expect(status.status == 0)
        #expect(status.stdout.contains("0001 0001_nights.sql  [script]") && status.stdout.contains("changed since applied (checksum "))
        #expect(status.stdout.contains("Pending:         none"))
        let json = try fixture.run("migrate", fixture.path, "--status", "--scripts", folder, "--format", "json")
        #expect(json.status == 0 && json.stdout.contains("\"recordedChecksum\""))
        let info = try fixture.run("info", fixture.path, "--scripts", folder, "--format", "table")
        #expect(info.status == 0)
        #expect(info.stdout.contains("Changed scripts: 0001_nights.sql changed since applied (checksum "))

        let apply = try fixture.run("migrate", fixture.path, "--scripts", folder, "--no-snapshot")
        #expect(apply.status == 7 && apply.stderr.contains("0001_nights.sql"))
    }

    @Test("--status without --scripts says that pending scripts are unknown, as info does")
    func statusWithoutScripts() throws {
        let fixture = try Fixture()
        let status = try fixture.run("migrate", fixture.path, "--status")
        #expect(status.status == 0)
        #expect(status.stdout.contains("Pending:         unknown (give --scripts DIR)"))
        #expect(!status.stdout.contains("Pending:         none"))
        let info = try fixture.run("info", fixture.path, "--format", "table")
        #expect(info.stdout.contains("Pending scripts: unknown (give --scripts DIR)"))
    }

    @Test("a script's default: insert without that value uses it")
    func scriptDefaultUsedByInsert() throws {
        let fixture = try Fixture()
        let folder = try scripts(fixture, "0001_rating.yaml", "steps:\n  - addAttribute: Trip.rating\n    type: int\n    default: 3\n")
        #expect(try fixture.run("migrate", fixture.path, "--scripts", folder, "--no-snapshot").status == 0)
        let insert = try fixture.run(
            "insert", fixture.path, "Trip", "name=Porto", "destination=Portugal", "startDate=2026-05-01")
        #expect(insert.status == 0, "\(insert.stderr)")
        let rating = try fixture.run("list", fixture.path, "Trip", "--where", "name == \"Porto\"", "--fields", "rating", "--format", "csv")
        #expect(rating.stdout.contains("3"))
    }

    @Test("a baselined script shows as a baseline in --status and info, an applied one as a script")
    func baselineShown() throws {
        let fixture = try Fixture()
        let folder = try scripts(fixture, "0001_nights.sql", "UPDATE \"Trip\" SET \"nights\" = 4;")
        try "UPDATE \"Trip\" SET \"nights\" = 5;".write(
            to: URL(filePath: folder).appending(path: "0002_more_nights.sql"), atomically: true, encoding: .utf8)
        #expect(try fixture.run("migrate", fixture.path, "--scripts", folder, "--baseline", "--to", "0001").status == 0)
        let info = try fixture.run("info", fixture.path, "--scripts", folder, "--format", "table")
        #expect(info.stdout.contains("Last migration:  0001 0001_nights.sql (script, baseline: not run) at "))
        #expect(try fixture.run("migrate", fixture.path, "--scripts", folder, "--no-snapshot").status == 0)
        let status = try fixture.run("migrate", fixture.path, "--status", "--scripts", folder)
        #expect(status.stdout.contains("0001 0001_nights.sql  [script, baseline: not run]"))
        #expect(status.stdout.contains("0002 0002_more_nights.sql  [script]"))
        let json = try fixture.run("migrate", fixture.path, "--status", "--format", "json")
        #expect(json.stdout.contains("\"isBaseline\" : true") && json.stdout.contains("\"isBaseline\" : false"))
    }
}
