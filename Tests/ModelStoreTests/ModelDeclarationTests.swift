import Foundation
import Testing
@testable import ModelStore

/// Runtime checks of what `@Model` generates, compiled by the real compiler.
@Suite("Model declarations")
struct ModelDeclarationTests {
    @Test func generatedPropertyTable() throws {
        let properties = Trip._$persistentProperties
        #expect(properties.map(\.name) == ["name", "destination", "startDate", "budget", "tags", "status", "notes"])
        #expect(properties.map(\.ordinal) == Array(0..<7))
        let name = try #require(properties[0].attribute)
        #expect(name.kind == .string && name.isUnique && !name.isOptional)
        let budget = try #require(properties[3].attribute)
        #expect(budget.kind == .codable && budget.representation == .json && budget.isOptional)
        let status = try #require(properties[5].attribute)
        #expect(status.kind == .string && status.representation == .rawValue && status.swiftType == "Status")
        let notes = try #require(properties[6].attribute)
        #expect(notes.originalName == "notes_text" && notes.isOptional)
        #expect(properties[1].keyPath == \Trip.destination)
    }

    @Test func conformances() {
        let trip = makeTrip()
        func isObservable<T: Observable>(_: T) -> Bool { true }
        #expect(isObservable(trip))
        #expect(Trip.entityName == "Trip")
    }

    @Test func privateStorageDefaultsAndCustomInitializers() throws {
        let store = try TestStore()
        let container = try store.container()
        let context = ModelContext(container)
        let account = Account(secret: "hidden")
        account.deposit(10)
        account.count = 2
        context.insert(account)
        try context.save()
        account.deposit(5)
        #expect(context.changedKeyPaths(of: account).count == 1)
        try context.save()
        let fetched = try #require(try ModelContext(container).fetch(FetchDescriptor<Account>()).first)
        #expect(fetched.revealedSecret == "hidden")
        #expect(fetched.balance == 15)
        #expect(fetched.count == 2)
        #expect(fetched.id == account.id)
    }

    @Test func nonFinalClassesWork() throws {
        let store = try TestStore()
        let container = try store.container()
        let context = ModelContext(container)
        context.insert(Note(text: "hello"))
        try context.save()
        let note = try #require(try ModelContext(container).fetch(FetchDescriptor<Note>()).first)
        #expect(note.text == "hello")
    }

    @Test func modelsNamedLikeTheGeneratedGenericParametersWork() throws {
        let store = try TestStore()
        let container = try store.container([Member.self, MutationResult.self])
        let context = ModelContext(container)
        let member = Member(name: "Ada")
        context.insert(member)
        context.insert(MutationResult(outcome: "ok"))
        try context.save()
        let changed = Flag()
        withObservationTracking { _ = member.name } onChange: { changed.set() }
        member.name = "Grace"
        #expect(changed.value)
        try context.save()
        let fetched = try #require(try ModelContext(container).fetch(FetchDescriptor<Member>()).first)
        #expect(fetched.name == "Grace")
        #expect(try ModelContext(container).fetch(FetchDescriptor<MutationResult>()).map(\.outcome) == ["ok"])
    }

    @Test func schemaRecordRoundTrips() throws {
        let schema = Schema([Trip.self, AllTypes.self], version: Schema.Version(2, 1, 0))
        let decoded = try Schema(recordData: try schema.recordData())
        #expect(decoded == schema)
        #expect(decoded.version == Schema.Version(2, 1, 0))
        #expect(decoded.fingerprint == schema.fingerprint)
        #expect(decoded.entities[0].properties.isEmpty, "a record carries no accessors")
    }

    @Test(.opensStoreFile) func storeRecordsItsSchema() throws {
        let store = try TestStore()
        let container = try store.container([Trip.self])
        let connection = try Connection(location: store.url.path, mode: .readOnly)
        let statement = try connection.prepare(#"SELECT "key", "value" FROM "_modelstore_metadata" ORDER BY "key""#)
        var metadata: [String: SQLiteValue] = [:]
        while try statement.step() { metadata[statement.string(at: 0)] = statement.value(at: 1) }
        #expect(metadata["formatVersion"] == .integer(Int64(StoreFormat.current)))
        #expect(metadata["schemaVersion"] == .text("1.0.0"))
        #expect(metadata["schemaFingerprint"] == .text(container.schema.fingerprint))
        guard case .text(let record)? = metadata["schema"] else {
            Issue.record("no schema record")
            return
        }
        #expect(try Schema(recordData: Data(record.utf8)) == container.schema)
        let journal = try connection.prepare("PRAGMA journal_mode")
        _ = try journal.step()
        #expect(journal.string(at: 0) == "wal")
        // Every context's own connection runs with synchronous = NORMAL (1).
        let context = ModelContext(container)
        let synchronous = try context.connection().prepare("PRAGMA synchronous")
        _ = try synchronous.step()
        #expect(synchronous.int64(at: 0) == 1)
    }
}

/// Named like the generic parameters `@Model`'s generated functions once had,
/// which shadowed the class inside them and broke the build.
@Model final class Member {
    var name: String
    init(name: String) { self.name = name }
}

@Model final class MutationResult {
    var outcome: String
    init(outcome: String) { self.outcome = outcome }
}
