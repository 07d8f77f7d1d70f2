import Foundation
import Testing
@testable import ModelStore

/// A model declared `@MainActor` in a module without default isolation:
/// `@Model`'s generated members are nonisolated, so it conforms and the
/// library saves and fetches it (MainActorModelsTests covers the default
/// isolation).
@MainActor @Model final class MainActorNote {
    var text: String
    var created = Date(timeIntervalSince1970: 0)
    var parent: MainActorNote?

    init(text: String) {
        self.text = text
    }
}

@MainActor @Suite struct MainActorModelTests {
    @Test func anExplicitlyMainActorModelIsSavedAndFetched() throws {
        let store = try TestStore()
        let container = try store.container([MainActorNote.self])
        let parent = MainActorNote(text: "parent")
        let child = MainActorNote(text: "child")
        child.parent = parent
        container.mainContext.insert(child)
        try container.mainContext.save()
        let fetched = try ModelContext(container).fetch(FetchDescriptor<MainActorNote>())
        #expect(Set(fetched.map(\.text)) == ["parent", "child"])
        #expect(fetched.first { $0.text == "child" }?.parent?.text == "parent")
    }
}
