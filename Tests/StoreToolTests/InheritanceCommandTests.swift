import Foundation
import ModelStore
import Testing

@Model class Animal {
    var name: String
    init(name: String) { self.name = name }
}

@Model final class Dog: Animal {
    var breed: String
    init(name: String, breed: String) {
        self.breed = breed
        super.init(name: name)
    }
}

/// store-tool on a store with a class hierarchy (one table, `_entity` per row).
@Suite("store-tool: class inheritance")
struct InheritanceCommandTests {
    /// A store with one Animal and one Dog, and its path.
    private func animalStore() throws -> (URL, ModelContainer) {
        let folder = testRoot.appending(path: UUID().uuidString)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let url = folder.appending(path: "animals.store")
        let container = try ModelContainer(for: Animal.self, Dog.self, configurations: ModelConfiguration(url: url))
        let context = ModelContext(container)
        context.insert(Animal(name: "Generic"))
        context.insert(Dog(name: "Rex", breed: "Collie"))
        try context.save()
        return (url, container)
    }

    @Test("insert into a subentity writes its entity; the app fetches it as its class; list and show read the hierarchy")
    func insertListShow() throws {
        let (url, container) = try animalStore()
        let path = url.path(percentEncoded: false)
        let insert = try Fixture.runTool(["insert", path, "Dog", "name=Fido", "breed=Beagle"])
        #expect(insert.status == 0, "\(insert.stderr)")
        #expect(insert.stdout == "Dog:3\n")

        let context = ModelContext(container)
        let animals = try context.fetch(FetchDescriptor<Animal>(sortBy: [SortDescriptor(\.name)]))
        #expect(animals.map(\.name) == ["Fido", "Generic", "Rex"])
        #expect((animals.first as? Dog)?.breed == "Beagle")
        #expect(animals.map(\.persistentModelID.entityName) == ["Dog", "Animal", "Dog"])

        let list = try Fixture.runTool(["list", path, "Animal"])
        #expect(list.status == 0, "\(list.stderr)")
        #expect(list.stdout.contains("Generic") && list.stdout.contains("Rex") && list.stdout.contains("Fido"))
        let dogs = try Fixture.runTool(["list", path, "Dog"])
        #expect(dogs.status == 0, "\(dogs.stderr)")
        #expect(dogs.stdout.contains("Rex") && dogs.stdout.contains("Fido") && !dogs.stdout.contains("Generic"))
        let show = try Fixture.runTool(["show", path, "Dog:3"])
        #expect(show.status == 0, "\(show.stderr)")
        #expect(show.stdout.contains("Beagle"))
    }

    @Test("export lists each row of a hierarchy once, under its own entity; import of it gives the same store")
    func exportImportRoundTrip() throws {
        let (url, _) = try animalStore()
        let folder = url.deletingLastPathComponent()
        let file = folder.appending(path: "animals.json").path(percentEncoded: false)
        let export = try Fixture.runTool(["export", url.path(percentEncoded: false), "--format", "json", "--output", file])
        #expect(export.status == 0, "\(export.stderr)")
        let text = try String(contentsOfFile: file, encoding: .utf8)
        #expect(text.contains(#"{"key":"Animal:1","#) && text.contains(#"{"key":"Dog:2","#))
        #expect(!text.contains(#""key":"Animal:2""#))
        let copy = folder.appending(path: "copy.store")
        let imported = try Fixture.runTool(["import", copy.path(percentEncoded: false), file])
        #expect(imported.status == 0, "\(imported.stderr)")
        let container = try ModelContainer(for: Animal.self, Dog.self, configurations: ModelConfiguration(url: copy))
        let animals = try ModelContext(container).fetch(FetchDescriptor<Animal>(sortBy: [SortDescriptor(\.name)]))
        #expect(animals.map(\.name) == ["Generic", "Rex"])
        #expect((animals.last as? Dog)?.breed == "Collie")
        let again = try Fixture.runTool(["export", copy.path(percentEncoded: false), "--format", "json"])
        #expect(again.stdout == text)
    }
}
