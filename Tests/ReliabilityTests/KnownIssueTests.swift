import Foundation
import ModelStore
import ReliabilityWorker
import Testing

/// Delete rules that the crash and fault tests found not applied, recorded
/// as known issues: each test fails (as "known issue not recorded") once the
/// bug is fixed, to be turned into a plain test then. The save script of
/// those tests steers around both cases (SaveScript's `old(_:)` and
/// `cascadesThroughNewObject`).
@Suite("Known issues: cascades through new objects")
struct KnownIssueTests {
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
        withKnownIssue("a deleted new object is dropped without its delete rules: its new steps and notes are saved") {
            #expect(state == GraphState(), "\(state.differences(from: GraphState()))")
        }
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
        withKnownIssue("the cascade drops the new step but saves its new note, without a step") {
            #expect(state == GraphState(), "\(state.differences(from: GraphState()))")
        }
    }
}
