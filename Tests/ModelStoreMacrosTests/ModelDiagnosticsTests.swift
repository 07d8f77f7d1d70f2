import SwiftSyntaxMacrosGenericTestSupport
import Testing

@Suite("@Model diagnostics")
struct ModelDiagnosticsTests {
    @Test("A struct is rejected, with a fix-it to make it a final class")
    func structDeclaration() {
        assertExpansion(
            """
            @Model struct Trip {
                var name: String
            }
            """,
            expandedSource: """
                struct Trip {
                    var name: String
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: "'@Model' can only be applied to a class", line: 1, column: 1,
                    fixIts: [FixItSpec(message: "use 'final class'")])
            ],
            fixedSource: """
                @Model final class Trip {
                    var name: String
                }
                """
        )
    }

    @Test(
        "Enums, actors, protocols and extensions are rejected without a fix-it",
        arguments: ["enum Trip {}", "actor Trip {}", "protocol Trip {}", "extension Trip {}"])
    func otherDeclarations(declaration: String) {
        assertExpansion(
            "@Model \(declaration)",
            expandedSource: declaration,
            diagnostics: [
                DiagnosticSpec(message: "'@Model' can only be applied to a class", line: 1, column: 1)
            ]
        )
    }

    @Test("A generic class is rejected at its generic parameters")
    func genericClass() {
        assertExpansion(
            """
            @Model final class Box<Value> {
                var value: Value
            }
            """,
            expandedSource: """
                final class Box<Value> {
                    var value: Value
                }
                """,
            diagnostics: [
                DiagnosticSpec(message: "'@Model' does not support generic classes", line: 1, column: 23)
            ]
        )
    }

    @Test(
        "A let whose initial value may differ per object cannot take its stored value; the fix-it makes it a var",
        arguments: ["Date()", "UUID()", ".now", "Status.planned"])
    func letWithComputedValue(value: String) {
        assertExpansion(
            """
            @Model final class Trip {
                let created = \(value)
            }
            """,
            expandedSource: """
                final class Trip {
                    let created = \(value)

                \(emptyModelMembers("Trip"))
                }

                nonisolated extension Trip: nonisolated ModelStore.PersistentModel {
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: "persisted constant 'created' has an initial value, so a fetched object could not take the stored one; declare it with 'var', or set it in init",
                    line: 2, column: 5, fixIts: [FixItSpec(message: "replace 'let' with 'var'")])
            ],
            fixedSource: """
                @Model final class Trip {
                    var created = \(value)
                }
                """
        )
    }

    @Test("A relationship declared with let is refused; the fix-it makes it a var")
    func letRelationship() {
        assertExpansion(
            """
            @Model final class Trip {
                @Relationship(deleteRule: .cascade) let stops: [Stop]
            }
            """,
            expandedSource: """
                final class Trip {
                    @Relationship(deleteRule: .cascade) let stops: [Stop]

                \(emptyModelMembers("Trip"))
                }

                nonisolated extension Trip: nonisolated ModelStore.PersistentModel {
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: "relationship 'stops' must be declared with 'var': ModelStore maintains its inverse",
                    line: 2, column: 41, fixIts: [FixItSpec(message: "replace 'let' with 'var'")])
            ],
            fixedSource: """
                @Model final class Trip {
                    @Relationship(deleteRule: .cascade) var stops: [Stop]
                }
                """
        )
    }

    @Test(
        "Types with no stored representation are rejected at the annotation",
        arguments: [
            ("() -> Void", "functions have no stored representation"),
            ("(@Sendable (Int) -> Int)?", "functions have no stored representation"),
            ("(Int, String)", "tuples are not supported; use a Codable struct"),
            ("Any", "'Any' has no single stored representation"),
            ("AnyObject?", "'AnyObject' has no single stored representation"),
            ("any Codable", "existential types have no single stored representation"),
            ("some Codable", "opaque types have no single stored representation"),
            ("Int??", "nested optionals cannot be told apart in a nullable column"),
            ("Optional<Int?>", "nested optionals cannot be told apart in a nullable column"),
            ("Swift.Optional<Optional<Int>>", "nested optionals cannot be told apart in a nullable column"),
            ("Optional<Int>!", "nested optionals cannot be told apart in a nullable column"),
        ])
    func unstorableType(type: String, reason: String) {
        assertExpansion(
            """
            @Model final class Trip {
                var field: \(type)
            }
            """,
            expandedSource: """
                final class Trip {
                    var field: \(type)

                \(emptyModelMembers("Trip"))
                }

                nonisolated extension Trip: nonisolated ModelStore.PersistentModel {
                }
                """,
            diagnostics: [
                DiagnosticSpec(message: "type of 'field' cannot be stored: \(reason)", line: 2, column: 16)
            ]
        )
    }

    @Test("Several bindings in one persisted declaration are rejected")
    func multipleBindings() {
        assertExpansion(
            """
            @Model final class Point {
                var x, y: Double
            }
            """,
            expandedSource: """
                final class Point {
                    var x, y: Double

                \(emptyModelMembers("Point"))
                }

                nonisolated extension Point: nonisolated ModelStore.PersistentModel {
                }
                """,
            diagnostics: [
                DiagnosticSpec(message: "declare each persisted property on its own line", line: 2, column: 9)
            ]
        )
    }

    @Test("Property observers on a persisted property are rejected", arguments: ["didSet", "willSet"])
    func observers(observer: String) {
        assertExpansion(
            """
            @Model final class Trip {
                var name: String { \(observer) { print(name) } }
            }
            """,
            expandedSource: """
                final class Trip {
                    var name: String { \(observer) { print(name) } }

                \(emptyModelMembers("Trip"))
                }

                nonisolated extension Trip: nonisolated ModelStore.PersistentModel {
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message:
                        "property observers are not supported on persisted property 'name'; "
                        + "mark it @Transient or move the logic into a method",
                    line: 2, column: 22)
            ]
        )
    }

    @Test("Observers are fine on a @Transient property")
    func observersOnTransient() {
        assertExpansion(
            """
            @Model final class Trip {
                @Transient var isSelected = false { didSet { print(isSelected) } }
            }
            """,
            expandedSource: """
                final class Trip {
                    @Transient var isSelected = false { didSet { print(isSelected) } }

                \(emptyModelMembers("Trip"))
                }

                nonisolated extension Trip: nonisolated ModelStore.PersistentModel {
                }
                """
        )
    }

    @Test(
        "An excluded non-optional property needs a default value",
        arguments: [("@Transient", "Transient"), ("@ModelStore.Transient", "Transient"), ("@ObservationIgnored", "ObservationIgnored")])
    func excludedWithoutDefault(attribute: String, name: String) {
        assertExpansion(
            """
            @Model final class Trip {
                \(attribute) var cache: [String: Int]
            }
            """,
            expandedSource: """
                final class Trip {
                    \(attribute) var cache: [String: Int]

                \(emptyModelMembers("Trip"))
                }

                nonisolated extension Trip: nonisolated ModelStore.PersistentModel {
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: "@\(name) property 'cache' needs a default value", line: 2,
                    column: 10 + attribute.count)
            ]
        )
    }

    @Test("A lazy property must be @Transient")
    func lazyProperty() {
        assertExpansion(
            """
            @Model final class Trip {
                lazy var summary: String = "trip"
            }
            """,
            expandedSource: """
                final class Trip {
                    lazy var summary: String = "trip"

                \(emptyModelMembers("Trip"))
                }

                nonisolated extension Trip: nonisolated ModelStore.PersistentModel {
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: "lazy property 'summary' cannot be persisted; mark it @Transient", line: 2, column: 5)
            ]
        )
    }

    @Test("@Relationship cannot be combined with @Transient or @Attribute")
    func relationshipCombinations() {
        assertExpansion(
            """
            @Model final class Trip {
                @Relationship @Transient var stops: [Stop] = []
                @Attribute(.unique) @Relationship var owner: Person?
            }
            """,
            expandedSource: """
                final class Trip {
                    @Relationship @Transient var stops: [Stop] = []
                    @Attribute(.unique) @Relationship var owner: Person?

                \(emptyModelMembers("Trip"))
                }

                nonisolated extension Trip: nonisolated ModelStore.PersistentModel {
                }
                """,
            diagnostics: [
                DiagnosticSpec(message: "a property cannot be both @Transient and @Relationship", line: 2, column: 19),
                DiagnosticSpec(message: "a property cannot be both @Attribute and @Relationship", line: 3, column: 5),
            ]
        )
    }

    @Test("@Transient and @Attribute together are contradictory")
    func transientAndAttribute() {
        assertExpansion(
            """
            @Model final class Trip {
                @Attribute(.unique) @Transient var code: String = ""
            }
            """,
            expandedSource: """
                final class Trip {
                    @Attribute(.unique) @Transient var code: String = ""

                \(emptyModelMembers("Trip"))
                }

                nonisolated extension Trip: nonisolated ModelStore.PersistentModel {
                }
                """,
            diagnostics: [
                DiagnosticSpec(message: "a property cannot be both @Transient and @Attribute", line: 2, column: 25)
            ]
        )
    }

    @Test("A bad property is left out while the valid ones still expand")
    func invalidPropertyIsSkipped() {
        assertExpansion(
            """
            @Model final class Trip {
                var name: String
                var callback: () -> Void = {}
                var nights: Int
            }
            """,
            expandedSource: #"""
                final class Trip {
                    @ModelStore._PersistedProperty(0)
                    var name: String
                    var callback: () -> Void = {}
                    @ModelStore._PersistedProperty(1)
                    var nights: Int

                    \#(modelStateMembers)

                    @_documentation(visibility: internal) nonisolated public required init(_$row row: ModelStore.PersistentRow) throws {
                        self._name = try row.value(at: 0, as: (String).self)
                        self._nights = try row.value(at: 1, as: (Int).self)
                        self._$fetchedRow = row.fetchedRow()
                    }

                    @_documentation(visibility: internal) nonisolated public func _$bindValue(_ ordinal: Swift.Int, to statement: ModelStore.Statement, at index: Swift.Int32) throws {
                        switch ordinal {
                        case 0:
                            try statement.bindValue(self._name, as: (String).self, at: index)
                        case 1:
                            try statement.bindValue(self._nights, as: (Int).self, at: index)
                        default:
                            break
                        }
                    }

                    @_documentation(visibility: internal) nonisolated public static var _$persistentProperties: [ModelStore.PropertyMetadata] {
                        ModelStore._$formingKeyPaths {
                            [
                                ModelStore.PropertyMetadata.attribute(name: "name", keyPath: \Trip.name, type: (String).self, ordinal: 0, options: [], originalName: nil),
                                ModelStore.PropertyMetadata.attribute(name: "nights", keyPath: \Trip.nights, type: (Int).self, ordinal: 1, options: [], originalName: nil)
                            ]
                        }
                    }

                    @inline(__always) internal nonisolated func access<_$Member>(keyPath: @autoclosure () -> Swift.KeyPath<Trip, _$Member>) {
                        if let state = _$modelStateIfMade {
                            state.access(self, keyPath: keyPath())
                        } else {
                            ModelStore.ModelState.accessWithoutState(self, keyPath: keyPath())
                        }
                    }

                    internal nonisolated func withMutation<_$Member, _$MutationResult>(keyPath: Swift.KeyPath<Trip, _$Member>, _ mutation: () throws -> _$MutationResult) rethrows -> _$MutationResult {
                        try _$modelState.withMutation(of: self, keyPath: keyPath, mutation)
                    }
                }

                nonisolated extension Trip: nonisolated ModelStore.PersistentModel {
                }
                """#,
            diagnostics: [
                DiagnosticSpec(
                    message: "type of 'callback' cannot be stored: functions have no stored representation",
                    line: 3, column: 19)
            ]
        )
    }
}
