import Foundation
import ModelStore
import Testing

/// Relationships of an entity with itself, with and without an inverse.
@Model final class Employee {
    var name: String
    @Relationship(inverse: \Employee.manager) var reports: [Employee] = []
    var manager: Employee?
    var mentor: Employee?
    init(name: String) { self.name = name }
}

/// Two relationships between one pair of entities.
@Model final class Desk {
    var code: String
    var owner: Employee?
    var previousOwner: Employee?
    init(code: String) { self.code = code }
}

/// The schema page's diagram for the shapes the trip models lack.
@Suite("store-tool serve: the schema diagram")
struct ServeDiagramTests {
    @Test("a relationship of an entity with itself is a loop; two between one pair are two lines apart")
    func loopsAndParallelLines() async throws {
        let folder = testRoot.appending(path: UUID().uuidString)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let store = folder.appending(path: "staff.store")
        let context = ModelContext(try ModelContainer(for: Employee.self, Desk.self, configurations: ModelConfiguration(url: store)))
        context.insert(Desk(code: "D1"))
        try context.save()
        let serve = try ServeProcess(store.path(percentEncoded: false), folder: folder)
        defer { _ = serve.stop() }
        let page = try await serve.page("/schema").body
        let relationships = page.components(separatedBy: "<g class=\"relationship\">").dropFirst()
        #expect(relationships.count == 4, "reports / manager, mentor, owner, previousOwner: \(page)")
        let loops = relationships.filter { $0.hasPrefix("<path") }
        #expect(loops.count == 2 && loops.contains { $0.contains(">mentor</text>") }, "\(loops)")
        #expect(loops.contains { $0.contains(">manager / reports</text>") || $0.contains(">reports / manager</text>") }, "\(loops)")
        let lines = relationships.filter { $0.hasPrefix("<line") }.map { String($0.prefix { $0 != "/" }) }
        #expect(lines.count == 2 && Set(lines).count == 2, "two lines, not one over the other: \(lines)")
    }
}
