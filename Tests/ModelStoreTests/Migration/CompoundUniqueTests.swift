import Foundation
import Testing
@testable import ModelStore

@Model final class Visit {
    #Unique<Visit>([\.place, \.day])
    #Index<Visit>([\.day])
    var place: String
    var day: Int
    var note: String = ""
    init(place: String, day: Int, note: String = "") {
        self.place = place
        self.day = day
        self.note = note
    }
}

@Suite("#Unique and #Index")
struct CompoundUniqueTests {
    @Test("The schema records them; the store has a unique index and an index")
    func schemaAndDDL() throws {
        let entity = Schema.Entity(modelType: Visit.self)
        #expect(entity.uniqueConstraints == [["place", "day"]])
        #expect(entity.indexes == [["day"]])
        let url = try TemporaryDirectory().file()
        _ = try ModelContainer(for: Visit.self, configurations: ModelConfiguration(url: url))
        #expect(try StoreFile(url: url).rows("SELECT sql FROM sqlite_schema WHERE type = 'index' AND sql IS NOT NULL AND name NOT LIKE '\\_modelstore%' ESCAPE '\\' ORDER BY name") == [
            [.text("CREATE INDEX \"Visit.index(day)\" ON \"Visit\" (\"day\")")],
            [.text("CREATE UNIQUE INDEX \"Visit.unique(place,day)\" ON \"Visit\" (\"place\", \"day\")")],
        ])
        #expect(try StoreFile(url: url).storedSchema().entity(named: "Visit")?.uniqueConstraints == [["place", "day"]])
    }

    @Test("A record without constraints still decodes, and an entity without them encodes as before")
    func recordCompatibility() throws {
        let old = #"{"entities":[{"attributes":[],"name":"Thing"}],"version":{"major":1,"minor":0,"patch":0}}"#
        let schema = try Schema(recordData: Data(old.utf8))
        #expect(schema.entities[0].uniqueConstraints.isEmpty && schema.entities[0].indexes.isEmpty)
        #expect(String(decoding: try schema.recordData(), as: UTF8.self) == old)
    }

    @Test("Inserting an object whose values match a row updates that row; an update that collides fails the save")
    func savePath() throws {
        let url = try TemporaryDirectory().file()
        let container = try ModelContainer(for: Visit.self, configurations: ModelConfiguration(url: url))
        let context = ModelContext(container)
        context.insert(Visit(place: "Lisbon", day: 1, note: "first"))
        context.insert(Visit(place: "Lisbon", day: 2))
        try context.save()
        let other = ModelContext(container)
        other.insert(Visit(place: "Lisbon", day: 1, note: "upserted"))
        try other.save()
        #expect(try StoreFile(url: url).rows("SELECT _pk, note FROM Visit ORDER BY _pk") == [
            [.integer(1), .text("upserted")], [.integer(2), .text("")],
        ])
        let editor = ModelContext(container)
        let second = try editor.fetch(FetchDescriptor<Visit>(predicate: #Predicate { $0.day == 2 }))
        second[0].day = 1
        #expect {
            try editor.save()
        } throws: { error in
            guard case ModelStoreError.saveFailed("Visit", 2, let underlying) = error else { return false }
            return underlying.primaryCode == SQLiteError.constraint
        }
    }

    @Test("A #Unique naming a missing attribute is an invalid schema")
    func invalidConstraint() {
        var entity = Schema.Entity(modelType: Visit.self)
        entity.uniqueConstraints = [["place", "nowhere"]]
        #expect(throws: ModelStoreError.self) { try Schema(entities: [entity]).validate() }
    }
}
