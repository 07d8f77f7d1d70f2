import SwiftSyntaxMacrosGenericTestSupport
import Testing

@Suite("@Model expansion of a subclass")
struct InheritanceMacroTests {
    @Test("A subclass numbers its properties after its superclass's, and overrides instead of redeclaring")
    func subclassExpansion() {
        assertExpansion(
            """
            @Model class Car: Vehicle, CustomStringConvertible {
                var doors: Int
                var description: String { name }
                init(name: String, doors: Int) {
                    self.doors = doors
                    super.init(name: name)
                }
            }
            """,
            expandedSource: #"""
                class Car: Vehicle, CustomStringConvertible {
                    @ModelStore._PersistedProperty(0, afterSuperclass: true)
                    var doors: Int
                    var description: String { name }
                    init(name: String, doors: Int) {
                        self.doors = doors
                        super.init(name: name)
                    }

                    private nonisolated enum _$Ordinals {
                        static let base = ModelStore._$superclassPropertyCount(of: Vehicle.self)
                    }

                    @_documentation(visibility: internal) nonisolated public required init(_$row row: ModelStore.PersistentRow) throws {
                        self._doors = try row.value(at: _$Ordinals.base + 0, as: (Int).self)
                        try super.init(_$row: row)
                    }

                    @_documentation(visibility: internal) nonisolated public override func _$bindValue(_ ordinal: Swift.Int, to statement: ModelStore.Statement, at index: Swift.Int32) throws {
                        switch ordinal - _$Ordinals.base {
                        case 0:
                            try statement.bindValue(self._doors, as: (Int).self, at: index)
                        default:
                            try super._$bindValue(ordinal, to: statement, at: index)
                        }
                    }

                    @_documentation(visibility: internal) nonisolated public override class var _$persistentProperties: [ModelStore.PropertyMetadata] {
                        ModelStore._$rerooting(super._$persistentProperties, at: Vehicle._$keyPaths(rootedAt: Car.self))
                        + ModelStore._$formingKeyPaths {
                            [
                                ModelStore.PropertyMetadata.attribute(name: "doors", keyPath: \Car.doors, type: (Int).self, ordinal: _$Ordinals.base + 0, options: [], originalName: nil)
                            ]
                        }
                    }

                    @inline(__always) internal nonisolated func access<_$Member>(keyPath: @autoclosure () -> Swift.KeyPath<Car, _$Member>) {
                        if let state = _$modelStateIfMade {
                            state.access(self, keyPath: keyPath())
                        } else {
                            ModelStore.ModelState.accessWithoutState(self, keyPath: keyPath())
                        }
                    }

                    internal nonisolated func withMutation<_$Member, _$MutationResult>(keyPath: Swift.KeyPath<Car, _$Member>, _ mutation: () throws -> _$MutationResult) rethrows -> _$MutationResult {
                        try _$modelState.withMutation(of: self, keyPath: keyPath, mutation)
                    }

                    @_documentation(visibility: internal) nonisolated public static func _$keyPaths<T: Car>(rootedAt _: T.Type) -> [Swift.AnyKeyPath] {
                        ModelStore._$formingKeyPaths {
                            Vehicle._$keyPaths(rootedAt: T.self) + [\T.doors]
                        }
                    }
                }
                """#
        )
    }

    @Test("A class that may be subclassed answers its property table through dynamic dispatch")
    func nonFinalRootUsesClassVar() {
        assertExpansion(
            """
            @Model class Vehicle: Identifiable {
            }
            """,
            expandedSource: """
                class Vehicle: Identifiable {

                \(emptyModelMembers("Vehicle", propertyTable: "class"))
                }

                nonisolated extension Vehicle: nonisolated ModelStore.PersistentModel {
                }
                """
        )
    }

    @Test("A subclass property's accessors offset its ordinal by the superclass's property count")
    func subclassPropertyAccessors() {
        assertExpansion(
            """
            class Car: Vehicle {
                @_PersistedProperty(2, afterSuperclass: true)
                var doors: Int
            }
            """,
            expandedSource: """
                class Car: Vehicle {
                    var doors: Int {
                        @storageRestrictions(initializes: _doors)
                        init(initialValue) {
                            _doors = initialValue
                        }
                        get {
                            access(keyPath: \\.doors)
                            if _$modelStateIfMade?.isFault((_$Ordinals.base + 2)) == true, let value = _$faultValue((_$Ordinals.base + 2), as: Swift.type(of: _doors)) {
                                if _$modelStateIfMade?.isFault((_$Ordinals.base + 2)) == true {
                                    return value
                                }
                                _doors = value
                            }
                            return _doors
                        }
                        set {
                            if _$modelStateIfMade?.isFault((_$Ordinals.base + 2)) == true, let value = _$faultValueBeforeWrite((_$Ordinals.base + 2), as: Swift.type(of: _doors)) {
                                _doors = value
                            }
                            guard _$willChange((_$Ordinals.base + 2), from: _doors, to: newValue) else {
                                return
                            }
                            withMutation(keyPath: \\.doors) {
                                _doors = newValue
                            }
                        }
                        _modify {
                            if _$modelStateIfMade?.isFault((_$Ordinals.base + 2)) == true, let value = _$faultValueBeforeWrite((_$Ordinals.base + 2), as: Swift.type(of: _doors)) {
                                _doors = value
                            }
                            let observed = _$willModify((_$Ordinals.base + 2), keyPath: \\.doors, current: _doors)
                            defer {
                                _$didModify((_$Ordinals.base + 2), keyPath: \\.doors, current: _doors, observed: observed)
                            }
                            yield &_doors
                        }
                    }

                    @ModelStore.Transient nonisolated(unsafe) private var _doors: Int
                }
                """,
            macros: propertyMacros
        )
    }

    @Test("#Unique, #Index and originalName on a subclass are refused: its table is its root class's")
    func subclassEntityOptionsRefused() {
        assertExpansion(
            """
            @Model(originalName: "Auto") class Car: Vehicle {
            }
            """,
            expandedSource: """
                class Car: Vehicle {

                    private nonisolated enum _$Ordinals {
                        static let base = ModelStore._$superclassPropertyCount(of: Vehicle.self)
                    }

                    @_documentation(visibility: internal) nonisolated public required init(_$row row: ModelStore.PersistentRow) throws {
                        try super.init(_$row: row)
                    }

                    @_documentation(visibility: internal) nonisolated public override func _$bindValue(_ ordinal: Swift.Int, to statement: ModelStore.Statement, at index: Swift.Int32) throws {
                        switch ordinal - _$Ordinals.base {
                        default:
                            try super._$bindValue(ordinal, to: statement, at: index)
                        }
                    }

                    @_documentation(visibility: internal) nonisolated public override class var _$persistentProperties: [ModelStore.PropertyMetadata] {
                        ModelStore._$rerooting(super._$persistentProperties, at: Vehicle._$keyPaths(rootedAt: Car.self))
                        + ModelStore._$formingKeyPaths {
                            []
                        }
                    }

                    @inline(__always) internal nonisolated func access<_$Member>(keyPath: @autoclosure () -> Swift.KeyPath<Car, _$Member>) {
                        if let state = _$modelStateIfMade {
                            state.access(self, keyPath: keyPath())
                        } else {
                            ModelStore.ModelState.accessWithoutState(self, keyPath: keyPath())
                        }
                    }

                    internal nonisolated func withMutation<_$Member, _$MutationResult>(keyPath: Swift.KeyPath<Car, _$Member>, _ mutation: () throws -> _$MutationResult) rethrows -> _$MutationResult {
                        try _$modelState.withMutation(of: self, keyPath: keyPath, mutation)
                    }

                    @_documentation(visibility: internal) nonisolated public static func _$keyPaths<T: Car>(rootedAt _: T.Type) -> [Swift.AnyKeyPath] {
                        ModelStore._$formingKeyPaths {
                            Vehicle._$keyPaths(rootedAt: T.self)
                        }
                    }
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: "'@Model' subclass 'Car' cannot declare #Unique, #Index or originalName: "
                        + "its objects are stored in its root class's table; declare them on the root class",
                    line: 1, column: 1)
            ]
        )
    }
}
