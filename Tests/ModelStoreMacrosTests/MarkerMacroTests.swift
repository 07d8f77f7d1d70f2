import ModelStoreMacros
import SwiftSyntaxMacroExpansion
import Testing

@Suite("@Attribute and @Transient markers")
struct MarkerMacroTests {
    @Test("Both markers expand to nothing, leaving the property untouched")
    func markersGenerateNothing() {
        assertExpansion(
            """
            final class Trip {
                @Attribute(.unique, originalName: "title") var name: String
                @Transient var isSelected = false
            }
            """,
            expandedSource: """
                final class Trip {
                    var name: String
                    var isSelected = false
                }
                """,
            macros: [
                "Attribute": MacroSpec(type: AttributeMacro.self),
                "Transient": MacroSpec(type: TransientMacro.self),
            ]
        )
    }
}
