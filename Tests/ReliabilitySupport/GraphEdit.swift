import Foundation
import ModelStore

/// One change a save makes to the graph. The same edit is applied to a
/// `GraphState` (what the store must hold afterwards) and to the objects of
/// a context (what the worker saves), so the two can be compared.
public enum GraphEdit: Sendable, Equatable {
    case addLabel(String, name: String)
    case addProject(String, title: String, budget: Double)
    case addStep(String, title: String, estimate: Int, project: String)
    case addNote(String, text: String, step: String)
    case editProject(String, title: String, budget: Double)
    case editStep(String, title: String, estimate: Int, done: Bool)
    case editNote(String, text: String)
    /// Appends the step to another project's steps (the inverse follows).
    case moveStep(String, to: String)
    /// Appends the note to another step's notes.
    case moveNote(String, to: String)
    case link(project: String, label: String)
    case unlink(project: String, label: String)
    /// Cascades to the project's steps and their notes; nullifies its labels' links.
    case deleteProject(String)
    /// Cascades to the step's notes.
    case deleteStep(String)
    case deleteNote(String)
    /// Nullifies the label's links to projects.
    case deleteLabel(String)
}

extension GraphState {
    /// This state after `edits`, with the store's rules: appending to a
    /// to-many adds at its end and removes the object from its former
    /// owner's list; a delete cascades or nullifies as the models say.
    public func applying(_ edits: [GraphEdit]) -> GraphState {
        var state = self
        for edit in edits { state.apply(edit) }
        return state
    }

    mutating func apply(_ edit: GraphEdit) {
        switch edit {
        case .addLabel(let key, let name):
            labels[key] = Label(name: name)
        case .addProject(let key, let title, let budget):
            projects[key] = Project(title: title, budget: budget)
        case .addStep(let key, let title, let estimate, let project):
            steps[key] = Step(title: title, estimate: estimate, done: false, project: project)
            projects[project]?.steps.append(key)
        case .addNote(let key, let text, let step):
            notes[key] = Note(text: text, step: step)
            steps[step]?.notes.append(key)
        case .editProject(let key, let title, let budget):
            projects[key]?.title = title
            projects[key]?.budget = budget
        case .editStep(let key, let title, let estimate, let done):
            steps[key]?.title = title
            steps[key]?.estimate = estimate
            steps[key]?.done = done
        case .editNote(let key, let text):
            notes[key]?.text = text
        case .moveStep(let key, let project):
            if let old = steps[key]?.project { projects[old]?.steps.removeAll { $0 == key } }
            steps[key]?.project = project
            projects[project]?.steps.append(key)
        case .moveNote(let key, let step):
            if let old = notes[key]?.step { steps[old]?.notes.removeAll { $0 == key } }
            notes[key]?.step = step
            steps[step]?.notes.append(key)
        case .link(let project, let label):
            projects[project]?.labels.append(label)
            labels[label]?.projects.append(project)
        case .unlink(let project, let label):
            projects[project]?.labels.removeAll { $0 == label }
            labels[label]?.projects.removeAll { $0 == project }
        case .deleteProject(let key):
            guard let project = projects.removeValue(forKey: key) else { return }
            for step in project.steps { apply(.deleteStep(step)) }
            for label in project.labels { labels[label]?.projects.removeAll { $0 == key } }
        case .deleteStep(let key):
            guard let step = steps.removeValue(forKey: key) else { return }
            for note in step.notes { notes[note] = nil }
            if let project = step.project { projects[project]?.steps.removeAll { $0 == key } }
        case .deleteNote(let key):
            guard let note = notes.removeValue(forKey: key) else { return }
            if let step = note.step { steps[step]?.notes.removeAll { $0 == key } }
        case .deleteLabel(let key):
            guard let label = labels.removeValue(forKey: key) else { return }
            for project in label.projects { projects[project]?.labels.removeAll { $0 == key } }
        }
    }
}

extension GraphObjects {
    /// Makes `edit` on the objects of `context`: inserts, sets, appends to
    /// and removes from to-many relationships, deletes. Does not save.
    /// Objects a cascade deletes stay in the dictionaries until `keep(only:)`.
    mutating func apply(_ edit: GraphEdit, in context: ModelContext) throws {
        switch edit {
        case .addLabel(let key, let name):
            let label = Graph.Label(key: key, name: name)
            context.insert(label)
            labels[key] = label
        case .addProject(let key, let title, let budget):
            let project = Graph.Project(key: key, title: title, budget: budget)
            context.insert(project)
            projects[key] = project
        case .addStep(let key, let title, let estimate, let project):
            let step = Graph.Step(key: key, title: title, estimate: estimate, done: false)
            context.insert(step)
            try require(projects[project], project).steps.append(step)
            steps[key] = step
        case .addNote(let key, let text, let step):
            let note = Graph.Note(key: key, text: text)
            context.insert(note)
            try require(steps[step], step).notes.append(note)
            notes[key] = note
        case .editProject(let key, let title, let budget):
            let project = try require(projects[key], key)
            project.title = title
            project.budget = budget
        case .editStep(let key, let title, let estimate, let done):
            let step = try require(steps[key], key)
            step.title = title
            step.estimate = estimate
            step.done = done
        case .editNote(let key, let text):
            try require(notes[key], key).text = text
        case .moveStep(let key, let project):
            try require(projects[project], project).steps.append(try require(steps[key], key))
        case .moveNote(let key, let step):
            try require(steps[step], step).notes.append(try require(notes[key], key))
        case .link(let project, let label):
            try require(projects[project], project).labels.append(try require(labels[label], label))
        case .unlink(let project, let label):
            try require(projects[project], project).labels.removeAll { $0.key == label }
        case .deleteProject(let key):
            context.delete(try require(projects[key], key))
        case .deleteStep(let key):
            context.delete(try require(steps[key], key))
        case .deleteNote(let key):
            context.delete(try require(notes[key], key))
        case .deleteLabel(let key):
            context.delete(try require(labels[key], key))
        }
    }

    private func require<T>(_ object: T?, _ key: String) throws -> T {
        guard let object else { throw WorkerError("the script refers to \(key), which the context does not hold") }
        return object
    }
}

/// A failure of the worker itself (a bad argument, a script that does not fit the store).
public struct WorkerError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
