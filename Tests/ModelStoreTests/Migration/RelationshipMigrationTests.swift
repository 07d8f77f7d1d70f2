import Foundation
import Testing
@testable import ModelStore

private let owner = Schema.Entity(name: "Owner", attributes: [attribute("name", .string)])
private let pet = Schema.Entity(
    name: "Pet", attributes: [attribute("name", .string)],
    relationships: [Schema.Relationship(name: "owner", destination: "Owner", isToMany: false, isOptional: true)])

@Suite("Inferred migration of relationships")
struct RelationshipMigrationTests {
    private func store() throws -> (URL, StoreFile) {
        let url = try TemporaryDirectory().file()
        try open(url, entities: [owner, pet])
        let file = StoreFile(url: url)
        try file.execute(
            "INSERT INTO Owner (name) VALUES ('Ada'), ('Alan'); INSERT INTO Pet (name, owner) VALUES ('Rex', 1), ('Tom', 2), ('Kit', NULL)")
        return (url, file)
    }

    @Test("A new inverse to-many keeps every link and adds the order column")
    func addInverse() throws {
        let (url, file) = try store()
        var pets = Schema.Relationship(name: "pets", destination: "Pet", isToMany: true, isOptional: true, inverseName: "owner")
        pets.inverseName = "owner"
        var newOwner = owner
        newOwner.relationships = [pets]
        var newPet = pet
        newPet.relationships[0].inverseName = "pets"
        try open(url, entities: [newOwner, newPet], version: Schema.Version(2, 0, 0))
        #expect(try file.rows("SELECT name, owner FROM Pet ORDER BY _pk") == [
            [.text("Rex"), .integer(1)], [.text("Tom"), .integer(2)], [.text("Kit"), .null],
        ])
        #expect(try file.rows("SELECT name FROM pragma_table_info('Pet') WHERE name = '_owner_order'").count == 1)
    }

    @Test("A to-one that becomes to-many moves its links into a join table")
    func toOneBecomesToMany() throws {
        let (url, file) = try store()
        var newPet = pet
        newPet.relationships[0].isToMany = true
        newPet.relationships[0].originalName = "owner"
        try open(url, entities: [owner, newPet], version: Schema.Version(2, 0, 0))
        #expect(try file.rows("SELECT source, target FROM \"Pet.owner\" ORDER BY source") == [
            [.integer(1), .integer(1)], [.integer(2), .integer(2)],
        ])
        #expect(try file.rows("SELECT name FROM pragma_table_info('Pet') WHERE name = 'owner'").isEmpty)
        #expect(try file.rows("PRAGMA foreign_key_check").isEmpty)
    }

    @Test("A dropped relationship loses its column; a to-many that becomes to-one with links is refused")
    func dropAndNarrow() throws {
        let (url, file) = try store()
        var toMany = pet
        toMany.relationships[0].isToMany = true
        try open(url, entities: [owner, toMany], version: Schema.Version(2, 0, 0))
        let before = try file.everything()
        #expect {
            try open(url, entities: [owner, pet], version: Schema.Version(3, 0, 0))
        } throws: { error in
            guard case ModelStoreError.destructiveMigration(_, let changes) = error else { return false }
            return changes.count == 1 && changes[0].contains("Pet.owner becomes to-one")
        }
        #expect(try file.everything() == before)
        var none = pet
        none.relationships = []
        try open(url, entities: [owner, none], version: Schema.Version(3, 0, 0))
        #expect(try file.rows("SELECT name FROM sqlite_schema WHERE name = 'Pet.owner'").isEmpty)
        #expect(try file.rows("SELECT name FROM Pet ORDER BY _pk") == [[.text("Rex")], [.text("Tom")], [.text("Kit")]])
    }
}
