import Foundation
import Testing
@testable import ModelStore

@Suite("Bad input gives clear errors and loses nothing")
struct BadInputTests {
    private func open(_ url: URL, allowsSave: Bool = true) throws -> ModelContainer {
        try ModelContainer(for: Trip.self, configurations: ModelConfiguration(url: url, allowsSave: allowsSave))
    }

    /// Runs raw SQL on a file, as an operator with the sqlite3 shell would.
    private func rawSQL(_ url: URL, _ sql: String) throws {
        let connection = try Connection(location: url.path, mode: .create)
        try connection.execute(sql)
    }

    /// A store holding one saved `AllTypes` object, then changed by `sql`
    /// behind ModelStore's back. The directory must outlive the container.
    private func allTypesStore(changedBy sql: String) throws -> (container: ModelContainer, url: URL, directory: TemporaryDirectory) {
        let directory = try TemporaryDirectory()
        let url = directory.file()
        let container = try ModelContainer(for: AllTypes.self, configurations: ModelConfiguration(url: url))
        let context = ModelContext(container)
        context.insert(AllTypes())
        try context.save()
        try rawSQL(url, sql)
        return (container, url, directory)
    }

    @Test func fileThatIsNotSQLite() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("notes.txt")
        let text = String(repeating: "These are my notes, not a database.\n", count: 100)
        try Data(text.utf8).write(to: url)
        #expect(throws: ModelStoreError.notADatabase(path: url.path)) { try open(url) }
        #expect(try String(contentsOf: url, encoding: .utf8) == text, "the file is left as it was")
    }

    @Test func sqliteFileThatIsNotAModelStore() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("other.sqlite")
        try rawSQL(url, "CREATE TABLE people (name TEXT); INSERT INTO people VALUES ('Ada')")
        #expect {
            try open(url)
        } throws: { error in
            guard case ModelStoreError.notAModelStore(let path, let reason) = error else { return false }
            return path == url.path && reason.contains("_modelstore_metadata")
        }
        let connection = try Connection(location: url.path, mode: .readOnly)
        let statement = try connection.prepare("SELECT count(*) FROM people")
        _ = try statement.step()
        #expect(statement.int64(at: 0) == 1)
    }

    @Test func storeOfANewerFormat() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file()
        _ = try open(url)
        try rawSQL(url, #"UPDATE "_modelstore_metadata" SET "value" = 99 WHERE "key" = 'formatVersion'"#)
        #expect(throws: ModelStoreError.newerFormat(path: url.path, found: 99, supported: Store.formatVersion)) {
            try open(url)
        }
    }

    @Test func locationThatCannotBeWritten() throws {
        let directory = try TemporaryDirectory()
        let missingFolder = directory.url.appending(path: "no/such/folder/test.store")
        #expect {
            try open(missingFolder)
        } throws: { error in
            guard case ModelStoreError.cannotOpen(let path, let reason) = error else { return false }
            return path == missingFolder.path && reason.contains("does not exist")
        }
        #expect {
            try open(directory.url)
        } throws: { error in
            guard case ModelStoreError.cannotOpen(_, let reason) = error else { return false }
            return reason.contains("folder")
        }
    }

    @Test func readOnlyStore() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file()
        do {
            let context = ModelContext(try open(url))
            context.insert(makeTrip())
            try context.save()
        }
        let context = ModelContext(try open(url, allowsSave: false))
        let trip = try #require(try context.fetch(FetchDescriptor<Trip>()).first)
        trip.destination = "Spain"
        #expect(throws: ModelStoreError.readOnlyStore(path: url.path)) { try context.save() }
        #expect(context.hasChanges)
        #expect(throws: ModelStoreError.self) { try open(directory.file("missing.store"), allowsSave: false) }
    }

    @Test func schemaDifferenceIsListed() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file()
        _ = try ModelContainer(for: Trip.self, Note.self, configurations: ModelConfiguration(url: url))
        // Read-only, nothing can be migrated: the differences are listed.
        // (Opened for writing, this change would be inferred: Note is empty.)
        #expect {
            try ModelContainer(for: Trip.self, Account.self, configurations: ModelConfiguration(url: url, allowsSave: false))
        } throws: { error in
            guard case ModelStoreError.schemaMismatch(_, let differences) = error else { return false }
            return differences == [.entityRemoved("Note"), .entityAdded("Account")]
                && error.localizedDescription.contains("entity Note is no longer in the schema")
        }
    }

    @Test func attributeDifferencesAreListed() {
        let old = Schema(entities: [
            Schema.Entity(
                name: "Trip",
                attributes: [
                    .init(name: "name", kind: .string, swiftType: "String", isOptional: false),
                    .init(name: "rating", kind: .int, swiftType: "Int", isOptional: false),
                    .init(name: "notes", kind: .string, swiftType: "String", isOptional: false),
                ])
        ])
        let new = Schema(entities: [
            Schema.Entity(
                name: "Trip",
                attributes: [
                    .init(name: "name", kind: .string, swiftType: "String", isOptional: false, options: [.unique]),
                    .init(name: "rating", kind: .double, swiftType: "Double", isOptional: false),
                    .init(name: "notes", kind: .string, swiftType: "String", isOptional: true),
                    .init(name: "added", kind: .date, swiftType: "Date", isOptional: true),
                ])
        ])
        #expect(
            new.differences(from: old) == [
                .attributeUniquenessChanged(entity: "Trip", attribute: "name", isUnique: true),
                .attributeTypeChanged(entity: "Trip", attribute: "rating", from: "int", to: "double"),
                .attributeOptionalityChanged(entity: "Trip", attribute: "notes", isOptional: true),
                .attributeAdded(entity: "Trip", attribute: "added"),
            ])
        #expect(new.fingerprint != old.fingerprint)
        #expect(old.differences(from: old).isEmpty)
    }

    /// Rebuilds the Trip table without STRICT and NOT NULL, as a careless
    /// tool might, so that a wrong value can be written by hand.
    private func storeWithLooseTripTable() throws -> TemporaryDirectory {
        let directory = try TemporaryDirectory()
        let url = directory.file()
        let context = ModelContext(try open(url))
        context.insert(makeTrip("Good"))
        try context.save()
        try rawSQL(
            url,
            """
            CREATE TABLE loose AS SELECT * FROM "Trip";
            DROP TABLE "Trip";
            CREATE TABLE "Trip" ("_pk" INTEGER PRIMARY KEY AUTOINCREMENT, "name", "destination", "startDate",
                                 "budget", "tags", "status", "notes", "_version" INTEGER NOT NULL DEFAULT 1);
            INSERT INTO "Trip" SELECT * FROM loose;
            DROP TABLE loose;
            """)
        return directory
    }

    @Test(arguments: [
        (#"UPDATE "Trip" SET "destination" = NULL"#, "destination", "NULL"),
        (#"UPDATE "Trip" SET "startDate" = 'yesterday'"#, "startDate", "found TEXT"),
        (#"UPDATE "Trip" SET "status" = 'lost'"#, "status", "no case of Status"),
        (#"UPDATE "Trip" SET "tags" = '{not json'"#, "tags", "JSON"),
        (#"UPDATE "Trip" SET "name" = 42"#, "name", "found INTEGER"),
    ])
    func handEditedRowWithAWrongValue(sql: String, property: String, reasonPart: String) throws {
        let directory = try storeWithLooseTripTable()
        let url = directory.file()
        try rawSQL(url, sql)
        let context = ModelContext(try open(url))
        #expect {
            try context.fetch(FetchDescriptor<Trip>())
        } throws: { error in
            guard case ModelStoreError.invalidValue(let entity, let name, let row, let reason, let path) = error
            else { return false }
            return entity == "Trip" && name == property && row == 1 && reason.contains(reasonPart) && path == url.path
        }
        #expect(try context.fetchCount(FetchDescriptor<Trip>()) == 1, "nothing was lost")
    }

    @Test func jsonErrorsDoNotQuoteStoredValues() throws {
        let store = try allTypesStore(changedBy: #"UPDATE "AllTypes" SET "statuses" = '["secret-value"]'"#)
        #expect {
            try ModelContext(store.container).fetch(FetchDescriptor<AllTypes>())
        } throws: { error in
            guard case ModelStoreError.invalidValue(_, "statuses", 1, let reason, _) = error else { return false }
            return !"\(error)".contains("secret-value") && reason.contains("[0]")
        }
    }

    /// Values a STRICT table accepts that do not fit the property: each
    /// decoder's error path (the fast paths are inlined into the app's code).
    @Test(arguments: [
        (#"UPDATE "AllTypes" SET "int8" = 300"#, "int8", "Int8"),
        (#"UPDATE "AllTypes" SET "uint8" = -1"#, "uint8", "UInt8"),
        (#"UPDATE "AllTypes" SET "bool" = 2"#, "bool", "0 or 1"),
        (#"UPDATE "AllTypes" SET "double" = 'many'"#, "double", "expected REAL, found TEXT"),
    ])
    func storedValueThatDoesNotFitItsProperty(sql: String, property: String, reasonPart: String) throws {
        let store = try allTypesStore(changedBy: sql)
        #expect {
            try ModelContext(store.container).fetch(FetchDescriptor<AllTypes>())
        } throws: { error in
            guard case ModelStoreError.invalidValue("AllTypes", property, 1, let reason, store.url.path) = error else { return false }
            return reason.contains(reasonPart)
        }
    }

    @Test func aStoredNaNTextReadsAsNaN() throws {
        let store = try allTypesStore(changedBy: #"UPDATE "AllTypes" SET "double" = 'NaN', "date" = 86400, "optionalDouble" = 'NaN'"#)
        let fetched = try #require(try ModelContext(store.container).fetch(FetchDescriptor<AllTypes>()).first)
        #expect(fetched.double.isNaN)
        #expect(fetched.date == Date(timeIntervalSince1970: 86400))
        // An optional's unusual forms take the same (generic) path.
        #expect(fetched.optionalDouble?.isNaN == true)
    }

    @Test func strictTablesRefuseWrongTypesFromOtherTools() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file()
        let context = ModelContext(try open(url))
        context.insert(makeTrip())
        try context.save()
        #expect(throws: SQLiteError.self) { try rawSQL(url, #"UPDATE "Trip" SET "startDate" = 'yesterday'"#) }
        #expect(throws: SQLiteError.self) { try rawSQL(url, #"UPDATE "Trip" SET "destination" = NULL"#) }
    }

    @Test func reservedNamesAreRefused() {
        let schema = Schema(entities: [
            Schema.Entity(name: "_modelstore_things", attributes: [])
        ])
        #expect(throws: ModelStoreError.self) { try schema.validate() }
        let clash = Schema(entities: [
            Schema.Entity(name: "Thing", attributes: [.init(name: "_pk", kind: .int, swiftType: "Int", isOptional: false)])
        ])
        #expect(throws: ModelStoreError.self) { try clash.validate() }
        let duplicate = Schema(entities: [
            Schema.Entity(name: "Thing", attributes: []), Schema.Entity(name: "thing", attributes: []),
        ])
        #expect(throws: ModelStoreError.self) { try duplicate.validate() }
    }

    /// Names are told apart without case, as SQLite does, whether a schema
    /// has a few (searched one by one) or many (hashed).
    @Test(arguments: [3, 40])
    func repeatedNamesAreRefusedAndNamed(count: Int) throws {
        func attribute(_ name: String) -> Schema.Attribute {
            .init(name: name, kind: .int, swiftType: "Int", isOptional: false)
        }
        let names = (0..<count).map { "Thing\($0)" }
        let distinct = Schema(entities: names.map { Schema.Entity(name: $0, attributes: names.map(attribute)) })
        try distinct.validate()

        let entities = Schema(entities: (names + ["THING1"]).map { Schema.Entity(name: $0, attributes: []) })
        let entityError = #expect(throws: ModelStoreError.self) { try entities.validate() }
        #expect(entityError?.localizedDescription.contains("two entities are named THING1") == true)

        let properties = Schema(entities: [Schema.Entity(name: "Box", attributes: (names + ["thing0"]).map(attribute))])
        let propertyError = #expect(throws: ModelStoreError.self) { try properties.validate() }
        #expect(propertyError?.localizedDescription.contains("Box has two properties named thing0") == true)

        let reserved = Schema(entities: [Schema.Entity(name: "Box", attributes: (names + ["_Version"]).map(attribute))])
        let reservedError = #expect(throws: ModelStoreError.self) { try reserved.validate() }
        #expect(reservedError?.localizedDescription.contains("Box._Version uses the name of the row version column") == true)
    }
}
