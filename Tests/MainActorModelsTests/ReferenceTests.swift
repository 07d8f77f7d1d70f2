import ModelStore
import Testing

/// References, their observation and bindings on main-actor-isolated models,
/// used from main-actor code as an app's views use them; the file also
/// compiles in Swift 5 mode (MainActorModelsSwift5Tests).
@Suite("Main-actor models: references and bindings")
struct MainActorReferenceTests {
    @Test func aReferenceReadsWritesAndObservesAMainActorModel() async {
        let page = Page(text: "one", number: 1)
        page.tags = ["a", "b"]
        let second = page.reference(\.tags)[1]
        var seen: [String?] = []
        let token = second.observe { seen.append($0) }
        var numbers = page.reference(\.number).values.makeAsyncIterator()
        let binding: ModelBinding<Int> = ModelBindable(page).number
        second.value = "c"
        binding.wrappedValue = 2
        #expect(seen == ["c"])
        #expect(page.tags == ["a", "c"])
        // `for await` calls this; the iterator runs on the main actor, where
        // the model lives.
        #expect(await numbers.next(isolation: #isolation) == 2)
        token.cancel()
    }
}
