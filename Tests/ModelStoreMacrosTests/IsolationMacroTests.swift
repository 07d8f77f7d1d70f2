import Testing

/// What `@Model` generates for a main-actor-isolated class: the members the
/// library calls, and the conformance, are nonisolated; the key paths of the
/// property table are formed through `_$formingKeyPaths`.
@Suite("@Model: isolation")
struct IsolationMacroTests {
    @Test("A @MainActor model gets nonisolated members and a nonisolated conformance")
    func mainActorModel() {
        assertExpansion(
            """
            @MainActor @Model final class Note {
                var text: String
                init(text: String) { self.text = text }
            }
            """,
            expandedSource: #"""
                @MainActor final class Note {
                    @ModelStore._PersistedProperty(0)
                    var text: String
                    init(text: String) { self.text = text }

                    \#(modelStateMembers)

                    @_documentation(visibility: internal) nonisolated public required init(_$row row: ModelStore.PersistentRow) throws {
                        self._text = try row.value(at: 0, as: (String).self)
                        self._$fetchedRow = row.fetchedRow()
                    }

                    @_documentation(visibility: internal) nonisolated public func _$bindValue(_ ordinal: Swift.Int, to statement: ModelStore.Statement, at index: Swift.Int32) throws {
                        switch ordinal {
                        case 0:
                            try statement.bindValue(self._text, as: (String).self, at: index)
                        default:
                            break
                        }
                    }

                    @_documentation(visibility: internal) nonisolated public static var _$persistentProperties: [ModelStore.PropertyMetadata] {
                        ModelStore._$formingKeyPaths {
                            [
                                ModelStore.PropertyMetadata.attribute(name: "text", keyPath: \Note.text, type: (String).self, ordinal: 0, options: [], originalName: nil)
                            ]
                        }
                    }

                    @inline(__always) internal nonisolated func access<_$Member>(keyPath: @autoclosure () -> Swift.KeyPath<Note, _$Member>) {
                        if let state = _$modelStateIfMade {
                            state.access(self, keyPath: keyPath())
                        } else {
                            ModelStore.ModelState.accessWithoutState(self, keyPath: keyPath())
                        }
                    }

                    internal nonisolated func withMutation<_$Member, _$MutationResult>(keyPath: Swift.KeyPath<Note, _$Member>, _ mutation: () throws -> _$MutationResult) rethrows -> _$MutationResult {
                        try _$modelState.withMutation(of: self, keyPath: keyPath, mutation)
                    }
                }

                nonisolated extension Note: nonisolated ModelStore.PersistentModel {
                }
                """#
        )
    }
}
