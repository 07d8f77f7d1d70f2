import Foundation
import ModelStore

/// What a graph store holds, as plain values keyed by the objects' unique
/// keys: independent of row keys, so that the state a store holds can be
/// compared with the state the save script says it must hold. To-many
/// relationships are ordered lists, because the store keeps their order.
public struct GraphState: Equatable, Sendable {
    public struct Project: Equatable, Sendable {
        public var title: String
        public var budget: Double
        public var steps: [String] = []
        public var labels: [String] = []
    }

    public struct Step: Equatable, Sendable {
        public var title: String
        public var estimate: Int
        public var done: Bool
        public var project: String?
        public var notes: [String] = []
    }

    public struct Note: Equatable, Sendable {
        public var text: String
        public var step: String?
    }

    public struct Label: Equatable, Sendable {
        public var name: String
        public var projects: [String] = []
    }

    public var projects: [String: Project] = [:]
    public var steps: [String: Step] = [:]
    public var notes: [String: Note] = [:]
    public var labels: [String: Label] = [:]

    /// An empty graph: the state of a new store.
    public init() {}

    /// The number of objects.
    public var count: Int { projects.count + steps.count + notes.count + labels.count }

    /// Every key, for telling which objects an edit deleted.
    var keys: Set<String> { Set(projects.keys).union(steps.keys).union(notes.keys).union(labels.keys) }

    /// What differs from `other`, one line per object (at most `limit`), for a failure message.
    public func differences(from other: GraphState, limit: Int = 8) -> [String] {
        var lines: [String] = []
        func compare<Value: Equatable>(_ name: String, _ mine: [String: Value], _ theirs: [String: Value]) {
            for key in Set(mine.keys).union(theirs.keys).sorted() where mine[key] != theirs[key] {
                lines.append("\(name) \(key): \(mine[key].map { "\($0)" } ?? "absent") ≠ \(theirs[key].map { "\($0)" } ?? "absent")")
            }
        }
        compare("project", projects, other.projects)
        compare("step", steps, other.steps)
        compare("note", notes, other.notes)
        compare("label", labels, other.labels)
        return Array(lines.prefix(limit))
    }
}

extension GraphState {
    /// Reads every object of a graph store through a context, as an app sees them.
    /// - Throws: what fetching throws.
    public init(reading context: ModelContext) throws {
        self.init(GraphObjects(try GraphObjects.fetch(context)))
    }

    init(_ objects: GraphObjects) {
        for (key, project) in objects.projects {
            projects[key] = Project(
                title: project.title, budget: project.budget, steps: project.steps.map(\.key), labels: project.labels.map(\.key))
        }
        for (key, step) in objects.steps {
            steps[key] = Step(
                title: step.title, estimate: step.estimate, done: step.done, project: step.project?.key, notes: step.notes.map(\.key))
        }
        for (key, note) in objects.notes { notes[key] = Note(text: note.text, step: note.step?.key) }
        for (key, label) in objects.labels { labels[key] = Label(name: label.name, projects: label.projects.map(\.key)) }
    }

    /// Reads the graph store at `url` through a container and context of its own.
    /// - Throws: what opening the store or fetching throws.
    public static func read(_ url: URL) throws -> GraphState {
        let context = ModelContext(try Graph.container(url))
        return try GraphState(reading: context)
    }
}

/// A graph store's objects by key, registered in one context: what the
/// worker edits.
struct GraphObjects {
    var projects: [String: Graph.Project] = [:]
    var steps: [String: Graph.Step] = [:]
    var notes: [String: Graph.Note] = [:]
    var labels: [String: Graph.Label] = [:]

    typealias Fetched = ([Graph.Project], [Graph.Step], [Graph.Note], [Graph.Label])

    static func fetch(_ context: ModelContext) throws -> Fetched {
        (
            try context.fetch(FetchDescriptor<Graph.Project>()), try context.fetch(FetchDescriptor<Graph.Step>()),
            try context.fetch(FetchDescriptor<Graph.Note>()), try context.fetch(FetchDescriptor<Graph.Label>())
        )
    }

    init(_ fetched: Fetched) {
        for project in fetched.0 { projects[project.key] = project }
        for step in fetched.1 { steps[step.key] = step }
        for note in fetched.2 { notes[note.key] = note }
        for label in fetched.3 { labels[label.key] = label }
    }

    /// Forgets the objects whose keys are not in `keys` (deleted, directly or by a cascade).
    mutating func keep(only keys: Set<String>) {
        projects = projects.filter { keys.contains($0.key) }
        steps = steps.filter { keys.contains($0.key) }
        notes = notes.filter { keys.contains($0.key) }
        labels = labels.filter { keys.contains($0.key) }
    }
}
