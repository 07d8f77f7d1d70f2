import Testing

@Suite("@Model expansion")
struct ModelMacroTests {
    @Test("The Trip example: every generated member")
    func tripExample() {
        assertExpansion(
            """
            @Model final class Trip {
                @Attribute(.unique) var name: String
                var destination: String
                var startDate: Date
                var budget: Budget?
                var tags: [String] = []
                var status: Status = .planned
                @Attribute(originalName: "notes_text") var notes: String?
                @Transient var isSelected = false
                var nights: Int { 3 }
                init(name: String, destination: String, startDate: Date) {
                    self.name = name; self.destination = destination; self.startDate = startDate
                }
            }
            """,
            expandedSource: #"""
                final class Trip {
                    @Attribute(.unique)
                    @ModelStore._PersistedProperty(0) var name: String
                    @ModelStore._PersistedProperty(1)
                    var destination: String
                    @ModelStore._PersistedProperty(2)
                    var startDate: Date
                    @ModelStore._PersistedProperty(3)
                    var budget: Budget?
                    @ModelStore._PersistedProperty(4)
                    var tags: [String] = []
                    @ModelStore._PersistedProperty(5)
                    var status: Status = .planned
                    @Attribute(originalName: "notes_text")
                    @ModelStore._PersistedProperty(6) var notes: String?
                    @Transient var isSelected = false
                    var nights: Int { 3 }
                    init(name: String, destination: String, startDate: Date) {
                        self.name = name; self.destination = destination; self.startDate = startDate
                    }

                    \#(modelStateMembers)

                    @_documentation(visibility: internal) nonisolated public required init(_$row row: ModelStore.PersistentRow) throws {
                        self._name = try row.value(at: 0, as: (String).self)
                        self._destination = try row.value(at: 1, as: (String).self)
                        self._startDate = try row.value(at: 2, as: (Date).self)
                        self._budget = try row.value(at: 3, as: (Budget?).self)
                        self._tags = try row.value(at: 4, as: ([String]).self)
                        self._status = try row.value(at: 5, as: (Status).self)
                        self._notes = try row.value(at: 6, as: (String?).self)
                        self._$fetchedRow = row.fetchedRow()
                    }

                    @_documentation(visibility: internal) nonisolated public func _$bindValue(_ ordinal: Swift.Int, to statement: ModelStore.Statement, at index: Swift.Int32) throws {
                        switch ordinal {
                        case 0:
                            try statement.bindValue(self._name, as: (String).self, at: index)
                        case 1:
                            try statement.bindValue(self._destination, as: (String).self, at: index)
                        case 2:
                            try statement.bindValue(self._startDate, as: (Date).self, at: index)
                        case 3:
                            try statement.bindValue(self._budget, as: (Budget?).self, at: index)
                        case 4:
                            try statement.bindValue(self._tags, as: ([String]).self, at: index)
                        case 5:
                            try statement.bindValue(self._status, as: (Status).self, at: index)
                        case 6:
                            try statement.bindValue(self._notes, as: (String?).self, at: index)
                        default:
                            break
                        }
                    }

                    @_documentation(visibility: internal) nonisolated public static var _$persistentProperties: [ModelStore.PropertyMetadata] {
                        ModelStore._$formingKeyPaths {
                            [
                                ModelStore.PropertyMetadata.attribute(name: "name", keyPath: \Trip.name, type: (String).self, ordinal: 0, options: [.unique], originalName: nil),
                                ModelStore.PropertyMetadata.attribute(name: "destination", keyPath: \Trip.destination, type: (String).self, ordinal: 1, options: [], originalName: nil),
                                ModelStore.PropertyMetadata.attribute(name: "startDate", keyPath: \Trip.startDate, type: (Date).self, ordinal: 2, options: [], originalName: nil),
                                ModelStore.PropertyMetadata.attribute(name: "budget", keyPath: \Trip.budget, type: (Budget?).self, ordinal: 3, options: [], originalName: nil),
                                ModelStore.PropertyMetadata.attribute(name: "tags", keyPath: \Trip.tags, type: ([String]).self, ordinal: 4, options: [], originalName: nil, defaultValue: {
                                        []
                                    }, defaultKind: .literal),
                                ModelStore.PropertyMetadata.attribute(name: "status", keyPath: \Trip.status, type: (Status).self, ordinal: 5, options: [], originalName: nil, defaultValue: {
                                        .planned
                                    }, defaultKind: .member),
                                ModelStore.PropertyMetadata.attribute(name: "notes", keyPath: \Trip.notes, type: (String?).self, ordinal: 6, options: [], originalName: "notes_text")
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
                """#
        )
    }

    @Test("A class with no persisted property gets an empty initializer and table")
    func noPersistedProperties() {
        assertExpansion(
            """
            @Model final class Empty {
            }
            """,
            expandedSource: """
                final class Empty {

                \(emptyModelMembers("Empty"))
                }

                nonisolated extension Empty: nonisolated ModelStore.PersistentModel {
                }
                """
        )
    }

    @Test("Computed, static, class, let-with-value, @Transient and @ObservationIgnored members are skipped")
    func skippedMembers() {
        assertExpansion(
            """
            @Model class Settings {
                var computed: Int { 3 }
                var explicitGetter: Int { get { 1 } set { } }
                static var shared = 0
                class var kind: String { "s" }
                let identifier = 7
                @Transient var isSelected = false
                @ModelStore.Transient var cache: [String: Int] = [:]
                @Transient var optionalCache: Data?
                @Transient lazy var formatter = Formatter()
                @ObservationIgnored var ignored = 0
            }
            """,
            expandedSource: """
                class Settings {
                    var computed: Int { 3 }
                    var explicitGetter: Int { get { 1 } set { } }
                    static var shared = 0
                    class var kind: String { "s" }
                    let identifier = 7
                    @Transient var isSelected = false
                    @ModelStore.Transient var cache: [String: Int] = [:]
                    @Transient var optionalCache: Data?
                    @Transient lazy var formatter = Formatter()
                    @ObservationIgnored var ignored = 0

                \(emptyModelMembers("Settings", propertyTable: "class"))
                }

                nonisolated extension Settings: nonisolated ModelStore.PersistentModel {
                }
                """
        )
    }

    @Test("Types are inferred from literal initializers and T! is stored as T?")
    func inferredAndImplicitlyUnwrappedTypes() {
        assertExpansion(
            """
            @Model final class Counter {
                var count = 0
                var ratio = 0.5
                var title = "untitled"
                var label = "n = \\(1)"
                var isOn = true
                var floor = -3
                var delta = -0.25
                var legacy: String!
            }
            """,
            expandedSource: #"""
                final class Counter {
                    @ModelStore._PersistedProperty(0)
                    var count = 0
                    @ModelStore._PersistedProperty(1)
                    var ratio = 0.5
                    @ModelStore._PersistedProperty(2)
                    var title = "untitled"
                    @ModelStore._PersistedProperty(3)
                    var label = "n = \(1)"
                    @ModelStore._PersistedProperty(4)
                    var isOn = true
                    @ModelStore._PersistedProperty(5)
                    var floor = -3
                    @ModelStore._PersistedProperty(6)
                    var delta = -0.25
                    @ModelStore._PersistedProperty(7)
                    var legacy: String!

                    \#(modelStateMembers)

                    @_documentation(visibility: internal) nonisolated public required init(_$row row: ModelStore.PersistentRow) throws {
                        self._count = try row.value(at: 0, as: (Swift.Int).self)
                        self._ratio = try row.value(at: 1, as: (Swift.Double).self)
                        self._title = try row.value(at: 2, as: (Swift.String).self)
                        self._label = try row.value(at: 3, as: (Swift.String).self)
                        self._isOn = try row.value(at: 4, as: (Swift.Bool).self)
                        self._floor = try row.value(at: 5, as: (Swift.Int).self)
                        self._delta = try row.value(at: 6, as: (Swift.Double).self)
                        self._legacy = try row.value(at: 7, as: (String?).self)
                        self._$fetchedRow = row.fetchedRow()
                    }

                    @_documentation(visibility: internal) nonisolated public func _$bindValue(_ ordinal: Swift.Int, to statement: ModelStore.Statement, at index: Swift.Int32) throws {
                        switch ordinal {
                        case 0:
                            try statement.bindValue(self._count, as: (Swift.Int).self, at: index)
                        case 1:
                            try statement.bindValue(self._ratio, as: (Swift.Double).self, at: index)
                        case 2:
                            try statement.bindValue(self._title, as: (Swift.String).self, at: index)
                        case 3:
                            try statement.bindValue(self._label, as: (Swift.String).self, at: index)
                        case 4:
                            try statement.bindValue(self._isOn, as: (Swift.Bool).self, at: index)
                        case 5:
                            try statement.bindValue(self._floor, as: (Swift.Int).self, at: index)
                        case 6:
                            try statement.bindValue(self._delta, as: (Swift.Double).self, at: index)
                        case 7:
                            try statement.bindValue(self._legacy, as: (String?).self, at: index)
                        default:
                            break
                        }
                    }

                    @_documentation(visibility: internal) nonisolated public static var _$persistentProperties: [ModelStore.PropertyMetadata] {
                        ModelStore._$formingKeyPaths {
                            [
                                ModelStore.PropertyMetadata.attribute(name: "count", keyPath: \Counter.count, type: (Swift.Int).self, ordinal: 0, options: [], originalName: nil, defaultValue: {
                                        0
                                    }, defaultKind: .literal),
                                ModelStore.PropertyMetadata.attribute(name: "ratio", keyPath: \Counter.ratio, type: (Swift.Double).self, ordinal: 1, options: [], originalName: nil, defaultValue: {
                                        0.5
                                    }, defaultKind: .literal),
                                ModelStore.PropertyMetadata.attribute(name: "title", keyPath: \Counter.title, type: (Swift.String).self, ordinal: 2, options: [], originalName: nil, defaultValue: {
                                        "untitled"
                                    }, defaultKind: .literal),
                                ModelStore.PropertyMetadata.attribute(name: "label", keyPath: \Counter.label, type: (Swift.String).self, ordinal: 3, options: [], originalName: nil, defaultValue: {
                                        "n = \(1)"
                                    }),
                                ModelStore.PropertyMetadata.attribute(name: "isOn", keyPath: \Counter.isOn, type: (Swift.Bool).self, ordinal: 4, options: [], originalName: nil, defaultValue: {
                                        true
                                    }, defaultKind: .literal),
                                ModelStore.PropertyMetadata.attribute(name: "floor", keyPath: \Counter.floor, type: (Swift.Int).self, ordinal: 5, options: [], originalName: nil, defaultValue: {
                                        -3
                                    }, defaultKind: .literal),
                                ModelStore.PropertyMetadata.attribute(name: "delta", keyPath: \Counter.delta, type: (Swift.Double).self, ordinal: 6, options: [], originalName: nil, defaultValue: {
                                        -0.25
                                    }, defaultKind: .literal),
                                ModelStore.PropertyMetadata.attribute(name: "legacy", keyPath: \Counter.legacy, type: (String?).self, ordinal: 7, options: [], originalName: nil)
                            ]
                        }
                    }

                    @inline(__always) internal nonisolated func access<_$Member>(keyPath: @autoclosure () -> Swift.KeyPath<Counter, _$Member>) {
                        if let state = _$modelStateIfMade {
                            state.access(self, keyPath: keyPath())
                        } else {
                            ModelStore.ModelState.accessWithoutState(self, keyPath: keyPath())
                        }
                    }

                    internal nonisolated func withMutation<_$Member, _$MutationResult>(keyPath: Swift.KeyPath<Counter, _$Member>, _ mutation: () throws -> _$MutationResult) rethrows -> _$MutationResult {
                        try _$modelState.withMutation(of: self, keyPath: keyPath, mutation)
                    }
                }

                nonisolated extension Counter: nonisolated ModelStore.PersistentModel {
                }
                """#
        )
    }

    @Test("@Relationship arguments are copied verbatim, with SwiftData's defaults for the others")
    func relationshipArguments() {
        assertExpansion(
            #"""
            @Model final class Trip {
                @Relationship(deleteRule: .cascade, inverse: \Stop.trip) var stops: [Stop] = []
                @Relationship(.unique, minimumModelCount: 1, maximumModelCount: 3, originalName: "people", hashModifier: "x", forwardsChanges: true) var members: [Person]? = []
                var owner: Person?
            }
            """#,
            expandedSource: #"""
                final class Trip {
                    @Relationship(deleteRule: .cascade, inverse: \Stop.trip)
                    @ModelStore._PersistedProperty(0) var stops: [Stop] = []
                    @Relationship(.unique, minimumModelCount: 1, maximumModelCount: 3, originalName: "people", hashModifier: "x", forwardsChanges: true)
                    @ModelStore._PersistedProperty(1) var members: [Person]? = []
                    @ModelStore._PersistedProperty(2)
                    var owner: Person?

                    \#(modelStateMembers)

                    @_documentation(visibility: internal) nonisolated public required init(_$row row: ModelStore.PersistentRow) throws {
                        self._stops = try row.value(at: 0, as: ([Stop]).self)
                        self._members = try row.value(at: 1, as: ([Person]?).self)
                        self._owner = try row.value(at: 2, as: (Person?).self)
                        self._$fetchedRow = row.fetchedRow()
                    }

                    @_documentation(visibility: internal) nonisolated public func _$bindValue(_ ordinal: Swift.Int, to statement: ModelStore.Statement, at index: Swift.Int32) throws {
                        switch ordinal {
                        case 0:
                            try statement.bindValue(self._stops, as: ([Stop]).self, at: index)
                        case 1:
                            try statement.bindValue(self._members, as: ([Person]?).self, at: index)
                        case 2:
                            try statement.bindValue(self._owner, as: (Person?).self, at: index)
                        default:
                            break
                        }
                    }

                    @_documentation(visibility: internal) nonisolated public static var _$persistentProperties: [ModelStore.PropertyMetadata] {
                        ModelStore._$formingKeyPaths {
                            [
                                ModelStore.PropertyMetadata.relationship(name: "stops", keyPath: \Trip.stops, type: ([Stop]).self, ordinal: 0, options: [], deleteRule: .cascade, minimumModelCount: nil, maximumModelCount: nil, originalName: nil, inverse: \Stop.trip, forwardsChanges: false),
                                ModelStore.PropertyMetadata.relationship(name: "members", keyPath: \Trip.members, type: ([Person]?).self, ordinal: 1, options: [.unique], deleteRule: .nullify, minimumModelCount: 1, maximumModelCount: 3, originalName: "people", inverse: nil, forwardsChanges: true),
                                ModelStore.PropertyMetadata.attribute(name: "owner", keyPath: \Trip.owner, type: (Person?).self, ordinal: 2, options: [], originalName: nil)
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
                """#
        )
    }

    @Test("@Attribute options and originalName are copied verbatim; hashModifier is ignored")
    func attributeArguments() {
        assertExpansion(
            """
            @Model final class Photo {
                @ModelStore.Attribute(.unique, .externalStorage, originalName: "blob", hashModifier: "v2") private var data: Data
                private(set) var `default`: Int = 1
            }
            """,
            expandedSource: #"""
                final class Photo {
                    @ModelStore.Attribute(.unique, .externalStorage, originalName: "blob", hashModifier: "v2")
                    @ModelStore._PersistedProperty(0) private var data: Data
                    @ModelStore._PersistedProperty(1)
                    private(set) var `default`: Int = 1

                    \#(modelStateMembers)

                    @_documentation(visibility: internal) nonisolated public required init(_$row row: ModelStore.PersistentRow) throws {
                        self._data = try row.value(at: 0, as: (Data).self)
                        self._default = try row.value(at: 1, as: (Int).self)
                        self._$fetchedRow = row.fetchedRow()
                    }

                    @_documentation(visibility: internal) nonisolated public func _$bindValue(_ ordinal: Swift.Int, to statement: ModelStore.Statement, at index: Swift.Int32) throws {
                        switch ordinal {
                        case 0:
                            try statement.bindValue(self._data, as: (Data).self, at: index)
                        case 1:
                            try statement.bindValue(self._default, as: (Int).self, at: index)
                        default:
                            break
                        }
                    }

                    @_documentation(visibility: internal) nonisolated public static var _$persistentProperties: [ModelStore.PropertyMetadata] {
                        ModelStore._$formingKeyPaths {
                            [
                                ModelStore.PropertyMetadata.attribute(name: "data", keyPath: \Photo.data, type: (Data).self, ordinal: 0, options: [.unique, .externalStorage], originalName: "blob"),
                                ModelStore.PropertyMetadata.attribute(name: "default", keyPath: \Photo.`default`, type: (Int).self, ordinal: 1, options: [], originalName: nil, defaultValue: {
                                        1
                                    }, defaultKind: .literal)
                            ]
                        }
                    }

                    @inline(__always) internal nonisolated func access<_$Member>(keyPath: @autoclosure () -> Swift.KeyPath<Photo, _$Member>) {
                        if let state = _$modelStateIfMade {
                            state.access(self, keyPath: keyPath())
                        } else {
                            ModelStore.ModelState.accessWithoutState(self, keyPath: keyPath())
                        }
                    }

                    internal nonisolated func withMutation<_$Member, _$MutationResult>(keyPath: Swift.KeyPath<Photo, _$Member>, _ mutation: () throws -> _$MutationResult) rethrows -> _$MutationResult {
                        try _$modelState.withMutation(of: self, keyPath: keyPath, mutation)
                    }
                }

                nonisolated extension Photo: nonisolated ModelStore.PersistentModel {
                }
                """#
        )
    }

    @Test(
        "No extension when the class already declares PersistentModel",
        arguments: ["PersistentModel", "ModelStore.PersistentModel"])
    func explicitConformance(conformance: String) {
        assertExpansion(
            """
            @Model final class Tag: \(conformance) {
            }
            """,
            expandedSource: """
                final class Tag: \(conformance) {

                \(emptyModelMembers("Tag"))
                }
                """
        )
    }

    @Test("A non-final class with a superclass-style inheritance clause still gets the conformance")
    func otherInheritance() {
        assertExpansion(
            """
            @Model class Node: CustomStringConvertible {
            }
            """,
            expandedSource: """
                class Node: CustomStringConvertible {

                \(emptyModelMembers("Node", propertyTable: "class"))
                }

                nonisolated extension Node: nonisolated ModelStore.PersistentModel {
                }
                """
        )
    }
}
