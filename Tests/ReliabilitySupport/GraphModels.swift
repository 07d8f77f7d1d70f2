import Foundation
import ModelStore

// The graph the crash and fault tests save: three levels that cascade
// (a project owns its steps, a step owns its notes) and a many-to-many that
// nullifies (labels). Every object has a unique key, so that a state can be
// compared without depending on row keys.

/// The models the reliability tests save, in a namespace of their own.
public enum Graph {
    @Model public final class Project {
        @Attribute(.unique) public var key: String
        public var title: String
        public var budget: Double
        @Relationship(deleteRule: .cascade, inverse: \Step.project) public var steps: [Step] = []
        @Relationship(deleteRule: .nullify, inverse: \Label.projects) public var labels: [Label] = []
        public init(key: String, title: String, budget: Double) {
            self.key = key
            self.title = title
            self.budget = budget
        }
    }

    @Model public final class Step {
        @Attribute(.unique) public var key: String
        public var title: String
        public var estimate: Int
        public var done: Bool
        public var project: Project?
        @Relationship(deleteRule: .cascade, inverse: \Note.step) public var notes: [Note] = []
        public init(key: String, title: String, estimate: Int, done: Bool) {
            self.key = key
            self.title = title
            self.estimate = estimate
            self.done = done
        }
    }

    @Model public final class Note {
        @Attribute(.unique) public var key: String
        public var text: String
        public var step: Step?
        public init(key: String, text: String) {
            self.key = key
            self.text = text
        }
    }

    @Model public final class Label {
        @Attribute(.unique) public var key: String
        public var name: String
        public var projects: [Project] = []
        public init(key: String, name: String) {
            self.key = key
            self.name = name
        }
    }

    nonisolated(unsafe) public static let models: [any PersistentModel.Type] = [Project.self, Step.self, Note.self, Label.self]

    /// Opens (or creates) a graph store.
    /// - Throws: what `ModelContainer` throws.
    public static func container(_ url: URL) throws -> ModelContainer {
        try ModelContainer(for: Schema(models), configurations: [ModelConfiguration(url: url)])
    }
}
