import SwiftSyntaxMacrosGenericTestSupport
import Testing

@Suite("@Model: transformable attributes")
struct TransformableMacroTests {
    @Test("A .transformable(by:) option is passed to the read, the bind and the table entry, in either spelling")
    func transformableIsRoutedThroughTheTransformer() {
        assertExpansion(
            """
            @Model final class Theme {
                @Attribute(.transformable(by: ColorTransformer.self)) var accent: RGBColor
                @Attribute(.unique, Schema.Attribute.Option.transformable(by: "Shade")) var shade: RGBColor?
                var name: String
            }
            """,
            expandedSource: """
                final class Theme {
                    @Attribute(.transformable(by: ColorTransformer.self))
                    @ModelStore._PersistedProperty(0) var accent: RGBColor
                    @Attribute(.unique, Schema.Attribute.Option.transformable(by: "Shade"))
                    @ModelStore._PersistedProperty(1) var shade: RGBColor?
                    @ModelStore._PersistedProperty(2)
                    var name: String

                    \(modelStateMembers)

                    @_documentation(visibility: internal) nonisolated public required init(_$row row: ModelStore.PersistentRow) throws {
                        self._accent = try row.value(at: 0, as: (RGBColor).self, transformedBy: .transformable(by: ColorTransformer.self))
                        self._shade = try row.value(at: 1, as: (RGBColor?).self, transformedBy: Schema.Attribute.Option.transformable(by: "Shade"))
                        self._name = try row.value(at: 2, as: (String).self)
                        self._$fetchedRow = row.fetchedRow()
                    }

                    @_documentation(visibility: internal) nonisolated public func _$bindValue(_ ordinal: Swift.Int, to statement: ModelStore.Statement, at index: Swift.Int32) throws {
                        switch ordinal {
                        case 0:
                            try statement.bindValue(self._accent, as: (RGBColor).self, at: index, transformedBy: .transformable(by: ColorTransformer.self))
                        case 1:
                            try statement.bindValue(self._shade, as: (RGBColor?).self, at: index, transformedBy: Schema.Attribute.Option.transformable(by: "Shade"))
                        case 2:
                            try statement.bindValue(self._name, as: (String).self, at: index)
                        default:
                            break
                        }
                    }

                    @_documentation(visibility: internal) nonisolated public static var _$persistentProperties: [ModelStore.PropertyMetadata] {
                        ModelStore._$formingKeyPaths {
                            [
                                ModelStore.PropertyMetadata.attribute(name: "accent", keyPath: \\Theme.accent, type: (RGBColor).self, ordinal: 0, options: [.transformable(by: ColorTransformer.self)], originalName: nil, transformedBy: .transformable(by: ColorTransformer.self)),
                                ModelStore.PropertyMetadata.attribute(name: "shade", keyPath: \\Theme.shade, type: (RGBColor?).self, ordinal: 1, options: [.unique, Schema.Attribute.Option.transformable(by: "Shade")], originalName: nil, transformedBy: Schema.Attribute.Option.transformable(by: "Shade")),
                                ModelStore.PropertyMetadata.attribute(name: "name", keyPath: \\Theme.name, type: (String).self, ordinal: 2, options: [], originalName: nil)
                            ]
                        }
                    }

                    @inline(__always) internal nonisolated func access<_$Member>(keyPath: @autoclosure () -> Swift.KeyPath<Theme, _$Member>) {
                        if let state = _$modelStateIfMade {
                            state.access(self, keyPath: keyPath())
                        } else {
                            ModelStore.ModelState.accessWithoutState(self, keyPath: keyPath())
                        }
                    }

                    internal nonisolated func withMutation<_$Member, _$MutationResult>(keyPath: Swift.KeyPath<Theme, _$Member>, _ mutation: () throws -> _$MutationResult) rethrows -> _$MutationResult {
                        try _$modelState.withMutation(of: self, keyPath: keyPath, mutation)
                    }
                }

                nonisolated extension Theme: nonisolated ModelStore.PersistentModel {
                }
                """
        )
    }
}
