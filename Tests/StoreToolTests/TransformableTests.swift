import Foundation
import ModelStore
import Testing

/// A value that is not Codable, stored through `MarkTransformer`.
struct Mark: Equatable {
    var code: UInt8
}

final class MarkTransformer: ValueTransformer {
    override func transformedValue(_ value: Any?) -> Any? { (value as? Mark).map { Data([$0.code]) } }
    override func reverseTransformedValue(_ value: Any?) -> Any? {
        (value as? Data).flatMap { $0.count == 1 ? Mark(code: $0[$0.startIndex]) : nil }
    }
}

@Model final class Badge {
    var title: String
    @Attribute(.transformable(by: MarkTransformer.self)) var mark: Mark

    init(title: String, mark: Mark) {
        self.title = title
        self.mark = mark
    }
}

@Suite("store-tool: transformable attributes")
struct TransformableToolTests {
    @Test("schema shows a transformable attribute as data with its transformer's name; show gives its bytes")
    func schemaShowsTheTransformer() throws {
        let folder = testRoot.appending(path: UUID().uuidString)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let store = folder.appending(path: "badges.store")
        do {
            let context = ModelContext(try ModelContainer(for: Badge.self, configurations: ModelConfiguration(url: store)))
            context.insert(Badge(title: "Gold", mark: Mark(code: 7)))
            try context.save()
        }
        let path = store.path(percentEncoded: false)
        let schema = try Fixture.runTool(["schema", path, "Badge"])
        #expect(schema.status == 0, "\(schema.stderr)")
        #expect(
            schema.lines.contains { $0.contains("mark") && $0.contains("Mark") && $0.contains("(data, transformable by StoreToolTests.MarkTransformer)") },
            "\(schema.stdout)")
        let json = try Fixture.runTool(["schema", path, "Badge", "--format", "json"])
        #expect(json.stdout.contains(#""transformerName" : "StoreToolTests.MarkTransformer""#), "\(json.stdout)")
        let show = try Fixture.runTool(["show", path, "Badge:1"])
        #expect(show.status == 0, "\(show.stderr)")
        #expect(show.stdout.contains(Data([7]).base64EncodedString()), "\(show.stdout)")
    }
}
