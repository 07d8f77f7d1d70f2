import SwiftSyntaxMacrosGenericTestSupport
import Testing

@Suite("@Model: inferred types and persisted constants")
struct InferenceMacroTests {
    @Test("A type left to inference is named through the key path; a let is read and bound but has no accessors")
    func inferredTypeAndConstant() {
        assertExpansion(
            """
            @Model final class Entry {
                var created = Date()
                let number: Int
            }
            """,
            expandedSource: """
                final class Entry {
                    @ModelStore._PersistedProperty(0)
                    var created = Date()
                    let number: Int

                    \(modelStateMembers)

                    @_documentation(visibility: internal) nonisolated public required init(_$row row: ModelStore.PersistentRow) throws {
                        self._created = try row.value(at: 0, as: ModelStore._$valueType(of: {
                                    \\Entry.created
                                }))
                        self.number = try row.value(at: 1, as: (Int).self)
                        self._$fetchedRow = row.fetchedRow()
                    }

                    @_documentation(visibility: internal) nonisolated public func _$bindValue(_ ordinal: Swift.Int, to statement: ModelStore.Statement, at index: Swift.Int32) throws {
                        switch ordinal {
                        case 0:
                            try statement.bindValue(self._created, as: ModelStore._$valueType(of: {
                                        \\Entry.created
                                    }), at: index)
                        case 1:
                            try statement.bindValue(self.number, as: (Int).self, at: index)
                        default:
                            break
                        }
                    }

                    @_documentation(visibility: internal) nonisolated public static var _$persistentProperties: [ModelStore.PropertyMetadata] {
                        ModelStore._$formingKeyPaths {
                            [
                                ModelStore.PropertyMetadata.attribute(name: "created", keyPath: \\Entry.created, type: ModelStore._$valueType(of: {
                                            \\Entry.created
                                        }), ordinal: 0, options: [], originalName: nil, defaultValue: {
                                        Date()
                                    }),
                                ModelStore.PropertyMetadata.attribute(name: "number", keyPath: \\Entry.number, type: (Int).self, ordinal: 1, options: [], originalName: nil)
                            ]
                        }
                    }

                    @inline(__always) internal nonisolated func access<_$Member>(keyPath: @autoclosure () -> Swift.KeyPath<Entry, _$Member>) {
                        if let state = _$modelStateIfMade {
                            state.access(self, keyPath: keyPath())
                        } else {
                            ModelStore.ModelState.accessWithoutState(self, keyPath: keyPath())
                        }
                    }

                    internal nonisolated func withMutation<_$Member, _$MutationResult>(keyPath: Swift.KeyPath<Entry, _$Member>, _ mutation: () throws -> _$MutationResult) rethrows -> _$MutationResult {
                        try _$modelState.withMutation(of: self, keyPath: keyPath, mutation)
                    }
                }

                nonisolated extension Entry: nonisolated ModelStore.PersistentModel {
                }
                """
        )
    }
}
