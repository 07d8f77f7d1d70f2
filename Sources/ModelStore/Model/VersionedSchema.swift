/// One version of an app's schema, as SwiftData's `VersionedSchema`: a
/// version identifier and the model classes of that version, usually nested
/// inside the conforming enum.
///
/// ```swift
/// enum TripsV1: VersionedSchema {
///     static var versionIdentifier: Schema.Version { Schema.Version(1, 0, 0) }
///     static var models: [any PersistentModel.Type] { [Trip.self] }
///     @Model final class Trip { var name: String; init(name: String) { self.name = name } }
/// }
/// ```
///
/// A nested class's entity name is its own name (`Trip`), not the enum's, so
/// `TripsV1.Trip` and `TripsV2.Trip` are two versions of one entity.
public protocol VersionedSchema: SendableMetatype {
    /// The version this schema is recorded with in the store.
    static var versionIdentifier: Schema.Version { get }
    /// The model classes of this version.
    static var models: [any PersistentModel.Type] { get }
}

extension VersionedSchema {
    /// The schema of this version's models, with its version.
    public static var schema: Schema { Schema(models, version: versionIdentifier) }
}
