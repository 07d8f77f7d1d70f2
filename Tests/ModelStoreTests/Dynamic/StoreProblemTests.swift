import Foundation
import Testing
@testable import ModelStore
@testable import ModelStoreDynamic

/// `check()` and an import's check report typed problems: each kind with the
/// entity, object and property it concerns.
@Suite("Dynamic layer: typed problems of check and import")
struct StoreProblemTests {
    /// The one problem of `kind` in `problems`.
    private func only(_ kind: StoreProblem.Kind, in problems: [StoreProblem]) throws -> StoreProblem {
        let found = problems.filter { $0.kind == kind }
        #expect(found.count == 1, "\(kind): \(problems.map { "\($0.kind): \($0.message)" })")
        return try #require(found.first)
    }

    @Test("check: values that do not decode or are no case, a missing column, a view")
    func checkValueAndSchemaProblems() throws {
        let store = try TestStore()
        let container = try store.container()
        let context = ModelContext(container)
        for name in ["Lisbon", "Kyoto"] { context.insert(makeTrip(name)) }
        context.insert(Note(text: "n"))
        try context.save()
        let path = store.url.path(percentEncoded: false)
        let connection = try Connection(location: path, mode: .readWrite)
        try connection.execute("UPDATE Trip SET budget = 'not json' WHERE _pk = 1")
        try connection.execute("UPDATE Trip SET status = 'lost' WHERE _pk = 2")
        try connection.execute("ALTER TABLE Note DROP COLUMN text")
        try connection.execute("CREATE VIEW names AS SELECT name FROM Trip")

        let problems = try DynamicStore(path: path).check()
        let badValues = problems.filter { $0.kind == .badValue }
        #expect(
            Set(badValues.map { "\($0.entity ?? "")|\($0.object?.description ?? "")|\($0.property ?? "")" })
                == ["Trip|Trip:1|budget", "Trip|Trip:2|status"], "\(badValues)")
        #expect(badValues.contains { $0.message == "Trip:2.status: 'lost' is not a case of Status; the cases are planned, booked, done" })
        let schema = try only(.schemaMismatch, in: problems)
        #expect(schema.entity == "Note" && schema.property == "text")
        #expect(schema.message == "table Note has no column text of the schema record")
        let foreign = try only(.foreignSchemaObject, in: problems)
        #expect(foreign.message.contains("view \"names\""))
    }

    @Test("check: a dangling to-one, an orphaned join row, a required to-one not set")
    func checkLinkProblems() throws {
        let store = try TestStore()
        let container = try store.graphContainer()
        let context = ModelContext(container)
        let lisbon = Graph.Airport(code: "LIS")
        let flight = Graph.Flight(number: "TP1")
        flight.origin = lisbon
        context.insert(Graph.Ticket(code: "A1", flight: flight))
        let trip = Graph.Trip(name: "T")
        trip.tags = [Graph.Tag(name: "sun")]
        context.insert(trip)
        try context.save()
        let path = store.url.path(percentEncoded: false)
        let dynamic = try DynamicStore(path: path)
        let tags = try #require(dynamic.schema.entity(named: "Trip")?.relationship(named: "tags"))
        guard case .joinTable(let joinTable, _) = tags.storage else {
            Issue.record("Trip.tags is stored in \(tags.storage)")
            return
        }
        let connection = try Connection(location: path, mode: .readWrite)
        try connection.execute("PRAGMA foreign_keys = OFF")
        try connection.execute("UPDATE Flight SET origin = 99")
        try connection.execute("UPDATE Ticket SET flight = NULL")
        try connection.execute("DELETE FROM Tag")

        let problems = try DynamicStore(path: path).check()
        let dangling = try only(.danglingReference, in: problems)
        #expect(dangling.entity == "Flight" && dangling.object == ObjectID(entity: "Flight", key: 1) && dangling.property == "origin")
        #expect(dangling.message.hasPrefix("Flight:1.origin names Airport:99, which does not exist"), "\(dangling.message)")
        let orphan = try only(.orphanedJoinRow, in: problems)
        let owner = dynamic.schema.entities.compactMap { entity in
            entity.relationships.first { $0.storage == .joinTable(name: joinTable, isSource: true) }.map { (entity.name, $0.name) }
        }.first
        #expect(orphan.entity == owner?.0 && orphan.property == owner?.1 && orphan.object == nil, "\(orphan) \(String(describing: owner))")
        let required = try only(.missingRequiredValue, in: problems)
        #expect(required.entity == "Ticket" && required.object == ObjectID(entity: "Ticket", key: 1) && required.property == "flight")
    }

    @Test("import: each kind of problem with its entity, record, property, line and suggestions; nothing written")
    func importProblems() throws {
        let store = try TestStore()
        _ = try store.graphContainer()
        let path = store.url.path(percentEncoded: false)
        let lines = [
            #"not a record"#,
            #"{"key":"Airports:1","attributes":{"code":"X"}}"#,
            #"{"key":"Airport:1","attributes":{"code":"LIS","cdoe":"x"}}"#,
            #"{"key":"Airport:1","attributes":{"code":"OPO"}}"#,
            #"{"key":"Airport:2","attributes":{"code":"LIS"}}"#,
            #"{"key":"Stop:1","attributes":{"title":"s","trip":"Trip:1"},"relationships":{"trip":"Trip:9"}}"#,
            #"{"key":"Stop:2","attributes":{"title":7},"relationships":{"trip":"Flight:1"}}"#,
            #"{"key":"Ticket:1","attributes":{"code":"A1"}}"#,
        ]
        let file = store.directory.file("bad.jsonl").path(percentEncoded: false)
        try lines.joined(separator: "\n").write(toFile: file, atomically: true, encoding: .utf8)
        let dynamic = try DynamicStore(path: path, readOnly: false)
        var caught: ImportProblems?
        do {
            _ = try dynamic.importObjects(from: .jsonLines(path: file))
        } catch DynamicStoreError.importProblems(let problems) {
            caught = problems
        }
        let problems = try #require(caught).listed
        func fields(_ problem: StoreProblem) -> String {
            "\(problem.line.map(String.init) ?? "-") \(problem.entity ?? "-") \(problem.object?.description ?? "-") \(problem.property ?? "-")"
        }
        #expect(fields(try only(.unreadableRecord, in: problems)) == "1 - - -")
        let entity = try only(.unknownEntity, in: problems)
        #expect(fields(entity) == "2 Airports - -" && entity.suggestions == ["Airport"])
        let property = try only(.unknownProperty, in: problems)
        #expect(fields(property) == "3 Airport Airport:1 cdoe" && property.suggestions == ["code"])
        #expect(property.message == "Airport:1.cdoe: Airport has no attribute named 'cdoe'")
        #expect(fields(try only(.duplicateKey, in: problems)) == "4 Airport Airport:1 -")
        #expect(fields(try only(.duplicateUniqueValue, in: problems)) == "5 Airport Airport:2 code")
        #expect(fields(try only(.misplacedProperty, in: problems)) == "6 Stop Stop:1 trip")
        #expect(fields(try only(.danglingReference, in: problems)) == "6 Stop Stop:1 trip")
        #expect(fields(try only(.badValue, in: problems)) == "7 Stop Stop:2 title")
        #expect(fields(try only(.malformedKey, in: problems)) == "7 Stop Stop:2 trip")
        #expect(fields(try only(.missingRequiredValue, in: problems)) == "8 Ticket Ticket:1 flight")
        #expect(try dynamic.count("Airport") == 0)
    }

    /// The problems an edit was refused with.
    private func refusal(_ edit: () throws -> Void) -> [StoreProblem] {
        do {
            try edit()
        } catch DynamicStoreError.validationFailed(let problems) {
            return problems
        } catch {
            Issue.record("refused with another error: \(error)")
            return []
        }
        Issue.record("not refused")
        return []
    }

    @Test("edits: a refused set or insert lists typed problems: unique and required values, missing targets")
    func editProblems() throws {
        let store = try TestStore()
        _ = try store.containerWithSavedTrips(2)
        let path = store.url.path(percentEncoded: false)
        let dynamic = try DynamicStore(path: path, readOnly: false)
        let duplicate = refusal {
            _ = try dynamic.update(ObjectID(entity: "Trip", key: 1), [DynamicEdit(property: "name", operation: .set, value: "T1")])
        }
        #expect(duplicate.map(\.kind) == [.duplicateUniqueValue])
        #expect(duplicate.first?.entity == "Trip" && duplicate.first?.object == ObjectID(entity: "Trip", key: 1))
        #expect(duplicate.first?.property == "name")
        let missing = refusal { _ = try dynamic.insert("Trip", [DynamicEdit(property: "name", operation: .set, value: "T9")]) }
        #expect(!missing.isEmpty && missing.allSatisfy { $0.kind == .missingRequiredValue && $0.entity == "Trip" })
        #expect(missing.contains { $0.property == "destination" && $0.message == "Trip.destination is required; give destination=VALUE" })

        let graphStore = try TestStore()
        _ = try graphStore.graphContainer()
        let graph = try DynamicStore(path: graphStore.url.path(percentEncoded: false), readOnly: false)
        let dangling = refusal {
            _ = try graph.insert(
                "Ticket", [DynamicEdit(property: "code", operation: .set, value: "A1"), DynamicEdit(property: "flight", operation: .set, value: "Flight:99")])
        }
        #expect(dangling.map(\.kind) == [.danglingReference])
        #expect(dangling.first?.entity == "Ticket" && dangling.first?.property == "flight")
        #expect(dangling.first?.message == "Flight:99 does not exist (given for Ticket.flight)")
    }
}
