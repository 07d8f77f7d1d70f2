import Foundation
import Testing
@testable import ModelStore
@testable import ModelStoreDynamic

@Suite("Dynamic layer: a store opened by path, objects as entity + values")
struct DynamicStoreTests {
    @Test("reads every attribute kind with the types the app wrote")
    func readsAllTypes() throws {
        let store = try TestStore()
        let context = ModelContext(try store.container())
        let all = AllTypes()
        all.int8 = -5
        all.date = Date(timeIntervalSince1970: 1_700_000_000.5)
        all.status = .booked
        all.budget = Budget(amount: 1.5, currency: "EUR")
        all.optionalString = "x"
        all.double = .nan
        context.insert(all)
        try context.save()
        let dynamic = try DynamicStore(path: store.url.path(percentEncoded: false))
        let object = try #require(try dynamic.object(ObjectID(entity: "AllTypes", key: 1)))
        #expect(object["int8"] == .int(-5))
        #expect(object["date"] == .date(Date(timeIntervalSince1970: 1_700_000_000.5)))
        #expect(object["status"] == .string("booked"))
        #expect(object["budget"] == .json(#"{"amount":1.5,"currency":"EUR"}"#))
        #expect(object["optionalString"] == .string("x"))
        #expect(object["optionalInt"] == .null)
        #expect(object["uuid"] == .uuid(all.uuid))
        if case .double(let value)? = object["double"] { #expect(value.isNaN) } else { Issue.record("double") }
    }

    @Test("filters compile through the library's compiler, with typed constants")
    func filters() throws {
        let store = try TestStore()
        _ = try store.containerWithSavedTrips(5)
        let dynamic = try DynamicStore(path: store.url.path(percentEncoded: false))
        #expect(try dynamic.count("Trip", filter: #"name == "T3""#) == 1)
        #expect(try dynamic.count("Trip", filter: #"startDate == "2023-11-14T22:13:20Z""#) == 5)
        #expect(try dynamic.count("Trip", filter: #"status in ["planned"] and notes == nil"#) == 5)
        #expect(try dynamic.objects(DynamicQuery(entity: "Trip", sort: ["name:desc"], limit: 2)).map(\.id.key) == [5, 4])
        #expect(throws: ModelStoreError.unknownProperty(entity: "Trip", property: "nam")) {
            try dynamic.count("Trip", filter: #"nam == "x""#)
        }
        #expect(throws: DynamicStoreError.self) { try dynamic.count("Trip", filter: #"startDate > 3"#) }
        #expect(throws: DynamicStoreError.self) { try dynamic.count("Trip", filter: #"status > true"#) }
    }

    @Test("a read-only store refuses edits; a writable one edits in one transaction")
    func edits() throws {
        let store = try TestStore()
        let container = try store.containerWithSavedTrips(2)
        let path = store.url.path(percentEncoded: false)
        let readOnly = try DynamicStore(path: path)
        #expect(throws: ModelStoreError.readOnlyStore(path: path)) {
            try readOnly.update(ObjectID(entity: "Trip", key: 1), [DynamicEdit(property: "destination", operation: .set, value: "x")])
        }
        let writable = try DynamicStore(path: path, readOnly: false)
        let result = try writable.update(
            ObjectID(entity: "Trip", key: 1),
            [DynamicEdit(property: "destination", operation: .set, value: "Porto"), DynamicEdit(property: "notes", operation: .set, value: "n")])
        #expect(result.before?["destination"] == .string("Portugal"))
        #expect(result.after["destination"] == .string("Porto"))
        // A failing edit writes none of its other values.
        #expect(throws: DynamicStoreError.self) {
            try writable.update(
                ObjectID(entity: "Trip", key: 1),
                [DynamicEdit(property: "notes", operation: .set, value: "changed"), DynamicEdit(property: "name", operation: .set, value: "T1")])
        }
        let trips = try ModelContext(container).fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)]))
        #expect(trips.map(\.destination) == ["Porto", "Portugal"])
        #expect(trips[0].notes == "n")
    }

    @Test("the delete plan is the typed save's: cascade, nullify and deny")
    func deletePlan() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file()
        let container = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(url: url))
        try ModelContext(container).save()
        let dynamic = try DynamicStore(path: url.path(percentEncoded: false), readOnly: false)
        let inserted = try dynamic.insert(
            "Trip",
            ["name=A", "destination=B", "startDate=2025-01-01", "tags=[]", "status=planned"].map { try DynamicEdit(parsing: $0) })
        #expect(inserted.id == ObjectID(entity: "Trip", key: 1))
        let plan = try dynamic.deletePlan([inserted.id])
        #expect(plan.deleted == [inserted.id])
        #expect(!plan.isBlocked)
        try dynamic.delete([inserted.id], dryRun: true)
        #expect(try dynamic.count("Trip") == 1)
        try dynamic.delete([inserted.id])
        #expect(try dynamic.count("Trip") == 0)
    }
}
