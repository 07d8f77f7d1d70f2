import ModelStoreMacros
import SwiftSyntaxMacroExpansion
import SwiftSyntaxMacrosGenericTestSupport
import Testing

@Suite("#Unique, #Index and @Model(originalName:)")
struct ConstraintMacroTests {
    private let macros: [String: MacroSpec] = modelMacros.merging(
        ["Unique": MacroSpec(type: UniqueMacro.self), "Index": MacroSpec(type: IndexMacro.self)]) { $1 }

    @Test("#Unique and #Index expand to nothing; @Model lists them in _$constraints")
    func constraintsAreListed() {
        assertExpansion(
            """
            @Model final class Visit {
                #Unique<Visit>([\\.place, \\.day], [\\Visit.code])
                #Index<Visit>([\\.day])
            }
            """,
            expandedSource: """
                final class Visit {

                \(emptyModelMembers("Visit"))

                    @_documentation(visibility: internal) nonisolated public static var _$constraints: [ModelStore.Schema.Constraint] {
                        ModelStore._$formingKeyPaths {
                            [.unique(["place", "day"]), .unique(["code"]), .index(["day"])]
                        }
                    }
                }

                nonisolated extension Visit: nonisolated ModelStore.PersistentModel {
                }
                """,
            macros: macros
        )
    }

    @Test("#Index's .binary and .rtree forms list ordinary indexes")
    func indexTypes() {
        assertExpansion(
            """
            @Model final class Place {
                #Index<Place>(.binary([\\.name]), .rtree([\\.latitude, \\.longitude]))
            }
            """,
            expandedSource: """
                final class Place {

                \(emptyModelMembers("Place"))

                    @_documentation(visibility: internal) nonisolated public static var _$constraints: [ModelStore.Schema.Constraint] {
                        ModelStore._$formingKeyPaths {
                            [.index(["name"]), .index(["latitude", "longitude"])]
                        }
                    }
                }

                nonisolated extension Place: nonisolated ModelStore.PersistentModel {
                }
                """,
            macros: macros
        )
    }

    @Test("@Model(originalName:) generates the entity's earlier name")
    func originalEntityName() {
        assertExpansion(
            """
            @Model(originalName: "Journey") final class Trip {
            }
            """,
            expandedSource: """
                final class Trip {

                \(emptyModelMembers("Trip"))

                    @_documentation(visibility: internal) nonisolated public static var _$originalEntityName: Swift.String? {
                        "Journey"
                    }
                }

                nonisolated extension Trip: nonisolated ModelStore.PersistentModel {
                }
                """,
            macros: macros
        )
    }

    @Test("A constraint argument that is not an array of simple key paths is an error")
    func badConstraintArgument() {
        assertExpansion(
            """
            @Model final class Visit {
                #Unique<Visit>(names)
                #Index<Visit>([\\.place.count])
            }
            """,
            expandedSource: """
                final class Visit {

                \(emptyModelMembers("Visit"))
                }

                nonisolated extension Visit: nonisolated ModelStore.PersistentModel {
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: "#Unique takes arrays of key paths to stored properties, such as [\\.name, \\.date]",
                    line: 2, column: 20),
                DiagnosticSpec(
                    message: "#Index takes arrays of key paths to stored properties, such as [\\.name, \\.date]",
                    line: 3, column: 20),
            ],
            macros: macros
        )
    }
}
