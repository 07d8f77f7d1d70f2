/// The objects a relationship fault resolves to: loaded ones, as a list of
/// models, or prefetched ones, as an array of their class.
///
/// A prefetch reads the objects of one class and keeps each holder's run as
/// that class's array (`[Child]`), type-erased to `[AnyObject]` (the same
/// layout: one reference per element). A getter of `[Child]` then takes the
/// array as it is. Handed over as a list of models instead, every object was
/// copied into a new `[Child]`, with a retain each, and released again with
/// the list: about 130 instructions and two atomic operations per object.
@usableFromInline
enum RelatedObjects {
    /// Objects of any classes, as loaded from the store.
    case models([any PersistentModel])
    /// Objects that are all of `elementType` (that class or a subclass), in
    /// an array used as one of `elementType`.
    case objects([AnyObject], of: any PersistentModel.Type)

    /// The objects of `array`, kept as their class's array.
    init<Element: PersistentModel>(_ array: [Element]) {
        self = .objects(ClassArrays.erase(array), of: Element.self)
    }

    /// No objects.
    static var empty: RelatedObjects { .models([]) }

    /// The objects as a list of models.
    @usableFromInline
    var models: [any PersistentModel] {
        switch self {
        case .models(let models): return models
        case .objects(let objects, let elementType): return Self.modelList(objects, of: elementType)
        }
    }

    var count: Int {
        switch self {
        case .models(let models): return models.count
        case .objects(let objects, _): return objects.count
        }
    }

    var isEmpty: Bool {
        switch self {
        case .models(let models): return models.isEmpty
        case .objects(let objects, _): return objects.isEmpty
        }
    }

    /// The value of relationship type `Value` holding the objects; nil when
    /// they do not fit it (see `RelationshipValue._value(holding:)`).
    @inlinable
    func value<Value: RelationshipValue>(as type: Value.Type) -> Value? {
        switch self {
        case .models(let models): return Value._value(holding: models)
        case .objects(let objects, let elementType): return Value._value(holdingObjects: objects, of: elementType)
        }
    }

    /// These objects followed by `other`'s (a holder's second run of rows).
    func appending(_ other: RelatedObjects) -> RelatedObjects {
        if case .objects(let objects, let elementType) = self, case .objects(let more, let moreType) = other,
            ObjectIdentifier(elementType) == ObjectIdentifier(moreType)
        {
            return .objects(objects + more, of: elementType)
        }
        return .models(models + other.models)
    }

    /// `objects`, an array of `elementType` held as `[AnyObject]`, as a list of models.
    @usableFromInline
    static func modelList(_ objects: [AnyObject], of elementType: any PersistentModel.Type) -> [any PersistentModel] {
        func list<Element: PersistentModel>(_ type: Element.Type) -> [any PersistentModel] {
            ClassArrays.reinterpret(objects, as: Element.self).map { $0 }
        }
        return list(elementType)
    }
}
