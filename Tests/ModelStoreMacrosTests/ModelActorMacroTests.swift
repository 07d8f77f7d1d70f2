import ModelStoreMacros
import SwiftSyntaxMacroExpansion
import SwiftSyntaxMacrosGenericTestSupport
import Testing

@Suite("@ModelActor")
struct ModelActorMacroTests {
    private let macros = ["ModelActor": MacroSpec(type: ModelActorMacro.self, conformances: ["ModelActor"])]

    @Test("An actor gets its container, executor and init, and the ModelActor conformance")
    func actorExpansion() {
        assertExpansion(
            """
            @ModelActor
            actor Importer {
                func run() {}
            }
            """,
            expandedSource: """
                actor Importer {
                    func run() {}

                    nonisolated let modelExecutor: any ModelStore.ModelExecutor

                    nonisolated let modelContainer: ModelStore.ModelContainer

                    init(modelContainer: ModelStore.ModelContainer) {
                        let modelContext = ModelStore.ModelContext(modelContainer)
                        self.modelExecutor = ModelStore.DefaultSerialModelExecutor(modelContext: modelContext)
                        self.modelContainer = modelContainer
                    }
                }

                extension Importer: ModelStore.ModelActor {
                }
                """,
            macros: macros
        )
    }

    @Test("A class or struct is refused with an error")
    func notAnActor() {
        assertExpansion(
            """
            @ModelActor
            final class Importer {}
            """,
            expandedSource: """
                final class Importer {}
                """,
            diagnostics: [DiagnosticSpec(message: "'@ModelActor' can only be applied to an actor", line: 1, column: 1)],
            macros: macros
        )
    }
}
