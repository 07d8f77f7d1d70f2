/// Turns a class into a persistent model, as SwiftData's `@Model` does.
///
/// Every stored `var` that is not `@Transient` becomes a tracked property:
/// its getter reports the access to Observation, its setter wraps the write in
/// `withMutation(keyPath:)` and tells the owning context which property became
/// dirty. The macro also adds the per-object state (made on the object's
/// first use of it; a fetched object that is only read keeps just its row),
/// an initializer that reads a row, the table of stored properties, and the
/// `PersistentModel` conformance.
///
/// `@Model(originalName: "Journey")` renames an entity: a migration renames
/// the table "Journey" to the class's name instead of creating a new one.
///
/// A `@Model` class may inherit from another `@Model` class (`@Model class
/// Car: Vehicle`): its entity's superentity is its superclass's, and it
/// overrides the generated members instead of redeclaring them. See README,
/// "Class inheritance", for what a container supports of hierarchies today.
///
/// ```swift
/// @Model final class Trip {
///     @Attribute(.unique) var name: String
///     var startDate: Date
///     @Transient var isSelected = false
///     init(name: String, startDate: Date) { self.name = name; self.startDate = startDate }
/// }
/// ```
@attached(
    member,
    names: named(_$modelState), named(_$modelStateIfMade), named(_$fetchedRow), named(_$makeModelState),
    named(init(_$row:)), named(_$bindValue), named(_$persistentProperties), named(access),
    named(withMutation), named(_$constraints), named(_$originalEntityName), named(_$Ordinals), named(_$keyPaths))
@attached(memberAttribute)
@attached(extension, conformances: PersistentModel)
public macro Model(originalName: String? = nil) = #externalMacro(module: "ModelStoreMacros", type: "ModelMacro")

/// Declares that the values of the given properties, taken together, are
/// unique across all objects of the model, as SwiftData's `#Unique`. Write it
/// inside the `@Model` class body; each array is one constraint. Inserting an
/// object whose values match an existing row updates that row (an upsert),
/// as `@Attribute(.unique)` does; an update that collides fails the save.
///
/// ```swift
/// @Model final class Visit {
///     #Unique<Visit>([\.place, \.date])
///     var place: String
///     var date: Date
/// }
/// ```
@freestanding(declaration)
public macro Unique<T>(_ constraints: [PartialKeyPath<T>]...) =
    #externalMacro(module: "ModelStoreMacros", type: "UniqueMacro")

/// Declares indexes over the given properties, as SwiftData's `#Index`:
/// each array is one index, its columns in order. Write it inside the
/// `@Model` class body.
///
/// ```swift
/// #Index<Trip>([\.destination], [\.startDate, \.destination])
/// ```
@freestanding(declaration)
public macro Index<T>(_ indices: [PartialKeyPath<T>]...) =
    #externalMacro(module: "ModelStoreMacros", type: "IndexMacro")

/// Declares indexes of a kind, as SwiftData's `#Index(.binary([…]), .rtree([…]))`.
/// SQLite has no R-tree index over a table's columns (its R-trees are
/// virtual tables of their own), so `.rtree` makes an ordinary index over
/// the same columns, as `.binary` does.
///
/// ```swift
/// #Index<Place>(.binary([\.name]), .rtree([\.latitude, \.longitude]))
/// ```
@freestanding(declaration)
public macro Index<T: PersistentModel>(_ indices: Schema.Index<T>.Types<T>...) =
    #externalMacro(module: "ModelStoreMacros", type: "IndexMacro")

/// Makes one stored property tracked; added by `@Model`, not written by hand.
/// `afterSuperclass: true` (a `@Model` subclass's property) counts the
/// ordinal from the end of the superclass's properties.
@attached(accessor, names: named(init), named(get), named(set), named(_modify))
@attached(peer, names: prefixed(_))
public macro _PersistedProperty(_ ordinal: Int, afterSuperclass: Bool = false) =
    #externalMacro(module: "ModelStoreMacros", type: "PersistedPropertyMacro")

/// Options for a stored property of a `@Model` class, as in SwiftData.
///
/// ```swift
/// @Attribute(.unique) var name: String
/// @Attribute(originalName: "notes_text") var notes: String?
/// ```
/// - Parameters:
///   - options: `.unique`, `.externalStorage`, and the other `Schema.Attribute.Option`s.
///   - originalName: the name the property had in an earlier schema version,
///     so that a migration renames the column instead of dropping it.
///   - hashModifier: accepted for SwiftData compatibility; unused.
@attached(peer)
public macro Attribute(
    _ options: Schema.Attribute.Option..., originalName: String? = nil, hashModifier: String? = nil
) = #externalMacro(module: "ModelStoreMacros", type: "AttributeMacro")

/// Declares a relationship's delete rule, inverse and limits, as SwiftData's
/// `@Relationship`. A property whose type is a model, an optional model, or
/// an array of models is a relationship even without it (nullify, inverse
/// inferred).
///
/// ```swift
/// @Relationship(deleteRule: .cascade, inverse: \Stop.trip) var stops: [Stop] = []
/// @Relationship(deleteRule: .cascade, forwardsChanges: true) var expenses: [Expense] = []
/// ```
/// - Parameters:
///   - options: `.unique` is accepted for SwiftData compatibility.
///   - deleteRule: what deleting the holder does to the related objects.
///   - minimumModelCount: the fewest objects a to-many must hold at save (0: no minimum).
///   - maximumModelCount: the most objects a to-many may hold at save (0: no maximum).
///   - originalName: the relationship's name in an earlier schema version.
///   - inverse: the destination's property that mirrors this one; may be given
///     on either side. Without it the inverse is inferred when the destination
///     has exactly one relationship back.
///   - hashModifier: accepted for SwiftData compatibility; unused.
///   - forwardsChanges: when true, every change of a related object is also
///     emitted by the holder's `objectWillChange` (ModelStore's addition).
@attached(peer)
public macro Relationship(
    _ options: Schema.Relationship.Option..., deleteRule: Schema.Relationship.DeleteRule = .nullify,
    minimumModelCount: Int? = 0, maximumModelCount: Int? = 0, originalName: String? = nil,
    inverse: AnyKeyPath? = nil, hashModifier: String? = nil, forwardsChanges: Bool = false
) = #externalMacro(module: "ModelStoreMacros", type: "RelationshipMacro")

/// Excludes a property of a `@Model` class from storage and change tracking.
/// It must have a default value, which an object fetched from the store gets.
@attached(peer)
public macro Transient() = #externalMacro(module: "ModelStoreMacros", type: "TransientMacro")

/// The type of the value the key path that `keyPath` forms leads to.
/// `@Model` names a persisted property's type through it when the
/// declaration leaves the type to inference (`var created = Date()`): the
/// key path carries the type the compiler inferred, which the macro cannot
/// see. The closure is never called; it is `@MainActor` so that the generated
/// nonisolated members may name a property of a main-actor-isolated model
/// (see `_$formingKeyPaths`). Not for use in app code.
@inlinable @inline(__always)
@_documentation(visibility: internal)
public func _$valueType<Root, Value>(of keyPath: @MainActor () -> KeyPath<Root, Value>) -> Value.Type { Value.self }

/// Runs `body`, which forms key paths to a model's properties (and evaluates
/// the initial values written in their declarations), from the nonisolated
/// members `@Model` generates: the property table and the constraints.
///
/// A model may be isolated to the main actor (explicitly `@MainActor`, or by
/// a module's default isolation), and Swift forms a key path to a
/// main-actor-isolated property only on the main actor. The `PersistentModel`
/// requirements are nonisolated, as a schema is built wherever a container is
/// made. Forming a key path runs none of the property's code, so it is safe
/// anywhere; applying it is not, and ModelStore applies a model's key paths
/// only where the model's context is used, which for such a model is the main
/// actor. The initial values are evaluated only by migrations and by the
/// schema (for literals). So `body` is called here, on whatever thread asks,
/// as a plain function: the same representation as a synchronous `@MainActor`
/// closure, without the isolation that it does not need. Not for use in app
/// code.
@inlinable
@_documentation(visibility: internal)
public func _$formingKeyPaths<Result>(_ body: @MainActor () -> Result) -> Result {
    withoutActuallyEscaping(body) { body in
        unsafeBitCast(body, to: (() -> Result).self)()
    }
}
