import Foundation
import ModelStore

/// A graph store opened the way an app opens it: a container, one context,
/// and every object fetched into it by key. Releasing the session closes
/// its connections.
package final class SaveSession {
    let container: ModelContainer
    let context: ModelContext
    private(set) var objects: GraphObjects

    /// Opens the store at `url` (creating it when it does not exist) and fetches every object.
    /// - Throws: what opening the store or fetching throws.
    package init(_ url: URL) throws {
        container = try Graph.container(url)
        context = ModelContext(container)
        objects = GraphObjects(try GraphObjects.fetch(context))
    }

    /// The state the context's objects hold. Loads every relationship.
    package var state: GraphState { GraphState(objects) }

    /// Makes `edits` on the context's objects, without saving.
    /// - Throws: `WorkerError` when an edit names an object the context does not hold.
    package func apply(_ edits: [GraphEdit]) throws {
        for edit in edits { try objects.apply(edit, in: context) }
    }

    /// Saves the pending edits.
    /// - Throws: what `ModelContext.save()` throws.
    package func save() throws {
        try context.save()
    }

    /// Forgets the objects a save deleted: those whose keys are not in `state`.
    package func forget(keeping state: GraphState) {
        objects.keep(only: state.keys)
    }
}
