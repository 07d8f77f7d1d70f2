import Foundation
import ModelStore
import ReliabilitySupport
import Testing

/// Delete rules through new objects, which the crash and fault tests found
/// not applied (fixed since, with the model-based test's findings). The
/// save script of those tests still steers around both cases (SaveScript's
/// `old(_:)` and `cascadesThroughNewObject`).
@Suite("Cascades through new objects")
struct NewObjectCascadeTests {
    @Test("Deleting a new object cascades to the new objects it holds")
    func deleteNewObject() throws {
        let url = try temporaryFolder().appending(path: "graph.store")
        let context = ModelContext(try Graph.container(url))
        let project = Graph.Project(key: "p", title: "Porto", budget: 1)
        let step = Graph.Step(key: "s", title: "Ribeira", estimate: 1, done: false)
        let note = Graph.Note(key: "n", text: "tram 28")
        context.insert(project)
        context.insert(step)
        context.insert(note)
        project.steps.append(step)
        step.notes.append(note)
        context.delete(project)
        try context.save()
        let state = try GraphState.read(url)
        #expect(state == GraphState(), "a deleted new object's cascade must run: \(state.differences(from: GraphState()))")
    }

    @Test("A cascade from a saved object deletes a new object's own new objects")
    func cascadeThroughNewObject() throws {
        let url = try temporaryFolder().appending(path: "graph.store")
        let context = ModelContext(try Graph.container(url))
        let project = Graph.Project(key: "p", title: "Porto", budget: 1)
        context.insert(project)
        try context.save()
        let step = Graph.Step(key: "s", title: "Ribeira", estimate: 1, done: false)
        let note = Graph.Note(key: "n", text: "tram 28")
        context.insert(step)
        context.insert(note)
        project.steps.append(step)
        step.notes.append(note)
        context.delete(project)
        try context.save()
        let state = try GraphState.read(url)
        #expect(state == GraphState(), "the cascade must reach the new step's new note: \(state.differences(from: GraphState()))")
    }
}
