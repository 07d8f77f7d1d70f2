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

                    public let _$modelState = ModelStore.ModelState()

                    public required init(_$row row: ModelStore.PersistentRow) throws {
                        self._name = try row.value(at: 0, as: (String).self)
                        self._destination = try row.value(at: 1, as: (String).self)
                        self._startDate = try row.value(at: 2, as: (Date).self)
                        self._budget = try row.value(at: 3, as: (Budget?).self)
                        self._tags = try row.value(at: 4, as: ([String]).self)
                        self._status = try row.value(at: 5, as: (Status).self)
                        self._notes = try row.value(at: 6, as: (String?).self)
                    }

                    public static var _$persistentProperties: [ModelStore.PropertyMetadata] {
                        [
                            ModelStore.PropertyMetadata.attribute(name: "name", keyPath: \Trip.name, type: (String).self, ordinal: 0, options: [.unique], originalName: nil),
                            ModelStore.PropertyMetadata.attribute(name: "destination", keyPath: \Trip.destination, type: (String).self, ordinal: 1, options: [], originalName: nil),
                            ModelStore.PropertyMetadata.attribute(name: "startDate", keyPath: \Trip.startDate, type: (Date).self, ordinal: 2, options: [], originalName: nil),
                            ModelStore.PropertyMetadata.attribute(name: "budget", keyPath: \Trip.budget, type: (Budget?).self, ordinal: 3, options: [], originalName: nil),
                            ModelStore.PropertyMetadata.attribute(name: "tags", keyPath: \Trip.tags, type: ([String]).self, ordinal: 4, options: [], originalName: nil),
                            ModelStore.PropertyMetadata.attribute(name: "status", keyPath: \Trip.status, type: (Status).self, ordinal: 5, options: [], originalName: nil),
                            ModelStore.PropertyMetadata.attribute(name: "notes", keyPath: \Trip.notes, type: (String?).self, ordinal: 6, options: [], originalName: "notes_text")
                        ]
                    }

                    internal nonisolated func access<Member>(keyPath: KeyPath<Trip, Member>) {
                        _$modelState.registrar.access(self, keyPath: keyPath)
                    }

                    internal nonisolated func withMutation<Member, MutationResult>(keyPath: KeyPath<Trip, Member>, _ mutation: () throws -> MutationResult) rethrows -> MutationResult {
                        try _$modelState.registrar.withMutation(of: self, keyPath: keyPath, mutation)
                    }
                }

                extension Trip: ModelStore.PersistentModel {
                }
                """#
        )
    }
}
