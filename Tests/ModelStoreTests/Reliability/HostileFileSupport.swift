import CSQLite
import Foundation
import Testing
@testable import ModelStore

/// Store files made hostile by hand, as an attacker with write access to the
/// file (or a careless operator with the sqlite3 shell) would make them.
enum HostileFile {
    /// The models of the base store: foreign keys, an ordered to-many, a
    /// many-to-many join table, a unique attribute.
    static func container(_ url: URL) throws -> ModelContainer {
        try ModelContainer(
            for: Graph.Trip.self, Graph.Stop.self, Graph.Tag.self, Graph.Person.self, configurations: ModelConfiguration(url: url))
    }

    /// The key that every planted trigger writes into ModelStore's own
    /// metadata table: a row with it means foreign SQL ran.
    static let canaryKey = "canary"

    /// A fresh store with a few objects of every model, closed again.
    static func baseStore(in directory: TemporaryDirectory, name: String = "base.store") throws -> URL {
        let url = directory.file(name)
        let container = try container(url)
        let context = ModelContext(container)
        let rome = Graph.Trip(name: "Rome")
        rome.stops = [Graph.Stop(title: "Forum"), Graph.Stop(title: "Trastevere")]
        let food = Graph.Tag(name: "food")
        rome.tags = [food, Graph.Tag(name: "history")]
        rome.owner = Graph.Person(name: "Ada")
        context.insert(rome)
        try context.save()
        return url
    }

    /// Runs `sql` on the file the way the sqlite3 shell would: triggers,
    /// views and schema edits allowed (ModelStore's own connections allow
    /// none of them).
    static func plant(_ url: URL, _ sql: String) throws {
        let connection = try Connection(location: url.path, mode: .readWrite)
        try checked(modelstore_db_config_flag(connection.handle, SQLITE_DBCONFIG_DEFENSIVE, 0))
        try checked(modelstore_db_config_flag(connection.handle, SQLITE_DBCONFIG_ENABLE_TRIGGER, 1))
        try checked(modelstore_db_config_flag(connection.handle, SQLITE_DBCONFIG_ENABLE_VIEW, 1))
        try connection.execute("PRAGMA foreign_keys = OFF")
        try connection.execute(sql)
    }

    /// Rewrites the CREATE statement of `table` in `sqlite_schema` (what
    /// `PRAGMA writable_schema` allows), replacing `old` with `new`: a
    /// constraint or a column attribute that ALTER TABLE cannot add.
    static func rewriteSchema(_ url: URL, table: String, replacing old: String, with new: String) throws {
        try plant(
            url,
            """
            PRAGMA writable_schema = ON;
            UPDATE sqlite_schema SET sql = replace(sql, '\(old.replacingOccurrences(of: "'", with: "''"))', \
            '\(new.replacingOccurrences(of: "'", with: "''"))') WHERE name = '\(table)';
            PRAGMA writable_schema = OFF;
            """)
    }

    /// How many rows the planted triggers wrote.
    static func canaryCount(_ url: URL) throws -> Int64 {
        let connection = try Connection(location: url.path, mode: .readOnly)
        let statement = try connection.prepare(
            "SELECT count(*) FROM \"_modelstore_metadata\" WHERE \"key\" LIKE '\(canaryKey)%'")
        _ = try statement.step()
        return statement.int64(at: 0)
    }

    /// SQL for a trigger on `table` firing on `event` that writes a canary row.
    static func canaryTrigger(_ name: String, on table: String, _ event: String) -> String {
        """
        CREATE TRIGGER "\(name)" \(event) ON "\(table)" BEGIN
          INSERT INTO "_modelstore_metadata" ("key", "value") VALUES ('\(canaryKey)' || random(), 1);
        END;
        """
    }

    private static func checked(_ code: Int32) throws {
        struct ConfigurationFailed: Error { let code: Int32 }
        if code != SQLITE_OK { throw ConfigurationFailed(code: code) }
    }
}

/// A hand-made attack that leaves a schema object ModelStore did not make.
struct ForeignObjectAttack: Sendable, CustomTestStringConvertible {
    let name: String
    /// What the audit must name.
    let expected: ForeignSchemaObject
    /// Makes the attack on a base store.
    let apply: @Sendable (URL) throws -> Void

    var testDescription: String { name }

    static let all: [ForeignObjectAttack] = [
        ForeignObjectAttack(
            name: "AFTER INSERT trigger on an entity table",
            expected: ForeignSchemaObject(kind: .trigger, name: "spy_insert", table: "Trip")
        ) { try HostileFile.plant($0, HostileFile.canaryTrigger("spy_insert", on: "Trip", "AFTER INSERT")) },
        ForeignObjectAttack(
            name: "BEFORE UPDATE trigger",
            expected: ForeignSchemaObject(kind: .trigger, name: "spy_update", table: "Trip")
        ) { try HostileFile.plant($0, HostileFile.canaryTrigger("spy_update", on: "Trip", "BEFORE UPDATE")) },
        ForeignObjectAttack(
            name: "AFTER DELETE trigger on a to-many's table",
            expected: ForeignSchemaObject(kind: .trigger, name: "spy_delete", table: "Stop")
        ) { try HostileFile.plant($0, HostileFile.canaryTrigger("spy_delete", on: "Stop", "AFTER DELETE")) },
        ForeignObjectAttack(
            name: "trigger on a join table",
            expected: ForeignSchemaObject(kind: .trigger, name: "spy_link", table: nil)
        ) { url in
            let joinTable = try Self.joinTableName(url)
            try HostileFile.plant(url, HostileFile.canaryTrigger("spy_link", on: joinTable, "AFTER INSERT"))
        },
        ForeignObjectAttack(
            name: "trigger on ModelStore's metadata table",
            expected: ForeignSchemaObject(kind: .trigger, name: "spy_metadata", table: "_modelstore_metadata")
        ) { try HostileFile.plant($0, HostileFile.canaryTrigger("spy_metadata", on: "_modelstore_metadata", "AFTER UPDATE")) },
        ForeignObjectAttack(
            name: "a view that replaced an entity table, with an INSTEAD OF trigger",
            expected: ForeignSchemaObject(kind: .view, name: "Tag", table: nil)
        ) { url in
            try HostileFile.plant(
                url,
                """
                ALTER TABLE "Tag" RENAME TO "Tag_hidden";
                CREATE VIEW "Tag" AS SELECT * FROM "Tag_hidden";
                \(HostileFile.canaryTrigger("spy_view", on: "Tag", "INSTEAD OF INSERT"))
                """)
        },
        ForeignObjectAttack(
            name: "a view of its own",
            expected: ForeignSchemaObject(kind: .view, name: "trip_names", table: nil)
        ) { try HostileFile.plant($0, "CREATE VIEW trip_names AS SELECT name FROM \"Trip\"") },
        ForeignObjectAttack(
            name: "a recursive view that never ends",
            expected: ForeignSchemaObject(kind: .view, name: "forever", table: nil)
        ) {
            try HostileFile.plant(
                $0, "CREATE VIEW forever AS WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n) SELECT x FROM n")
        },
        ForeignObjectAttack(
            name: "a CHECK constraint calling a function",
            expected: ForeignSchemaObject(kind: .checkConstraint, name: "Tag", table: "Tag")
        ) { try HostileFile.rewriteSchema($0, table: "Tag", replacing: ") STRICT", with: ", CHECK (length(\"name\") < 1000)) STRICT") },
        ForeignObjectAttack(
            name: "a column with a CHECK constraint added by ALTER TABLE",
            expected: ForeignSchemaObject(kind: .column, name: "rating", table: "Trip")
        ) { try HostileFile.plant($0, "ALTER TABLE \"Trip\" ADD COLUMN rating INTEGER CHECK (rating >= 0)") },
        ForeignObjectAttack(
            name: "a generated column",
            expected: ForeignSchemaObject(kind: .generatedColumn, name: "shout", table: "Trip")
        ) { try HostileFile.plant($0, "ALTER TABLE \"Trip\" ADD COLUMN shout TEXT GENERATED ALWAYS AS (upper(name)) VIRTUAL") },
        ForeignObjectAttack(
            name: "a default computed by an expression",
            expected: ForeignSchemaObject(kind: .columnDefault, name: "name", table: "Tag")
        ) { try HostileFile.rewriteSchema($0, table: "Tag", replacing: "\"name\" TEXT NOT NULL", with: "\"name\" TEXT NOT NULL DEFAULT (hex(randomblob(8)))") },
        ForeignObjectAttack(
            name: "a foreign key given an ON DELETE action",
            expected: ForeignSchemaObject(kind: .foreignKey, name: "trip", table: "Stop")
        ) { try HostileFile.rewriteSchema($0, table: "Stop", replacing: "DEFERRABLE", with: "ON DELETE SET NULL DEFERRABLE") },
        ForeignObjectAttack(
            name: "an index on an expression",
            expected: ForeignSchemaObject(kind: .expressionIndex, name: "by_length", table: "Trip")
        ) { try HostileFile.plant($0, "CREATE INDEX by_length ON \"Trip\" (length(name))") },
        ForeignObjectAttack(
            name: "a partial index",
            expected: ForeignSchemaObject(kind: .partialIndex, name: "long_names", table: "Trip")
        ) { try HostileFile.plant($0, "CREATE INDEX long_names ON \"Trip\" (name) WHERE length(name) > 3") },
        ForeignObjectAttack(
            name: "an index the record does not list",
            expected: ForeignSchemaObject(kind: .index, name: "extra", table: "Stop")
        ) { try HostileFile.plant($0, "CREATE INDEX extra ON \"Stop\" (title)") },
        ForeignObjectAttack(
            name: "a table the record does not list",
            expected: ForeignSchemaObject(kind: .table, name: "scratch", table: nil)
        ) { try HostileFile.plant($0, "CREATE TABLE scratch (x)") },
        ForeignObjectAttack(
            name: "a virtual table",
            expected: ForeignSchemaObject(kind: .virtualTable, name: "places", table: nil)
        ) { try HostileFile.plant($0, "CREATE VIRTUAL TABLE places USING rtree(id, minX, maxX)") },
        ForeignObjectAttack(
            name: "a plain column the record does not list",
            expected: ForeignSchemaObject(kind: .column, name: "color", table: "Stop")
        ) { try HostileFile.plant($0, "ALTER TABLE \"Stop\" ADD COLUMN color TEXT") },
    ]

    /// The name of the base store's join table (Trip.tags ↔ Tag.trips).
    static func joinTableName(_ url: URL) throws -> String {
        let connection = try Connection(location: url.path, mode: .readOnly)
        let statement = try connection.prepare(
            "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT IN ('Trip', 'Stop', 'Tag', 'Person') "
                + "AND name NOT LIKE '\\_modelstore%' ESCAPE '\\' AND name NOT LIKE 'sqlite%'")
        guard try statement.step() else { return "" }
        return statement.string(at: 0)
    }
}
