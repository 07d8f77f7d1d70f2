import ModelStoreMacros
import SwiftSyntaxMacroExpansion
import SwiftSyntaxMacrosGenericTestSupport
import Testing

/// `@Model` as the library declares it, with the conformance its extension role adds.
///
/// The property macro is deliberately absent: `@Model` writes it module-qualified
/// (`@ModelStore._PersistedProperty`), which the test expander does not resolve,
/// so it is tested on its own with ``propertyMacros``.
let modelMacros: [String: MacroSpec] = [
    "Model": MacroSpec(type: ModelMacro.self, conformances: ["PersistentModel"])
]

/// `@_PersistedProperty`, spelled unqualified so that the test expander finds it.
let propertyMacros: [String: MacroSpec] = [
    "_PersistedProperty": MacroSpec(type: PersistedPropertyMacro.self)
]

/// `assertMacroExpansion` reporting through Swift Testing at the caller's line.
func assertExpansion(
    _ source: String,
    expandedSource: String,
    diagnostics: [DiagnosticSpec] = [],
    macros: [String: MacroSpec] = modelMacros,
    fixedSource: String? = nil,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    assertMacroExpansion(
        source,
        expandedSource: expandedSource,
        diagnostics: diagnostics,
        macroSpecs: macros,
        fixedSource: fixedSource,
        failureHandler: { Issue.record(Comment(rawValue: $0.message), sourceLocation: sourceLocation) }
    )
}

/// The members `@Model` adds to every model class for its state (see
/// `ModelMembers.modelState`), indented as members of a class, for the
/// expected expansions to splice in: the first line at the splice's own
/// indentation, the others four spaces in.
let modelStateMembers = """
    @_documentation(visibility: internal) @exclusivity(unchecked) nonisolated(unsafe) public private(set) var _$modelStateIfMade: ModelStore.ModelState? = nil

        @exclusivity(unchecked) nonisolated(unsafe) private var _$fetchedRow = ModelStore.FetchedRow()

        @_documentation(visibility: internal) nonisolated public var _$modelState: ModelStore.ModelState {
            _read {
                if _$modelStateIfMade == nil {
                    _$makeModelState()
                }
                yield _$modelStateIfMade.unsafelyUnwrapped
            }
        }

        @inline(never) nonisolated private func _$makeModelState() {
            _$modelStateIfMade = ModelStore.ModelState(fetched: _$fetchedRow)
        }
    """

/// The members `@Model` adds to a class with no persisted property, which
/// every test that only cares about the properties can splice in.
func emptyModelMembers(_ type: String, propertyTable: String = "static") -> String {
    """
        \(modelStateMembers)

        @_documentation(visibility: internal) nonisolated public required init(_$row row: ModelStore.PersistentRow) throws {
            self._$fetchedRow = row.fetchedRow()
        }

        @_documentation(visibility: internal) nonisolated public func _$bindValue(_ ordinal: Swift.Int, to statement: ModelStore.Statement, at index: Swift.Int32) throws {
            switch ordinal {
            default:
                break
            }
        }

        @_documentation(visibility: internal) nonisolated public \(propertyTable) var _$persistentProperties: [ModelStore.PropertyMetadata] {
            ModelStore._$formingKeyPaths {
                []
            }
        }

        @inline(__always) internal nonisolated func access<_$Member>(keyPath: @autoclosure () -> Swift.KeyPath<\(type), _$Member>) {
            if let state = _$modelStateIfMade {
                state.access(self, keyPath: keyPath())
            } else {
                ModelStore.ModelState.accessWithoutState(self, keyPath: keyPath())
            }
        }

        internal nonisolated func withMutation<_$Member, _$MutationResult>(keyPath: Swift.KeyPath<\(type), _$Member>, _ mutation: () throws -> _$MutationResult) rethrows -> _$MutationResult {
            try _$modelState.withMutation(of: self, keyPath: keyPath, mutation)
        }
    """ + (propertyTable == "class" ? """


        @_documentation(visibility: internal) nonisolated public static func _$keyPaths<T: \(type)>(rootedAt _: T.Type) -> [Swift.AnyKeyPath] {
            ModelStore._$formingKeyPaths {
                []
            }
        }
    """ : "")
}
