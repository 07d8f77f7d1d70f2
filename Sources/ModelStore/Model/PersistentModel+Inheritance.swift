/// Class inheritance between models, as SwiftData has it since iOS 26:
/// `@Model class Car: Vehicle`, where `Vehicle` is itself a `@Model` class.
///
/// A subclass's entity has its superclass's entity as its superentity, and
/// its properties are its superclass's followed by its own: one ordinal space
/// per object, which `@Model` numbers with the helpers below.

/// The number of persisted properties of a `@Model` superclass, where the
/// ordinals of its subclass's own properties start; called once per subclass
/// by the code `@Model` generates.
@_documentation(visibility: internal)
public func _$superclassPropertyCount<T: PersistentModel>(of superclass: T.Type) -> Int {
    superclass._$persistentProperties.count
}

/// Chosen by the compiler when a `@Model` class names a superclass that is
/// not a `@Model` class (or a protocol first in its inheritance clause, which
/// `@Model` takes for a superclass): the message is the diagnostic.
@available(
    *, unavailable,
    message: "a '@Model' class can only inherit from another '@Model' class; list a protocol after the superclass, or conform in an extension"
)
@_documentation(visibility: internal)
public func _$superclassPropertyCount<T>(of superclass: T.Type) -> Int { 0 }

extension PersistentModel {
    /// The `@Model` class this model class inherits from, if any.
    static var _$superentityType: (any PersistentModel.Type)? {
        _getSuperclass(self).flatMap { $0 as? any PersistentModel.Type }
    }
}

/// A superclass's property table with each entry's key path replaced by the
/// same property's key path rooted at the subclass (from the superclass's
/// generated `_$keyPaths(rootedAt:)`, in the same order), so that a
/// subclass's key path to an inherited property (`\Car.name`, which does not
/// compare equal to `\Vehicle.name`) finds its entry; called by the code
/// `@Model` generates for a subclass.
@_documentation(visibility: internal)
public func _$rerooting(_ properties: [PropertyMetadata], at keyPaths: [AnyKeyPath]) -> [PropertyMetadata] {
    precondition(properties.count == keyPaths.count, "a superclass's key paths do not match its property table")
    return zip(properties, keyPaths).map { property, keyPath in
        var property = property
        property.keyPath = keyPath
        return property
    }
}
