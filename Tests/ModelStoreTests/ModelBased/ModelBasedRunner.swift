import Foundation
@testable import ModelStore

/// A difference between ModelStore and the oracle, found after a step.
struct MBFailure: Error {
    /// The index of the step after which it was found.
    let step: Int
    /// What differed, without objects or values (for example "relationship
    /// MBOwner.items"): the shrinker keeps a shorter sequence only when it
    /// fails the same way.
    let signature: String
    let message: String
}

/// Runs steps against a ModelStore file store and the oracle side by side,
/// and compares them after every step (see `MBRunner+Compare.swift`).
final class MBRunner {
    /// How a run looks at the objects; sequences take turns.
    struct Mode: CustomStringConvertible {
        /// Whether the comparison after each step reads relationships too.
        /// Reading one loads it, so a run that reads them after every step
        /// never lets a step find a fault; runs without it read
        /// relationships after saves (in a fresh context) and at the end.
        var checksRelationshipsEveryStep: Bool
        /// Whether the run keeps every object it meets, as an app that holds
        /// them does: they must stay the objects of their rows, keep their
        /// state, and leave the context when they go. Without it, objects
        /// nobody holds are freed and fetched anew, as in an app that
        /// holds none.
        var holdsObjects: Bool

        /// The mode of sequence `index`: each combination in turn.
        init(sequence index: Int) {
            checksRelationshipsEveryStep = index % 2 == 0
            holdsObjects = index % 4 < 2
        }

        var description: String {
            "relationships compared after every step: \(checksRelationshipsEveryStep), objects held: \(holdsObjects)"
        }
    }

    /// The run's store: its folder, and its PostgreSQL schema on that
    /// backend (dropped with the runner).
    private let store: TestStore
    /// The SQLite file in the store's folder, or the PostgreSQL schema.
    let configuration: ModelConfiguration
    /// An empty in-memory store, whose context stands in while the file's
    /// container is dropped and opened again.
    private let placeholder: ModelContainer
    let mode: Mode
    private(set) var container: ModelContainer?
    private(set) var context: ModelContext
    private(set) var oracle = MBOracle()
    /// New objects by serial (the context holds them too); saved ones are
    /// found by identifier.
    private var newObjects: [Int: any PersistentModel] = [:]
    private var identifiers: [Int: PersistentIdentifier] = [:]
    /// With `mode.holdsObjects`, every object the run met in the current
    /// container, by serial.
    var held: [Int: any PersistentModel] = [:]
    /// The steps run, as Swift-like source.
    private(set) var transcript: [String] = []
    /// The index of the step being run.
    private(set) var stepIndex = 0
    /// The entity of every object made so far, for printing names of
    /// objects the oracle no longer has.
    private var entities: [Int: MBEntity] = [:]

    /// A runner on a SQLite file (whatever the run's environment says), or
    /// on PostgreSQL with `.postgres`.
    init(_ mode: Mode, on kind: StoreKind = .file) throws {
        self.mode = mode
        let store = try TestStore(kind == .postgres ? .postgres : .inMemory)
        self.store = store
        configuration = kind == .postgres ? store.configuration : ModelConfiguration(url: store.directory.file("model-based.store"))
        let container = try Self.open(configuration)
        self.container = container
        context = ModelContext(container)
        placeholder = try ModelContainer(
            for: Schema(modelBasedTypes), configurations: [ModelConfiguration(isStoredInMemoryOnly: true)])
    }

    private static func open(_ configuration: ModelConfiguration) throws -> ModelContainer {
        try ModelContainer(for: Schema(modelBasedTypes), configurations: [configuration])
    }

    /// The steps a generator makes from `seed`, `count` of them, each fitting
    /// the state the steps before it leave.
    static func generate(seed: UInt64, count: Int) -> [MBStep] {
        var generator = MBGenerator(seed: seed)
        var oracle = MBOracle()
        var steps: [MBStep] = []
        while steps.count < count {
            let step = generator.step(for: oracle)
            if oracle.apply(step) != .skipped { steps.append(step) }
        }
        return steps
    }

    /// Runs `steps`, comparing after each; the first difference, or nil.
    /// The store is removed when the run ends (a stress run makes thousands).
    func run(_ steps: [MBStep]) -> MBFailure? {
        defer {
            held = [:]
            newObjects = [:]
            context = ModelContext(placeholder)
            container = nil
            try? FileManager.default.removeItem(at: store.directory.url)
        }
        for (index, step) in steps.enumerated() {
            stepIndex = index
            do {
                try perform(step)
                try compareContext(relationships: mode.checksRelationshipsEveryStep)
            } catch let failure as MBFailure {
                return failure
            } catch {
                return fail("thrown \(type(of: error))", "step \(index) threw \(error)")
            }
        }
        do {
            try compareContext(relationships: true)
            try compareStored(prefetch: false)
        } catch let failure as MBFailure {
            return failure
        } catch {
            return fail("thrown \(type(of: error))", "the final comparison threw \(error)")
        }
        return nil
    }

    func fail(_ signature: String, _ message: String) -> MBFailure {
        MBFailure(step: stepIndex, signature: signature, message: message)
    }

    /// The real object of `serial`.
    func object(_ serial: Int) throws -> any PersistentModel {
        if let object = newObjects[serial] ?? lookUp(serial) {
            if mode.holdsObjects { held[serial] = object }
            return object
        }
        throw fail("lookup", "the context has no object for \(name(serial)) (identifier \(String(describing: identifiers[serial])))")
    }

    private func lookUp(_ serial: Int) -> (any PersistentModel)? {
        if let id = identifiers[serial], let object = context.model(for: id) { return object }
        return context.deletedModelsArray.first { MBSchema.identify($0).serial == serial }
    }

    /// The variable name of `serial` in printed steps.
    func name(_ serial: Int?) -> String {
        guard let serial else { return "nil" }
        return (entities[serial]?.letter ?? "x") + "\(serial)"
    }

    func names(_ serials: [Int]) -> String { "[" + serials.map { name($0) }.joined(separator: ", ") + "]" }

    // MARK: Steps

    private func perform(_ step: MBStep) throws {
        var expected = oracle
        let outcome = expected.apply(step)
        if outcome == .skipped { return }
        for (serial, object) in expected.objects { entities[serial] = object.entity }
        switch step {
        case .insert(let entity, let serial, let values):
            let object = MBSchema.make(entity, serial: serial, values)
            context.insert(object)
            newObjects[serial] = object
            if mode.holdsObjects { held[serial] = object }
            oracle = expected
            transcript.append("let \(name(serial)) = \(constructor(entity, serial, values)); context.insert(\(name(serial)))")
        case .insertRelated(let holderSerial, let relationshipName, let serial, let values):
            let holder = try object(holderSerial)
            let relationship = try relationship(holderSerial, relationshipName)
            let object = MBSchema.make(relationship.destination, serial: serial, values)
            newObjects[serial] = object
            if mode.holdsObjects { held[serial] = object }
            let path = "\(name(holderSerial)).\(relationshipName)"
            oracle = expected
            let made = "let \(name(serial)) = \(constructor(relationship.destination, serial, values)); "
            if relationship.isToMany {
                relationship.append(holder, object)
                transcript.append(made + "\(path).append(\(name(serial)))")
            } else {
                relationship.assign(holder, [object])
                transcript.append(made + "\(path) = \(name(serial))")
            }
        case .setAttribute(let serial, let index, let value):
            let attribute = try entity(serial).attributes[index]
            attribute.set(try object(serial), value)
            transcript.append("\(name(serial)).\(attribute.name) = \(value)")
            oracle = expected
        case .setToOne(let holder, let relationshipName, let member):
            try relationship(holder, relationshipName).assign(try object(holder), try member.map { [try object($0)] } ?? [])
            transcript.append("\(name(holder)).\(relationshipName) = \(name(member))")
            oracle = expected
        case .append(let holder, let relationshipName, let member):
            try relationship(holder, relationshipName).append(try object(holder), try object(member))
            transcript.append("\(name(holder)).\(relationshipName).append(\(name(member)))")
            oracle = expected
        case .remove(let holder, let relationshipName, let member):
            // The member may be a deleted new object, out of the context.
            let holderObject = try object(holder)
            let relationship = try relationship(holder, relationshipName)
            guard let memberObject = relationship.get(holderObject).first(where: { MBSchema.identify($0).serial == member })
            else { throw fail("relationship \(try entity(holder).className).\(relationshipName)", "\(name(member)) is not in \(name(holder)).\(relationshipName)") }
            relationship.remove(holderObject, memberObject)
            transcript.append("\(name(holder)).\(relationshipName).removeAll { $0 === \(name(member)) }")
            oracle = expected
        case .assign(let holder, let relationshipName, _), .reorder(let holder, let relationshipName, _):
            let index = try relationshipIndex(holder, relationshipName)
            let members = expected.members(holder, index)
            try relationship(holder, relationshipName).assign(try object(holder), try members.map { try object($0) })
            transcript.append("\(name(holder)).\(relationshipName) = \(names(members))")
            oracle = expected
        case .delete(let serial):
            context.delete(try object(serial))
            transcript.append("context.delete(\(name(serial)))")
            oracle = expected
        case .deleteWhere(let entity, let value):
            try MBSchema.deleteWhere(entity, value, in: context)
            let attribute = entity.attributes[entity.bulkDeleteAttribute].name
            transcript.append("try context.delete(model: \(entity.className).self, where: #Predicate { $0.\(attribute) == \(value) })")
            oracle = expected
        case .save:
            try save(expected: expected, outcome: outcome)
        case .rollback:
            context.rollback()
            newObjects = [:]
            oracle = expected
            transcript.append("context.rollback()")
        case .refetch(let prefetch):
            transcript.append("// a fresh ModelContext(container) fetches every object\(prefetch ? " (prefetching relationships)" : ""): the saved state")
            try compareStored(prefetch: prefetch)
        case .reopen:
            newObjects = [:]
            held = [:]
            // The old context and container go first: the file is opened anew.
            context = ModelContext(placeholder)
            container = nil
            let container = try Self.open(configuration)
            self.container = container
            context = ModelContext(container)
            oracle = expected
            transcript.append("container = try ModelContainer(for: …, configurations: [ModelConfiguration(url: url)]); context = ModelContext(container)   // objects looked up again by identifier")
            try compareStored(prefetch: false)
        }
    }

    private func save(expected: MBOracle, outcome: MBOracle.Outcome) throws {
        var thrown: (any Error)?
        do { try context.save() } catch { thrown = error }
        if case .denied(let holder, let relationshipName) = outcome {
            transcript.append("try context.save()   // throws deleteDenied (\(name(holder)).\(relationshipName))")
            guard case ModelStoreError.deleteDenied(_, let reported, _)? = thrown else {
                throw fail(
                    "save: deny did not throw",
                    "save() should throw deleteDenied for \(name(holder)).\(relationshipName), but \(thrown.map { "threw \($0)" } ?? "succeeded")")
            }
            guard reported == relationshipName else {
                throw fail("save: deny names another relationship", "deleteDenied names \(reported), expected \(relationshipName)")
            }
            return
        }
        transcript.append("try context.save()")
        if let thrown { throw fail("save threw", "save() threw \(thrown)") }
        oracle = expected
        for (serial, object) in newObjects where oracle.lifecycle[serial] == .persisted {
            identifiers[serial] = object.persistentModelID
        }
        newObjects = [:]
        try compareStored(prefetch: false)
    }

    private func constructor(_ entity: MBEntity, _ serial: Int, _ values: [MBValue]) -> String {
        let arguments = zip(entity.attributes, values).map { "\($0.name): \($1)" }
        return "\(entity.className)(serial: \(serial), \(arguments.joined(separator: ", ")))"
    }

    func entity(_ serial: Int) throws -> MBEntity {
        guard let entity = oracle.objects[serial]?.entity else { throw fail("lookup", "the oracle has no \(serial)") }
        return entity
    }

    private func relationshipIndex(_ holder: Int, _ name: String) throws -> Int {
        guard let index = try entity(holder).relationships.firstIndex(where: { $0.name == name }) else {
            throw fail("lookup", "no relationship \(name)")
        }
        return index
    }

    private func relationship(_ holder: Int, _ name: String) throws -> MBRelationship {
        try entity(holder).relationships[relationshipIndex(holder, name)]
    }
}
