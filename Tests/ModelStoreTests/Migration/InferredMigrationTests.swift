import Foundation
import Testing
@testable import ModelStore

private let person = Schema.Entity(
    name: "Person",
    attributes: [attribute("name", .string), attribute("age", .int32), attribute("nickname", .string, optional: true)])
private let seed = """
    INSERT INTO Person (name, age, nickname) VALUES ('Ada', 36, NULL), ('Alan', 41, 'Al'), ('Grace', 85, 'Amazing');
    DELETE FROM Person WHERE name = 'Grace';
    """

/// Creates a store with `v1`, runs `seed`, reopens with `v2` (inferring the migration).
private func migrated(
    from v1: [Schema.Entity] = [person], seed: String = seed, to v2: [Schema.Entity], allowsDataLoss: Bool = false
) throws -> StoreFile {
    let url = try TemporaryDirectory().file()
    try open(url, entities: v1)
    let file = StoreFile(url: url)
    try file.execute(seed)
    try open(url, entities: v2, version: Schema.Version(2, 0, 0), allowsDataLoss: allowsDataLoss)
    return file
}

private func with(_ entity: Schema.Entity, _ change: (inout Schema.Entity) -> Void) -> Schema.Entity {
    var copy = entity
    change(&copy)
    return copy
}

@Suite("Inferred migration")
struct InferredMigrationTests {
    @Test("A new optional attribute is added with ALTER TABLE; rows keep their values and get nil")
    func addOptionalAttribute() throws {
        let file = try migrated(to: [with(person) { $0.attributes.append(attribute("email", .string, optional: true)) }])
        #expect(try file.rows("SELECT _pk, name, age, nickname, email FROM Person ORDER BY _pk") == [
            [.integer(1), .text("Ada"), .integer(36), .null, .null],
            [.integer(2), .text("Alan"), .integer(41), .text("Al"), .null],
        ])
        #expect(try file.storedSchema().entity(named: "Person")?.attribute(named: "email") != nil)
        #expect(try file.rows("SELECT kind FROM _modelstore_migrations") == [[.text("inferred")]])
    }

    @Test("An attribute renamed through originalName keeps its values")
    func renameAttribute() throws {
        let file = try migrated(to: [
            with(person) { $0.attributes[0] = attribute("fullName", .string, originalName: "name") }
        ])
        #expect(try file.rows("SELECT fullName FROM Person ORDER BY _pk") == [[.text("Ada")], [.text("Alan")]])
        #expect(try file.rows("SELECT name FROM pragma_table_info('Person') WHERE name = 'name'").isEmpty)
    }

    @Test("An entity renamed through originalName keeps its rows, keys and key counter")
    func renameEntity() throws {
        let file = try migrated(to: [with(person) { $0.name = "Human"; $0.originalName = "Person" }])
        #expect(try file.rows("SELECT _pk, name FROM Human ORDER BY _pk") == [[.integer(1), .text("Ada")], [.integer(2), .text("Alan")]])
        #expect(try file.rows("SELECT name FROM sqlite_schema WHERE name = 'Person'").isEmpty)
        #expect(try file.rows("SELECT seq FROM sqlite_sequence WHERE name = 'Human'") == [[.integer(3)]])
    }

    @Test("Widening Int32 to Int64 and Float to Double keeps every value")
    func widenTypes() throws {
        let v1 = with(person) { $0.attributes.append(attribute("ratio", .float)) }
        let file = try migrated(
            from: [v1], seed: "INSERT INTO Person (name, age, ratio) VALUES ('Ada', 2147483647, 0.5)",
            to: [with(v1) { $0.attributes[1].kind = .int64; $0.attributes[3].kind = .double }])
        #expect(try file.rows("SELECT age, ratio FROM Person") == [[.integer(2_147_483_647), .real(0.5)]])
        #expect(try file.storedSchema().entity(named: "Person")?.attribute(named: "age")?.kind == .int64)
    }

    @Test("Making an attribute optional rebuilds the table without NOT NULL; values and the key counter survive")
    func makeOptional() throws {
        let file = try migrated(to: [with(person) { $0.attributes[1].isOptional = true }])
        #expect(try file.rows("SELECT _pk, age FROM Person ORDER BY _pk") == [[.integer(1), .integer(36)], [.integer(2), .integer(41)]])
        #expect(try file.rows("SELECT \"notnull\" FROM pragma_table_info('Person') WHERE name = 'age'") == [[.integer(0)]])
        // Grace's key (3) is never given again.
        try file.execute("INSERT INTO Person (name, age) VALUES ('Hedy', 1)")
        #expect(try file.rows("SELECT _pk FROM Person WHERE name = 'Hedy'") == [[.integer(4)]])
    }

    @Test("Several changes to one table share one rebuild")
    func oneRebuild() throws {
        let url = try TemporaryDirectory().file()
        try open(url, entities: [person])
        let file = StoreFile(url: url)
        try file.execute(seed)
        var configuration = migrationConfiguration(url)
        let recorder = StepRecorder()
        configuration.migrationOptions.progress = { recorder.add($0) }
        let v2 = with(person) {
            $0.attributes[1].kind = .int64
            $0.attributes[2].isOptional = true
            $0.attributes[0].options = [.unique]
            $0.attributes.append(attribute("email", .string, optional: true))
        }
        _ = try ModelContainer(for: Schema(entities: [v2], version: Schema.Version(2, 0, 0)), configurations: [configuration])
        #expect(recorder.steps.filter { $0.contains("rebuild table Person") }.count == 1)
        #expect(recorder.rows.last == 2)
        #expect(try file.rows("SELECT name, age, nickname, email FROM Person ORDER BY _pk") == [
            [.text("Ada"), .integer(36), .null, .null], [.text("Alan"), .integer(41), .text("Al"), .null],
        ])
    }

    @Test("A new entity gets its table; a removed empty entity loses its table")
    func addAndRemoveEntity() throws {
        let empty = Schema.Entity(name: "Empty", attributes: [attribute("x", .int)])
        let file = try migrated(
            from: [person, empty], to: [person, Schema.Entity(name: "Place", attributes: [attribute("title", .string)])])
        #expect(try file.rows("SELECT name FROM sqlite_schema WHERE type = 'table' AND name IN ('Place', 'Empty')") == [[.text("Place")]])
    }

    @Test("#Unique and #Index become indexes; a dropped #Index goes away")
    func constraintsAndIndexes() throws {
        let indexed = with(person) { $0.indexes = [["age"]] }
        let file = try migrated(
            from: [indexed], to: [with(person) { $0.uniqueConstraints = [["name", "age"]]; $0.indexes = [["nickname", "age"]] }])
        #expect(try file.rows("SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'Person' ORDER BY name") == [
            [.text("Person.index(nickname,age)")], [.text("Person.unique(name,age)")],
        ])
    }

    @Test("Adding a unique constraint over duplicate values is an error naming the rows; nothing changes")
    func uniqueOverDuplicates() throws {
        let url = try TemporaryDirectory().file()
        try open(url, entities: [person])
        let file = StoreFile(url: url)
        try file.execute("INSERT INTO Person (name, age) VALUES ('Ada', 1), ('Bob', 2), ('Ada', 3), ('Ada', 4)")
        let before = try file.everything()
        for v2 in [with(person) { $0.attributes[0].options = [.unique] }, with(person) { $0.uniqueConstraints = [["name"]] }] {
            #expect {
                try open(url, entities: [v2], version: Schema.Version(2, 0, 0))
            } throws: { error in
                guard case ModelStoreError.duplicateValues("Person", ["name"], let rows, _) = error else { return false }
                return rows == [[1, 3, 4]]
            }
            #expect(try file.everything() == before)
        }
    }

    @Test("Dropping an attribute that holds data is refused, naming it and how to allow it; allowsDataLoss allows it")
    func dropAttributeRefused() throws {
        let url = try TemporaryDirectory().file()
        try open(url, entities: [person])
        let file = StoreFile(url: url)
        try file.execute(seed)
        let before = try file.everything()
        let v2 = with(person) { $0.attributes.removeLast() }
        #expect {
            try open(url, entities: [v2], version: Schema.Version(2, 0, 0))
        } throws: { error in
            guard case ModelStoreError.destructiveMigration(_, let changes) = error else { return false }
            return changes.count == 1 && changes[0].contains("Person.nickname") && changes[0].contains("allowsDataLoss")
        }
        #expect(try file.everything() == before)
        try open(url, entities: [v2], version: Schema.Version(2, 0, 0), allowsDataLoss: true)
        #expect(try file.rows("SELECT name FROM pragma_table_info('Person') WHERE name = 'nickname'").isEmpty)
        #expect(try file.rows("SELECT name FROM Person ORDER BY _pk") == [[.text("Ada")], [.text("Alan")]])
    }

    @Test("An attribute that holds only nil, or an empty entity, is dropped without refusal")
    func dropEmptyAttribute() throws {
        let file = try migrated(
            seed: "INSERT INTO Person (name, age) VALUES ('Ada', 36)", to: [with(person) { $0.attributes.removeLast() }])
        #expect(try file.rows("SELECT name, age FROM Person") == [[.text("Ada"), .integer(36)]])
    }

    @Test(
        "Narrowing a type and non-optional over nils are refused together",
        arguments: [true, false])
    func lossyChangesRefused(together: Bool) throws {
        let url = try TemporaryDirectory().file()
        try open(url, entities: [person])
        let file = StoreFile(url: url)
        try file.execute(seed)
        let before = try file.everything()
        var v2 = with(person) { $0.attributes[1].kind = .int8 }
        if together {
            v2.attributes[2].isOptional = false
        }
        #expect {
            try open(url, entities: [v2], version: Schema.Version(2, 0, 0))
        } throws: { error in
            guard case ModelStoreError.destructiveMigration(_, let changes) = error else { return false }
            return changes.count == (together ? 2 : 1) && changes[0].contains("Person.age")
        }
        #expect(try file.everything() == before)
    }

    /// No permission can fill a new NOT NULL column: neither `allowsDataLoss`
    /// nor a custom stage (whose closures run before and after the rebuild,
    /// never during it) gives the rows a value.
    @Test("A new required attribute without default over existing rows cannot be migrated, whatever is allowed",
          arguments: [false, true])
    func newRequiredAttributeWithoutDefault(allowsDataLoss: Bool) throws {
        let url = try TemporaryDirectory().file()
        try open(url, entities: [person])
        let file = StoreFile(url: url)
        try file.execute(seed)
        let before = try file.everything()
        let v2 = with(person) { $0.attributes.append(attribute("email", .string)) }
        #expect {
            try open(url, entities: [v2], version: Schema.Version(2, 0, 0), allowsDataLoss: allowsDataLoss)
        } throws: { error in
            guard case ModelStoreError.noMigrationPath(_, let reason) = error else { return false }
            return reason.contains("Person.email") && reason.contains("2 rows") && reason.contains("didMigrate")
        }
        #expect(try file.everything() == before)
    }
}
