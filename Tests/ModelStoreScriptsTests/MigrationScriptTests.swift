import Foundation
import Testing
@testable import ModelStore
@testable import ModelStoreScripts

@Suite("Migration scripts")
struct MigrationScriptTests {
    @Test("The example's scripts: status, a plan that leaves the file alone, apply once, history with checksums")
    func exampleScripts() throws {
        let url = try makeExampleV1Store()
        let file = StoreFile(url: url)
        let migrator = try StoreMigrator(storeAt: url, scriptsFolder: repositoryMigrations)
        #expect(try migrator.status().pending.map(\.fileName) == ["0001_stop_notes.yaml", "0002_packing_notes.sql"])

        let before = try file.everything()
        let plan = try migrator.plan()
        #expect(try file.everything() == before)
        #expect(plan.scripts.count == 2)
        #expect(plan.steps.map(\.name).contains("0001_stop_notes.yaml: addAttribute Stop.note, addIndex Trip(destination, startDate): add column \"note\" to Stop"))
        #expect(plan.steps.contains { $0.sql.contains("CREATE INDEX \"Trip.index(destination,startDate)\" ON \"Trip\" (\"destination\", \"startDate\")") })
        #expect(plan.steps.last?.name == "0002_packing_notes.sql: sql")
        #expect(!plan.destroysData)

        let recorder = StepRecorder()
        let result = try migrator.apply { recorder.add($0) }
        #expect(result.applied.map(\.version) == ["0001", "0002"])
        #expect(!recorder.steps.isEmpty)
        #expect(try file.rows("SELECT name, notes FROM Trip ORDER BY _pk") == [
            [.text("Lisbon"), .null], [.text("Reykjavik"), .text("Pack a rain jacket")], [.text("Kyoto"), .text("ryokan")],
        ])
        let data = try Data(contentsOf: repositoryMigrations.appending(path: "0001_stop_notes.yaml"))
        let history = try migrator.status().applied.filter { $0.kind == "script" }
        #expect(history.map(\.checksum) == [ScriptChecksum.hex(data), history[1].checksum])
        #expect(history[0].fingerprintBefore != history[0].fingerprintAfter)
        #expect(try migrator.status().pending.isEmpty)

        // Applied once: again, nothing runs; the app's new code opens it without a migration.
        #expect(try migrator.apply().applied.isEmpty)
        let context = ModelContext(try ModelContainer(for: ExampleV11.schema, configurations: [migrationConfiguration(url)]))
        #expect(try context.fetch(FetchDescriptor<ExampleV11.Stop>()).map(\.note) == [nil])
        #expect(try file.rows("SELECT count(*) FROM _modelstore_migrations WHERE kind <> 'script'") == [[.integer(0)]])
    }

    @Test("ModelConfiguration's scripts folder runs the scripts at open; a new store records them as applied")
    func scriptsAtOpen() throws {
        let url = try makeExampleV1Store()
        var configuration = migrationConfiguration(url)
        configuration.migrationScriptsFolder = repositoryMigrations
        _ = try ModelContainer(for: ExampleV11.schema, configurations: [configuration])
        let file = StoreFile(url: url)
        #expect(try file.rows("SELECT version FROM _modelstore_migrations ORDER BY id") == [[.text("0001")], [.text("0002")]])
        #expect(try file.metadata("schemaVersion") == .text("1.1.0"))

        let fresh = try TemporaryDirectory().file()
        var freshConfiguration = migrationConfiguration(fresh)
        freshConfiguration.migrationScriptsFolder = repositoryMigrations
        _ = try ModelContainer(for: ExampleV11.schema, configurations: [freshConfiguration])
        #expect(try StoreMigrator(storeAt: fresh, scriptsFolder: repositoryMigrations).status().pending.isEmpty)
    }

    @Test("An applied script whose file changed is an error naming the file")
    func checksumMismatch() throws {
        let url = try makeExampleV1Store()
        let folder = try copyOfMigrations()
        try StoreMigrator(storeAt: url, scriptsFolder: folder).apply()
        let script = folder.appending(path: "0002_packing_notes.sql")
        try (try String(contentsOf: script, encoding: .utf8) + "\n-- edited\n").write(to: script, atomically: true, encoding: .utf8)
        #expect {
            try StoreMigrator(storeAt: url, scriptsFolder: folder).apply()
        } throws: { error in
            guard case ModelStoreError.scriptChecksumMismatch(let name, _, _) = error else { return false }
            return name == script.path(percentEncoded: false)
        }
        var configuration = migrationConfiguration(url)
        configuration.migrationScriptsFolder = folder
        #expect(throws: ModelStoreError.self) { try ModelContainer(for: ExampleV11.schema, configurations: [configuration]) }
    }

    @Test("A failing script is rolled back and named; earlier scripts stay, or none with one transaction", arguments: [false, true])
    func failingScript(oneTransaction: Bool) throws {
        let url = try makeExampleV1Store()
        let folder = try copyOfMigrations()
        try "UPDATE \"Trip\" SET \"name\" = 'Lisbon';".write(
            to: folder.appending(path: "0003_break_unique.sql"), atomically: true, encoding: .utf8)
        let file = StoreFile(url: url)
        let before = try file.everything()
        var options = MigrationOptions()
        options.takesSnapshot = false
        options.runsScriptsInOneTransaction = oneTransaction
        #expect {
            try StoreMigrator(storeAt: url, scriptsFolder: folder, options: options).apply()
        } throws: { error in
            guard case ModelStoreError.migrationFailed(_, let step, _) = error else { return false }
            return step == "0003_break_unique.sql: sql"
        }
        if oneTransaction {
            #expect(try file.everything() == before)
        } else {
            #expect(try file.rows("SELECT version FROM _modelstore_migrations ORDER BY id") == [[.text("0001")], [.text("0002")]])
            #expect(try file.rows("SELECT name FROM Trip ORDER BY _pk") == [[.text("Lisbon")], [.text("Reykjavik")], [.text("Kyoto")]])
        }
    }

    @Test(
        "SQL that changes tables or indexes is refused, naming the file and the change; the store is as it was",
        arguments: [
            ("ALTER TABLE \"Trip\" ADD COLUMN \"rating\" INTEGER;", "altered table \"Trip\""),
            ("CREATE INDEX \"byName\" ON \"Trip\" (\"name\");", "created index \"byName\""),
            ("DROP INDEX \"Trip.index(destination,startDate)\";", "dropped index \"Trip.index(destination,startDate)\""),
        ])
    func sqlChangingTablesIsRefused(sql: String, change: String) throws {
        let url = try makeExampleV1Store()
        let folder = try copyOfMigrations()
        try sql.write(to: folder.appending(path: "0003_change_tables.sql"), atomically: true, encoding: .utf8)
        let file = StoreFile(url: url)
        let before = try file.everything()
        var options = MigrationOptions()
        options.takesSnapshot = false
        options.runsScriptsInOneTransaction = true
        #expect {
            try StoreMigrator(storeAt: url, scriptsFolder: folder, options: options).apply()
        } throws: { error in
            guard case ModelStoreError.invalidMigrationScript(let script, let reason) = error else { return false }
            return script.hasSuffix("0003_change_tables.sql") && reason.contains(change)
                && reason.contains("for data only")
        }
        #expect(try file.everything() == before)
    }

    @Test("SQL that only changes rows runs, even when it makes and drops a temporary table")
    func sqlWithTemporaryTable() throws {
        let url = try makeExampleV1Store()
        let folder = try copyOfMigrations()
        try """
            CREATE TEMP TABLE "renames" ("old" TEXT, "new" TEXT);
            INSERT INTO "renames" VALUES ('Lisbon', 'Lisboa');
            UPDATE "Trip" SET "name" = (SELECT "new" FROM "renames" WHERE "old" = "Trip"."name")
                WHERE "name" IN (SELECT "old" FROM "renames");
            DROP TABLE "renames";
            """.write(to: folder.appending(path: "0003_rename_trips.sql"), atomically: true, encoding: .utf8)
        try StoreMigrator(storeAt: url, scriptsFolder: folder).apply()
        let names = try StoreFile(url: url).rows("SELECT name FROM Trip ORDER BY _pk")
        #expect(names.first == [.text("Lisboa")])
    }

    @Test("Model operations: add, rename, retype with an expression, make required with a backfill, unique, remove")
    func modelOperations() throws {
        let url = try makeExampleV1Store()
        let folder = try TemporaryDirectory().url
        try """
            description: Every model operation on the example store
            steps:
              - renameEntity: Stop
                to: Visit
              - renameAttribute: Trip.notes
                to: remarks
              - addAttribute: Trip.nights
                type: int
                default: 7
              - addEntity: Traveller
                attributes:
                  - name: fullName
                    type: string
                  - name: age
                    type: int?
              - makeRequired: Trip.remarks
                backfill: "none yet"
              - changeType: Trip.startDate
                to: string
                using: strftime('%Y-%m-%d', "startDate", 'unixepoch')
              - addUnique: Trip
                attributes: [destination, nights]
              - removeAttribute: Trip.budget
              - sql: |
                  INSERT INTO "Traveller" ("fullName", "age") VALUES ('Ada Lovelace', 36);
            """.write(to: folder.appending(path: "0001_everything.yaml"), atomically: true, encoding: .utf8)
        let migrator = try StoreMigrator(storeAt: url, scriptsFolder: folder)
        try migrator.apply()
        let file = StoreFile(url: url)
        #expect(try file.rows("SELECT name, remarks, nights, startDate FROM Trip ORDER BY _pk") == [
            [.text("Lisbon"), .text("none yet"), .integer(7), .text("2025-06-15")],
            [.text("Reykjavik"), .text("none yet"), .integer(7), .text("2025-06-15")],
            [.text("Kyoto"), .text("ryokan"), .integer(7), .text("2025-06-15")],
        ])
        #expect(try file.rows("SELECT title, trip FROM Visit") == [[.text("Belém"), .integer(1)]])
        #expect(try file.rows("SELECT fullName, age FROM Traveller") == [[.text("Ada Lovelace"), .integer(36)]])
        let schema = try file.storedSchema()
        #expect(schema.entity(named: "Trip")?.attribute(named: "budget") == nil)
        #expect(schema.entity(named: "Trip")?.uniqueConstraints == [["destination", "nights"]])
        #expect(schema.entity(named: "Trip")?.relationship(named: "stops")?.destination == "Visit")
        #expect(try file.rows("PRAGMA foreign_key_check").isEmpty)
    }

    @Test("Adding a unique constraint over duplicates in a script names the rows; the script is not applied")
    func uniqueOverDuplicatesInScript() throws {
        let url = try makeExampleV1Store()
        let folder = try TemporaryDirectory().url
        try "steps:\n  - addUnique: Trip\n    attributes: [startDate, status]\n".write(
            to: folder.appending(path: "0001_unique.yaml"), atomically: true, encoding: .utf8)
        #expect(throws: ModelStoreError.duplicateValues(entity: "Trip", attributes: ["startDate", "status"], rows: [[1, 2, 3]], path: url.path(percentEncoded: false))) {
            try StoreMigrator(storeAt: url, scriptsFolder: folder).apply()
        }
        #expect(try StoreMigrator(storeAt: url, scriptsFolder: folder).status().pending.count == 1)
    }

    @Test("Bad scripts are errors naming the file and line", arguments: [
        ("0001_x.yaml", "steps:\n  - dropEverything: Trip\n", "line 2: unknown operation dropEverything"),
        ("0001_x.yaml", "steps:\n  - addAttribute: Trip\n    type: string\n", "line 2: addAttribute takes Entity.property"),
        ("0001_x.yaml", "steps:\n  - addAttribute: Trip.x\n    type: text\n", "line 3: unknown type text"),
        ("0001_x.yaml", "steps:\n  - removeAttribute: Trip.nothing\n", "Trip has no attribute nothing"),
        ("notes.yaml", "steps: []\n", "starts with its version"),
        ("0001_x.yaml", "steps:\n  - addAttribute: Trip.code\n    type: uuid\n    default: abc\n", "line 4: abc is not a uuid value"),
        ("0001_x.yaml", "steps:\n  - addAttribute: Trip.count\n    type: int\n    default: 12abc\n", "line 4: 12abc is not a int value"),
    ])
    func badScripts(name: String, text: String, message: String) throws {
        let url = try makeExampleV1Store()
        let folder = try TemporaryDirectory().url
        try text.write(to: folder.appending(path: name), atomically: true, encoding: .utf8)
        #expect {
            try StoreMigrator(storeAt: url, scriptsFolder: folder).apply()
        } throws: { error in
            guard case ModelStoreError.invalidMigrationScript(let script, let reason) = error else { return false }
            return script.hasSuffix(name) && reason.contains(message)
        }
    }

    @Test("Baseline records scripts as applied without running them")
    func baseline() throws {
        let url = try makeExampleV1Store()
        let migrator = try StoreMigrator(storeAt: url, scriptsFolder: repositoryMigrations)
        try migrator.baseline(through: "0001")
        #expect(try migrator.status().pending.map(\.version) == ["0002"])
        #expect(try StoreFile(url: url).rows("SELECT name FROM pragma_table_info('Stop') WHERE name = 'note'").isEmpty)
    }
}

@Suite("Script building blocks")
struct ScriptBuildingBlockTests {
    @Test("SHA-256 test vectors")
    func sha256() {
        #expect(ScriptChecksum.hex(Array("".utf8)) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(ScriptChecksum.hex(Array("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(
            ScriptChecksum.hex(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8))
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        #expect(
            ScriptChecksum.hex(Array(repeating: UInt8(ascii: "a"), count: 1000))
                == "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3")
    }

    @Test("The YAML subset: mappings, lists, flow lists, quotes, literal blocks, comments")
    func yamlSubset() throws {
        let node = try ScriptYAML.parse(
            """
            # a comment
            description: "quoted \\"text\\"" # trailing comment
            steps:
              - sql: |
                  SELECT 1;
                    -- indented # not a comment
                  SELECT 2;
              - addIndex: Trip
                attributes: [a, 'b c']
            """)
        guard case .map(let entries, _) = node, case .scalar(let description, _) = entries[0].value,
            case .list(let steps, _) = entries[1].value, case .map(let first, _) = steps[0],
            case .scalar(let sql, _) = first[0].value, case .map(let second, _) = steps[1],
            case .list(let names, _) = second[1].value
        else {
            Issue.record("unexpected shape")
            return
        }
        #expect(description == "quoted \"text\"")
        #expect(sql == "SELECT 1;\n  -- indented # not a comment\nSELECT 2;")
        #expect(names.compactMap { if case .scalar(let text, _) = $0 { text } else { nil } } == ["a", "b c"])
        #expect(throws: ScriptSyntaxError.self) { try ScriptYAML.parse("steps:\n  - [a\n") }
    }
}
