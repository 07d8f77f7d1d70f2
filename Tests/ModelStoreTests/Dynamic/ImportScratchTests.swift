import Foundation
import Testing
@testable import ModelStore
@testable import ModelStoreDynamic

@Suite("Dynamic layer: an import's scratch tables")
struct ImportScratchTests {
    /// Airports with a unique code, flights linking them (to-ones whose
    /// inverses are to-manys), records after the ones they name and before.
    private func graphRecords(in store: TestStore, name: String, flights: Int, badLine: String? = nil) throws -> String {
        var lines = [#"{"key":"Airport:1","attributes":{"code":"LIS"}}"#]
        for number in 1...flights {
            lines.append(#"{"key":"Flight:\#(number)","attributes":{"number":"F\#(number)"},"relationships":{"origin":"Airport:1","destination":"Airport:2"}}"#)
        }
        lines.append(#"{"key":"Airport:2","attributes":{"code":"OPO"}}"#)
        if let badLine { lines.append(badLine) }
        let path = store.directory.file(name).path(percentEncoded: false)
        try lines.joined(separator: "\n").write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// The names of the schema objects in the store's file.
    private func fileObjects(_ store: TestStore) throws -> [String] {
        let connection = try Connection(location: store.url.path(percentEncoded: false), mode: .readOnly)
        let statement = try connection.prepare("SELECT name FROM sqlite_schema ORDER BY name")
        var names: [String] = []
        while try statement.step() { names.append(statement.string(at: 0)) }
        return names
    }

    @Test("an import, a dry run and a refused import leave no temporary table on the connection, and none in the file")
    func noScratchLeft() throws {
        let store = try TestStore()
        _ = try store.graphContainer()
        let before = try fileObjects(store)
        let dynamic = try DynamicStore(path: store.url.path(percentEncoded: false), readOnly: false)
        let good = try graphRecords(in: store, name: "good.jsonl", flights: 30)
        _ = try dynamic.importObjects(from: .jsonLines(path: good), dryRun: true)
        #expect(try ImportScratch.temporaryObjects(on: dynamic.connection) == [])
        _ = try dynamic.importObjects(from: .jsonLines(path: good))
        #expect(try ImportScratch.temporaryObjects(on: dynamic.connection) == [])
        #expect(try dynamic.count("Flight") == 30)
        // Refused by the check: a code the file repeats.
        let bad = try graphRecords(
            in: store, name: "bad.jsonl", flights: 3, badLine: #"{"key":"Airport:3","attributes":{"code":"LIS"}}"#)
        #expect(throws: DynamicStoreError.self) { try dynamic.importObjects(from: .jsonLines(path: bad)) }
        #expect(try ImportScratch.temporaryObjects(on: dynamic.connection) == [])
        #expect(try fileObjects(store) == before)
        #expect(try dynamic.count("Flight") == 30)
    }

    @Test("a failure in the write pass rolls back the store and drops the scratch tables")
    func failedWriteLeavesNothing() throws {
        let store = try TestStore()
        _ = try store.graphContainer()
        let dynamic = try DynamicStore(path: store.url.path(percentEncoded: false), readOnly: false)
        // A team must have one to three members: the count check runs after
        // every row and link is written, and refuses this one.
        let lines = [
            #"{"key":"Team:1","attributes":{"name":"A"},"relationships":{"members":["Teammate:1","Teammate:2","Teammate:3","Teammate:4"]}}"#,
            #"{"key":"Teammate:1","attributes":{"name":"a"}}"#, #"{"key":"Teammate:2","attributes":{"name":"b"}}"#,
            #"{"key":"Teammate:3","attributes":{"name":"c"}}"#, #"{"key":"Teammate:4","attributes":{"name":"d"}}"#,
        ]
        let path = store.directory.file("team.jsonl").path(percentEncoded: false)
        try lines.joined(separator: "\n").write(toFile: path, atomically: true, encoding: .utf8)
        #expect(throws: ModelStoreError.self) { try dynamic.importObjects(from: .jsonLines(path: path)) }
        #expect(try ImportScratch.temporaryObjects(on: dynamic.connection) == [])
        #expect(try dynamic.count("Team") == 0 && dynamic.count("Teammate") == 0)
    }

    @Test("links through the scratch tables: file keys map to new keys, inverse lists keep their order")
    func linksMapToNewKeys() throws {
        let store = try TestStore()
        _ = try store.graphContainer()
        let dynamic = try DynamicStore(path: store.url.path(percentEncoded: false), readOnly: false)
        // The store has objects already, so new keys differ from the file's.
        for code in ["AAA", "BBB", "CCC"] { _ = try dynamic.insert("Airport", [DynamicEdit(parsing: "code=\(code)")]) }
        let path = try graphRecords(in: store, name: "flights.jsonl", flights: 5)
        _ = try dynamic.importObjects(from: .jsonLines(path: path))
        let lisbon = try #require(try dynamic.object(ObjectID(entity: "Airport", key: 4)))
        #expect(lisbon["code"] == .string("LIS"))
        #expect(lisbon["departures"] == .objects((1...5).map { ObjectID(entity: "Flight", key: Int64($0)) }))
        let porto = try #require(try dynamic.object(ObjectID(entity: "Airport", key: 5)))
        #expect(porto["arrivals"] == .objects((1...5).map { ObjectID(entity: "Flight", key: Int64($0)) }))
    }

    @Test("inverse changes in the scratch tables: lists in the order first touched, each member at its last place")
    func spilledInverseChanges() throws {
        let store = try TestStore()
        _ = try store.graphContainer()
        let dynamic = try DynamicStore(path: store.url.path(percentEncoded: false), readOnly: false)
        let scratch = try ImportScratch(connection: dynamic.connection)
        defer { scratch.close() }
        let departures = try #require(dynamic.schema.entity(named: "Airport")?.relationship(named: "departures"))
        let arrivals = try #require(dynamic.schema.entity(named: "Airport")?.relationship(named: "arrivals"))
        for var changes in [InverseChanges(), InverseChanges(spillingTo: scratch)] {
            try changes.append(1, to: departures, of: "Airport", holder: 7)
            try changes.touch(arrivals, of: "Airport", holder: 8)
            try changes.append(2, to: departures, of: "Airport", holder: 7)
            try changes.append(1, to: departures, of: "Airport", holder: 7)
            try changes.markExplicit(arrivals, of: "Airport", holder: 8)
            var seen: [String] = []
            try changes.forEach(schema: dynamic.schema) { key, relationship, isExplicit, appended in
                seen.append("\(key.holder).\(relationship.name) \(isExplicit) \(appended)")
            }
            #expect(seen == ["7.departures false [2, 1]", "8.arrivals true []"])
        }
    }

    @Test("unique values in the scratch table are equal exactly when SQLite's UNIQUE index says so")
    func uniqueEncoding() {
        func same(_ a: [DynamicValue], _ b: [DynamicValue]) -> Bool {
            StoredKey.encoding(a.map(StoredKey.init)) == StoredKey.encoding(b.map(StoredKey.init))
        }
        #expect(same([.string("é")], [.string("é")]))
        #expect(!same([.string("é")], [.string("e\u{301}")]))
        #expect(!same([.string("ab"), .string("c")], [.string("a"), .string("bc")]))
        #expect(!same([.int(1)], [.double(1)]))
        #expect(same([.double(0)], [.double(-0.0)]))
        #expect(StoredKey.encoding([.real(.nan)]) == nil)
    }
}
