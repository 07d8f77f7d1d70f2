// What an app declares for a migration plan; ModelContainer takes it, and the
// store-migration layer (Migration/OpenMigration.swift) runs it.

/// The versions of an app's schema and the stages between them, as
/// SwiftData's `SchemaMigrationPlan`.
///
/// ```swift
/// enum TripsPlan: SchemaMigrationPlan {
///     static var schemas: [any VersionedSchema.Type] { [TripsV1.self, TripsV2.self] }
///     static var stages: [MigrationStage] { [.lightweight(fromVersion: TripsV1.self, toVersion: TripsV2.self)] }
/// }
/// let container = try ModelContainer(for: TripsV2.Trip.self, migrationPlan: TripsPlan.self, configurations: config)
/// ```
public protocol SchemaMigrationPlan: SendableMetatype {
    /// Every version, oldest first.
    static var schemas: [any VersionedSchema.Type] { get }
    /// The stages from each version to the next, in order.
    static var stages: [MigrationStage] { get }
}

/// One step of a `SchemaMigrationPlan`, as SwiftData's `MigrationStage`.
///
/// A stage is `Sendable`, so that a plan can keep its stages in `static let`s
/// (`static let migrateV1toV2 = MigrationStage.custom(...)`, the shape most
/// SwiftData apps use) in the Swift 6 language mode; its closures are
/// `@Sendable` for that reason.
public enum MigrationStage: Sendable {
    /// A change ModelStore works out by itself; refused, with an error that
    /// names each change, when it would lose data.
    case lightweight(fromVersion: any VersionedSchema.Type, toVersion: any VersionedSchema.Type)
    /// A change with code around it. `willMigrate` runs with a context on
    /// the old version's models before the tables change, `didMigrate` with
    /// a context on the new version's models after; either may throw, which
    /// undoes the whole migration. Changes that lose data are allowed here:
    /// the stage says what happens to the data. Unsaved changes of the
    /// context are saved when the closure returns.
    @preconcurrency case custom(
        fromVersion: any VersionedSchema.Type, toVersion: any VersionedSchema.Type,
        willMigrate: (@Sendable (ModelContext) throws -> Void)?, didMigrate: (@Sendable (ModelContext) throws -> Void)?)

    var fromVersion: any VersionedSchema.Type {
        switch self {
        case .lightweight(let from, _), .custom(let from, _, _, _): from
        }
    }

    var toVersion: any VersionedSchema.Type {
        switch self {
        case .lightweight(_, let to), .custom(_, let to, _, _): to
        }
    }

    var name: String {
        switch self {
        case .lightweight: "lightweight stage \(fromVersion.versionIdentifier) → \(toVersion.versionIdentifier)"
        case .custom: "custom stage \(fromVersion.versionIdentifier) → \(toVersion.versionIdentifier)"
        }
    }
}
