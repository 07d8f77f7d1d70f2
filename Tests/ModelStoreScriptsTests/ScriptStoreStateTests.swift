import Foundation
import Testing
@testable import ModelStore
@testable import ModelStoreScripts

/// Scripts meeting a store as it really is: one the app's code already
/// changed, one whose values a script would drop, one whose applied script
/// was edited afterwards.
@Suite("Migration scripts against the store's own state")
struct ScriptStoreStateTests {
    /// A store made by the app's version 1.1 code: it has Stop.note and the
    /// index that script 0001 adds, without having run the script.
    private func makeExampleV11Store() throws -> URL {
        let url = try TemporaryDirectory().file()
        let context = ModelContext(try ModelContainer(for: ExampleV11.schema, configurations: [migrationConfiguration(url)]))
        context.insert(ExampleV11.Trip(name: "Lisbon", destination: "Portugal"))
        try context.save()
        return url
    }

    private func noSnapshot(allowsDataLoss: Bool = false) -> MigrationOptions {
        var options = MigrationOptions()
        options.takesSnapshot = false
        options.allowsDataLoss = allowsDataLoss
        return options
    }

    @Test("A script whose change the store has already names the script, the operation and the column, and suggests a baseline")
    func changeAlreadyInStore() throws {
        let url = try makeExampleV11Store()
        let file = StoreFile(url: url)
        let before = try file.everything()
        #expect {
            try StoreMigrator(storeAt: url, scriptsFolder: repositoryMigrations, options: noSnapshot()).apply()
        } throws: { error in
            guard case ModelStoreError.invalidMigrationScript(let script, let reason) = error else { return false }
            return script.hasSuffix("0001_stop_notes.yaml") && reason.contains("addAttribute Stop.note")
                && reason.contains("column \"note\" of table \"Stop\"") && reason.contains("--baseline --to 0001")
                && reason.contains("applied without running it")
        }
        #expect(try file.everything() == before)

        // The advice works: after the baseline, nothing is left to run but the data script.
        let migrator = try StoreMigrator(storeAt: url, scriptsFolder: repositoryMigrations, options: noSnapshot())
        try migrator.baseline(through: "0001")
        #expect(try migrator.apply().applied.map(\.version) == ["0002"])
    }

    @Test("A script that adds one attribute twice is its own mistake: no baseline advice")
    func addedTwiceInOneScript() throws {
        let url = try makeExampleV1Store()
        let folder = try TemporaryDirectory().url
        try "steps:\n  - addAttribute: Trip.code\n    type: string?\n  - addAttribute: Trip.code\n    type: string?\n".write(
            to: folder.appending(path: "0001_twice.yaml"), atomically: true, encoding: .utf8)
        #expect {
            try StoreMigrator(storeAt: url, scriptsFolder: folder, options: noSnapshot()).apply()
        } throws: { error in
            guard case ModelStoreError.invalidMigrationScript(_, let reason) = error else { return false }
            return reason.contains("an earlier step of this script added it") && !reason.contains("baseline")
        }
    }

    @Test("removeAttribute of an attribute holding values is refused unless data loss is allowed; plan and apply agree")
    func removeAttributeHoldingValues() throws {
        let url = try makeExampleV1Store()
        let folder = try TemporaryDirectory().url
        try "steps:\n  - removeAttribute: Trip.notes\n".write(
            to: folder.appending(path: "0001_drop_notes.yaml"), atomically: true, encoding: .utf8)
        let file = StoreFile(url: url)
        let before = try file.everything()
        let refused: (any Error) -> Bool = { error in
            guard case ModelStoreError.destructiveMigration(_, let changes) = error else { return false }
            return changes.count == 1 && changes[0].contains("0001_drop_notes.yaml: removeAttribute Trip.notes")
                && changes[0].contains("attribute Trip.notes") && changes[0].contains("1 row ")
                && changes[0].contains("--allow-data-loss")
        }
        let migrator = try StoreMigrator(storeAt: url, scriptsFolder: folder, options: noSnapshot())
        #expect(performing: { try migrator.plan() }, throws: refused)
        #expect(performing: { try migrator.apply() }, throws: refused)
        #expect(try file.everything() == before)

        let allowed = try StoreMigrator(storeAt: url, scriptsFolder: folder, options: noSnapshot(allowsDataLoss: true))
        #expect(try allowed.plan().destroysData)
        #expect(try allowed.apply().applied.map(\.version) == ["0001"])
        #expect(try file.rows("SELECT name FROM pragma_table_info('Trip') WHERE name = 'notes'").isEmpty)
    }

    @Test("removeEntity of an entity with rows is refused unless data loss is allowed; an empty one needs no permission")
    func removeEntityHoldingRows() throws {
        let url = try makeExampleV1Store()
        let folder = try TemporaryDirectory().url
        try """
            steps:
              - addEntity: Traveller
                attributes:
                  - name: fullName
                    type: string
              - addEntity: Guide
                attributes:
                  - name: fullName
                    type: string
              - sql: |
                  INSERT INTO "Traveller" ("fullName") VALUES ('Ada Lovelace');
            """.write(to: folder.appending(path: "0001_people.yaml"), atomically: true, encoding: .utf8)
        try StoreMigrator(storeAt: url, scriptsFolder: folder, options: noSnapshot()).apply()
        try "steps:\n  - removeEntity: Guide\n  - removeEntity: Traveller\n".write(
            to: folder.appending(path: "0002_drop_people.yaml"), atomically: true, encoding: .utf8)
        let file = StoreFile(url: url)
        let before = try file.everything()
        let refused: (any Error) -> Bool = { error in
            guard case ModelStoreError.destructiveMigration(_, let changes) = error else { return false }
            // Only the entity that holds rows is named as losing data:
            // dropping Guide loses nothing (the step's name lists both).
            return changes.count == 1 && changes[0].contains("0002_drop_people.yaml")
                && changes[0].contains("entity Traveller is no longer in the schema and holds 1 row")
                && !changes[0].contains("entity Guide")
        }
        let migrator = try StoreMigrator(storeAt: url, scriptsFolder: folder, options: noSnapshot())
        #expect(performing: { try migrator.plan() }, throws: refused)
        #expect(performing: { try migrator.apply() }, throws: refused)
        #expect(try file.everything() == before)

        let allowed = try StoreMigrator(storeAt: url, scriptsFolder: folder, options: noSnapshot(allowsDataLoss: true))
        #expect(try allowed.apply().applied.map(\.version) == ["0002"])
        #expect(try file.rows("SELECT name FROM sqlite_schema WHERE name IN ('Traveller', 'Guide')").isEmpty)
    }

    @Test("removeAttribute of an attribute that holds only nil needs no permission")
    func removeEmptyAttribute() throws {
        let url = try makeExampleV1Store()
        let folder = try TemporaryDirectory().url
        try "steps:\n  - removeAttribute: Trip.budget\n".write(
            to: folder.appending(path: "0001_drop_budget.yaml"), atomically: true, encoding: .utf8)
        #expect(try StoreMigrator(storeAt: url, scriptsFolder: folder, options: noSnapshot()).apply().applied.count == 1)
    }

    @Test("An applied script edited afterwards: the status shows it as changed; applying refuses")
    func editedAppliedScript() throws {
        let url = try makeExampleV1Store()
        let folder = try copyOfMigrations()
        try StoreMigrator(storeAt: url, scriptsFolder: folder, options: noSnapshot()).apply()
        let script = folder.appending(path: "0002_packing_notes.sql")
        let recorded = ScriptChecksum.hex(try Data(contentsOf: script))
        try (try String(contentsOf: script, encoding: .utf8) + "\n-- edited\n").write(to: script, atomically: true, encoding: .utf8)
        let found = ScriptChecksum.hex(try Data(contentsOf: script))

        let migrator = try StoreMigrator(storeAt: url, scriptsFolder: folder, options: noSnapshot())
        let status = try migrator.status()
        #expect(status.changed == [
            ChangedMigrationScript(version: "0002", fileName: "0002_packing_notes.sql", recordedChecksum: recorded, checksum: found)
        ])
        #expect(status.applied.filter { $0.kind == "script" }.count == 2)
        #expect(status.pending.isEmpty && status.hasScriptsFolder)
        #expect(throws: ModelStoreError.scriptChecksumMismatch(script: script.path(percentEncoded: false), recorded: recorded, found: found)) {
            try migrator.apply()
        }
    }

    @Test("Without a scripts folder the status does not claim that nothing is pending")
    func statusWithoutFolder() throws {
        let url = try makeExampleV1Store()
        #expect(try StoreMigrator(storeAt: url).status().hasScriptsFolder == false)
        let withFolder = try StoreMigrator(storeAt: url, scriptsFolder: repositoryMigrations).status()
        #expect(withFolder.hasScriptsFolder && withFolder.pending.count == 2)
    }

    @Test("A script's default: is recorded in the schema record, in store-tool's text form")
    func defaultRecorded() throws {
        let url = try makeExampleV1Store()
        let folder = try TemporaryDirectory().url
        try """
            steps:
              - addAttribute: Trip.rating
                type: int
                default: 3
              - addAttribute: Trip.reviewed
                type: date
                default: 0
              - addEntity: Guide
                attributes:
                  - name: language
                    type: string
                    default: en
            """.write(to: folder.appending(path: "0001_defaults.yaml"), atomically: true, encoding: .utf8)
        try StoreMigrator(storeAt: url, scriptsFolder: folder, options: noSnapshot()).apply()
        let schema = try StoreFile(url: url).storedSchema()
        #expect(schema.entity(named: "Trip")?.attribute(named: "rating")?.defaultValue == "3")
        #expect(schema.entity(named: "Trip")?.attribute(named: "reviewed")?.defaultValue == "1970-01-01T00:00:00Z")
        #expect(schema.entity(named: "Guide")?.attribute(named: "language")?.defaultValue == "en")
        #expect(try StoreFile(url: url).rows("SELECT DISTINCT rating FROM Trip") == [[.integer(3)]])
    }

    @Test("The app's model declaring the script's default opens the migrated store without a mismatch")
    func appWithTheSameDefaultOpens() throws {
        let url = try makeExampleV1Store()
        let folder = try TemporaryDirectory().url
        try "steps:\n  - addAttribute: Trip.rating\n    type: int\n    default: 3\n".write(
            to: folder.appending(path: "0001_rating.yaml"), atomically: true, encoding: .utf8)
        try StoreMigrator(storeAt: url, scriptsFolder: folder, options: noSnapshot()).apply()
        let before = try StoreFile(url: url).rows("SELECT count(*) FROM _modelstore_migrations")
        let context = ModelContext(try ModelContainer(for: ExampleRated.schema, configurations: [migrationConfiguration(url)]))
        #expect(try context.fetch(FetchDescriptor<ExampleRated.Trip>()).map(\.rating) == [3, 3, 3])
        #expect(try StoreFile(url: url).rows("SELECT count(*) FROM _modelstore_migrations") == before, "no migration ran")
    }

    @Test("The history tells a baselined script from one that ran")
    func baselineRecordedAsBaseline() throws {
        let url = try makeExampleV1Store()
        let migrator = try StoreMigrator(storeAt: url, scriptsFolder: repositoryMigrations, options: noSnapshot())
        try migrator.baseline(through: "0001")
        try migrator.apply()
        let scripts = try migrator.status().applied.filter { $0.kind == "script" }
        #expect(scripts.map(\.version) == ["0001", "0002"])
        #expect(scripts.map(\.isBaseline) == [true, false])
        #expect(try StoreFile(url: url).rows("SELECT version, baseline FROM _modelstore_migrations ORDER BY id") == [
            [.text("0001"), .integer(1)], [.text("0002"), .integer(0)],
        ])
    }

    @Test("A format 3 store: its history reads as it is, a baseline upgrades it first, recorded checksums still verify")
    func formatThreeStore() throws {
        let url = try makeExampleV1Store()
        let folder = try copyOfMigrations()
        try FileManager.default.removeItem(at: folder.appending(path: "0002_packing_notes.sql"))
        try StoreMigrator(storeAt: url, scriptsFolder: folder, options: noSnapshot()).apply()
        try FileManager.default.copyItem(
            at: repositoryMigrations.appending(path: "0002_packing_notes.sql"), to: folder.appending(path: "0002_packing_notes.sql"))
        let file = StoreFile(url: url)
        // Back to format 3, as the previous ModelStore wrote it.
        try file.execute(
            """
            ALTER TABLE "_modelstore_migrations" DROP COLUMN "baseline";
            UPDATE "_modelstore_metadata" SET "value" = 3 WHERE "key" = 'formatVersion';
            """)
        let migrator = try StoreMigrator(storeAt: url, scriptsFolder: folder, options: noSnapshot())
        let status = try migrator.status()
        #expect(status.formatVersion == 3)
        #expect(status.applied.map(\.isBaseline) == [false] && status.changed.isEmpty && status.pending.count == 1)

        try migrator.baseline()
        #expect(try file.metadata("formatVersion") == .integer(Int64(StoreFormat.current)))
        let after = try migrator.status()
        #expect(after.changed.isEmpty && after.pending.isEmpty)
        #expect(after.applied.map(\.kind) == ["script", "format", "script"])
        #expect(after.applied.map(\.isBaseline) == [false, false, true])
    }

    @Test("Several operations on one table in one script rebuild it once, makeRequired and changeType included")
    func oneRebuildPerTable() throws {
        let url = try makeExampleV1Store()
        let folder = try TemporaryDirectory().url
        try """
            steps:
              - addAttribute: Trip.rating
                type: int
                default: 3
              - makeRequired: Trip.notes
                backfill: "none yet"
              - changeType: Trip.startDate
                to: double
              - removeAttribute: Trip.budget
            """.write(to: folder.appending(path: "0001_trip_changes.yaml"), atomically: true, encoding: .utf8)
        let migrator = try StoreMigrator(storeAt: url, scriptsFolder: folder, options: noSnapshot())
        let rebuilds = try migrator.plan().steps.flatMap(\.rebuiltTables).map(\.table)
        #expect(rebuilds == ["Trip"])
        try migrator.apply()
        #expect(try StoreFile(url: url).rows("SELECT name, notes, rating, typeof(startDate) FROM Trip ORDER BY _pk") == [
            [.text("Lisbon"), .text("none yet"), .integer(3), .text("real")],
            [.text("Reykjavik"), .text("none yet"), .integer(3), .text("real")],
            [.text("Kyoto"), .text("ryokan"), .integer(3), .text("real")],
        ])
        #expect(try StoreFile(url: url).storedSchema().entity(named: "Trip")?.attribute(named: "startDate")?.kind == .double)
    }

    @Test("An expression over the row after other changes to its table sees them: a second rebuild")
    func expressionAfterChangesSeesThem() throws {
        let url = try makeExampleV1Store()
        let folder = try TemporaryDirectory().url
        try """
            steps:
              - renameAttribute: Trip.notes
                to: remarks
              - makeRequired: Trip.destination
                backfillSQL: "remarks"
              - changeType: Trip.name
                to: string
                using: "name || ' (' || coalesce(remarks, '-') || ')'"
            """.write(to: folder.appending(path: "0001_expressions.yaml"), atomically: true, encoding: .utf8)
        try StoreMigrator(storeAt: url, scriptsFolder: folder, options: noSnapshot()).apply()
        #expect(try StoreFile(url: url).rows("SELECT name FROM Trip ORDER BY _pk") == [
            [.text("Lisbon (-)")], [.text("Reykjavik (-)")], [.text("Kyoto (ryokan)")],
        ])
    }
}

/// The example's version 1.0 models with the attribute that a script adds,
/// declared with the script's default.
private enum ExampleRated: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(1, 0, 0) }
    static var models: [any PersistentModel.Type] { [Trip.self, Stop.self] }

    @Model final class Trip {
        @Attribute(.unique) var name: String
        var destination: String
        var startDate: Date
        var budget: ExampleV1.Budget?
        var tags: [String] = []
        var status: ExampleV1.TripStatus = .planned
        var notes: String?
        var rating: Int = 3
        @Relationship(deleteRule: .cascade, inverse: \Stop.trip) var stops: [Stop] = []
        init(name: String, destination: String) {
            self.name = name
            self.destination = destination
            self.startDate = Date(timeIntervalSince1970: 1_750_000_000)
        }
    }

    @Model final class Stop {
        var title: String
        var trip: Trip?
        init(title: String) { self.title = title }
    }
}
