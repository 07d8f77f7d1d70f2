import SwiftSyntaxMacrosGenericTestSupport
import Testing

@Suite("@_PersistedProperty expansion")
struct PersistedPropertyMacroTests {
    /// The accessors for `name` at `ordinal`, exactly as the runtime expects
    /// them, indented for a property declared one level deep in a class.
    private func accessors(_ name: String, ordinal: Int) -> String {
        let block = #"""
            {
                @storageRestrictions(initializes: _\#(name))
                init(initialValue) {
                    _\#(name) = initialValue
                }
                get {
                    access(keyPath: \.\#(name))
                    if _$modelStateIfMade?.isFault(\#(ordinal)) == true, let value = _$faultValue(\#(ordinal), as: Swift.type(of: _\#(name))) {
                        if _$modelStateIfMade?.isFault(\#(ordinal)) == true {
                            return value
                        }
                        _\#(name) = value
                    }
                    return _\#(name)
                }
                set {
                    if _$modelStateIfMade?.isFault(\#(ordinal)) == true, let value = _$faultValueBeforeWrite(\#(ordinal), as: Swift.type(of: _\#(name))) {
                        _\#(name) = value
                    }
                    guard _$willChange(\#(ordinal), from: _\#(name), to: newValue) else {
                        return
                    }
                    withMutation(keyPath: \.\#(name)) {
                        _\#(name) = newValue
                    }
                }
                _modify {
                    if _$modelStateIfMade?.isFault(\#(ordinal)) == true, let value = _$faultValueBeforeWrite(\#(ordinal), as: Swift.type(of: _\#(name))) {
                        _\#(name) = value
                    }
                    let observed = _$willModify(\#(ordinal), keyPath: \.\#(name), current: _\#(name))
                    defer {
                        _$didModify(\#(ordinal), keyPath: \.\#(name), current: _\#(name), observed: observed)
                    }
                    yield &_\#(name)
                }
            }
        """#
        // Spliced in after `var name: T `, so the first line carries no indentation.
        return String(block.drop { $0 == " " })
    }

    @Test("A plain property gets tracked accessors and a private backing field")
    func plainProperty() {
        assertExpansion(
            """
            final class Trip {
                @_PersistedProperty(0) var name: String
            }
            """,
            expandedSource: """
                final class Trip {
                    var name: String \(accessors("name", ordinal: 0))

                    @ModelStore.Transient nonisolated(unsafe) private var _name: String
                }
                """,
            macros: propertyMacros
        )
    }

    @Test(
        "The initial value moves to the backing field",
        arguments: [
            ("tags", ": [String] = []", ": [String]", "@ModelStore.Transient nonisolated(unsafe) private var _tags: [String] = []"),
            ("count", " = 0", "", "@ModelStore.Transient nonisolated(unsafe) private var _count = 0"),
        ])
    func initialValueMoves(name: String, original: String, remaining: String, backing: String) {
        // The test expander drops the initializer from the now-computed
        // property; the compiler instead passes it to the init accessor. Either
        // way the backing field must carry it, for `init(_$row:)`'s sake.
        assertExpansion(
            """
            final class Trip {
                @_PersistedProperty(3) var \(name)\(original)
            }
            """,
            expandedSource: """
                final class Trip {
                    var \(name)\(remaining) \(accessors(name, ordinal: 3))

                    \(backing)
                }
                """,
            macros: propertyMacros
        )
    }

    @Test(
        "Access control stays on the property; the backing field is always private",
        arguments: ["private", "private(set)", "public", "fileprivate"])
    func accessControl(modifier: String) {
        assertExpansion(
            """
            final class Trip {
                @_PersistedProperty(1) \(modifier) var budget: Budget?
            }
            """,
            expandedSource: """
                final class Trip {
                    \(modifier) var budget: Budget? \(accessors("budget", ordinal: 1))

                    @ModelStore.Transient nonisolated(unsafe) private var _budget: Budget?
                }
                """,
            macros: propertyMacros
        )
    }

    @Test("A nonisolated property's backing field is nonisolated(unsafe) once, not also nonisolated")
    func nonisolatedProperty() {
        assertExpansion(
            """
            final class Trip {
                @_PersistedProperty(1) nonisolated var budget: Budget?
            }
            """,
            expandedSource: """
                final class Trip {
                    nonisolated var budget: Budget? \(accessors("budget", ordinal: 1))

                    @ModelStore.Transient nonisolated(unsafe) private var _budget: Budget?
                }
                """,
            macros: propertyMacros
        )
    }

    @Test("An implicitly unwrapped property keeps its declared type on the backing field")
    func implicitlyUnwrapped() {
        assertExpansion(
            """
            final class Trip {
                @_PersistedProperty(2) var legacy: String!
            }
            """,
            expandedSource: """
                final class Trip {
                    var legacy: String! \(accessors("legacy", ordinal: 2))

                    @ModelStore.Transient nonisolated(unsafe) private var _legacy: String!
                }
                """,
            macros: propertyMacros
        )
    }

    @Test("A missing or non-literal ordinal is an error, and nothing is generated for it")
    func invalidOrdinal() {
        assertExpansion(
            """
            final class Trip {
                @_PersistedProperty(index) var name: String
            }
            """,
            expandedSource: """
                final class Trip {
                    var name: String

                    @ModelStore.Transient nonisolated(unsafe) private var _name: String
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: "'@_PersistedProperty' requires an integer literal ordinal", line: 2, column: 5)
            ],
            macros: propertyMacros
        )
    }

    @Test("Declarations the macro cannot expand are left alone")
    func unexpandable() {
        assertExpansion(
            """
            final class Trip {
                @_PersistedProperty(0) let name: String
                @_PersistedProperty(1) var nights: Int { 3 }
            }
            """,
            expandedSource: """
                final class Trip {
                    let name: String
                    var nights: Int { 3 }
                }
                """,
            macros: propertyMacros
        )
    }
}
