import Foundation

// Deleting by predicate is a fetch followed by `delete(_:)`, so it lives with
// the queries; the delete rules are the context's (Context/ModelContext+Delete.swift).

extension ModelContext {
    /// Deletes every object of `model` that `predicate` matches (all of them
    /// without one), applying delete rules as `delete(_:)` does; `save()`
    /// writes it, as in SwiftData. With `includeSubclasses: false`, objects
    /// of `model`'s `@Model` subclasses are left alone (SwiftData's default
    /// is `true`).
    /// - Throws: what `fetch(_:)` throws.
    public func delete<T: PersistentModel>(
        model: T.Type, where predicate: Predicate<T>? = nil, includeSubclasses: Bool = true
    ) throws {
        for object in try fetch(FetchDescriptor<T>(predicate: predicate))
        where includeSubclasses || type(of: object) == T.self {
            delete(object)
        }
    }
}
