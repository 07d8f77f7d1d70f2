import CSQLite
import Foundation
import Testing
@testable import ModelStore

/// A store file with schema objects ModelStore did not make: store-tool
/// reads it read-only with a warning, refuses every write before anything
/// runs, and `check` names every such object.
@Suite("store-tool: stores with foreign triggers, views and constraints")
struct ForeignSchemaTests {
    /// Runs `sql` as the sqlite3 shell would, triggers and schema edits allowed.
    private func plant(_ fixture: Fixture, _ sql: String) throws {
        let connection = try Connection(location: fixture.path, mode: .readWrite)
        _ = modelstore_db_config_flag(connection.handle, SQLITE_DBCONFIG_DEFENSIVE, 0)
        _ = modelstore_db_config_flag(connection.handle, SQLITE_DBCONFIG_ENABLE_TRIGGER, 1)
        try connection.execute(sql)
    }

    private static let spyTrigger = """
        CREATE TRIGGER spy AFTER UPDATE ON "Trip" BEGIN
          INSERT INTO "_modelstore_metadata" ("key", "value") VALUES ('canary' || random(), 1);
        END;
        """

    @Test("reads work, with a warning naming the object")
    func readsWarn() throws {
        let fixture = try Fixture()
        try plant(fixture, Self.spyTrigger)
        let run = try fixture.run("list", fixture.path, "Trip")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.lines.count == 3)
        #expect(run.stderr.contains("warning") && run.stderr.contains("trigger \"spy\" on table \"Trip\""), "\(run.stderr)")
    }

    @Test("writes are refused with exit 4 and change nothing")
    func writesAreRefused() throws {
        let fixture = try Fixture()
        try plant(fixture, Self.spyTrigger)
        let before = try Data(contentsOf: fixture.store)
        for arguments in [
            ["set", fixture.path, "Trip:1", "notes=changed"], ["delete", fixture.path, "Trip:3", "--yes"],
            ["insert", fixture.path, "Trip", "name=Oslo", "destination=Norway", "startDate=2026-01-01T00:00:00Z"],
        ] {
            let run = try fixture.runTool(arguments)
            #expect(run.status == 4, "\(arguments): \(run.stderr)")
            #expect(run.stderr.contains("trigger \"spy\""), "\(arguments): \(run.stderr)")
        }
        #expect(try Data(contentsOf: fixture.store) == before)
    }

    @Test("check reports every foreign object and exits 1")
    func checkReportsEach() throws {
        let fixture = try Fixture()
        try plant(
            fixture,
            Self.spyTrigger + """
                CREATE VIEW names AS SELECT name FROM "Trip";
                CREATE INDEX by_length ON "Trip" (length(name));
                CREATE INDEX booked ON "Trip" (name) WHERE status = 'booked';
                ALTER TABLE "Trip" ADD COLUMN shout TEXT GENERATED ALWAYS AS (upper(name)) VIRTUAL;
                ALTER TABLE "Stop" ADD COLUMN rating INTEGER CHECK (rating >= 0);
                CREATE TABLE scratch (x);
                """)
        let run = try fixture.run("check", fixture.path)
        #expect(run.status == 1, "\(run.stderr)")
        for expected in [
            "trigger \"spy\"", "view \"names\"", "index on an expression \"by_length\"", "partial index \"booked\"",
            "generated column \"shout\"", "CHECK constraint on table \"Stop\"", "column \"rating\"", "table \"scratch\"",
        ] {
            #expect(run.stdout.contains(expected), "check should report \(expected): \(run.stdout)")
        }
    }
}
