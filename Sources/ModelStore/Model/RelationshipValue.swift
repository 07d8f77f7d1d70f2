/// A type a relationship property may have: a model (`Person`), an optional
/// model (`Person?`, `Person!`), an array of models (`[Stop]`), or an
/// optional array (`[Stop]?`).
///
/// The `@Model` macro sees only spellings, so it cannot tell `var owner:
/// Person?` (a relationship) from `var budget: Budget?` (a Codable attribute).
/// The generated code passes every property's type to overloaded functions,
/// and the compiler picks the relationship overload for the types that
/// conform to this protocol. The requirements are underscored: they are the
/// runtime's view of the value as a list of models.
public protocol RelationshipValue: Equatable {
    /// The model class at the other end.
    static var _destinationType: any PersistentModel.Type { get }
    /// True for arrays.
    static var _isToMany: Bool { get }
    /// True when the value may be nil.
    static var _isOptional: Bool { get }
    /// The related objects, in order.
    var _relatedModels: [any PersistentModel] { get }
    /// The related objects, in order, as class references: for comparisons
    /// by identity, without boxing each object as a model (or touching it).
    var _relatedObjects: [AnyObject] { get }
    /// The related object of a to-one (the first of a to-many), without
    /// building an array.
    var _firstRelatedModel: (any PersistentModel)? { get }
    /// The value holding exactly `models`; nil when they do not fit (a model of
    /// another class, several models for a to-one, none for a non-optional to-one).
    static func _value(holding models: [any PersistentModel]) -> Self?
    /// The value holding exactly `model`, without building an array.
    static func _value(holdingOne model: any PersistentModel) -> Self?
    /// The value holding exactly `objects`, an array of `elementType` held
    /// as `[AnyObject]` (a prefetch's objects); nil when they do not fit, as
    /// for `_value(holding:)`. An array of the element type is taken as it is.
    static func _value(holdingObjects objects: [AnyObject], of elementType: any PersistentModel.Type) -> Self?
}

// The requirements' implementations; documented on `RelationshipValue`.
extension PersistentModel {
    @inlinable public static var _destinationType: any PersistentModel.Type { Self.self }
    @inlinable public static var _isToMany: Bool { false }
    @inlinable public static var _isOptional: Bool { false }
    @inlinable public var _relatedModels: [any PersistentModel] { [self] }
    @inlinable public var _relatedObjects: [AnyObject] { [self] }
    @inlinable public var _firstRelatedModel: (any PersistentModel)? { self }

    @inlinable public static func _value(holding models: [any PersistentModel]) -> Self? {
        models.count == 1 ? models[0] as? Self : nil
    }

    @inlinable public static func _value(holdingOne model: any PersistentModel) -> Self? { model as? Self }

    @inlinable
    public static func _value(holdingObjects objects: [AnyObject], of elementType: any PersistentModel.Type) -> Self? {
        guard objects.count == 1 else { return nil }
        if ObjectIdentifier(elementType) == ObjectIdentifier(Self.self) { return unsafeDowncast(objects[0], to: Self.self) }
        return _value(holding: RelatedObjects.modelList(objects, of: elementType))
    }
}

// The requirements' implementations; documented on `RelationshipValue`.
extension Optional: RelationshipValue where Wrapped: RelationshipValue {
    @inlinable public static var _destinationType: any PersistentModel.Type { Wrapped._destinationType }
    @inlinable public static var _isToMany: Bool { Wrapped._isToMany }
    @inlinable public static var _isOptional: Bool { true }
    @inlinable public var _relatedModels: [any PersistentModel] { self?._relatedModels ?? [] }
    @inlinable public var _relatedObjects: [AnyObject] { self?._relatedObjects ?? [] }
    @inlinable public var _firstRelatedModel: (any PersistentModel)? { self?._firstRelatedModel }

    @inlinable public static func _value(holding models: [any PersistentModel]) -> Self? {
        // An optional to-one with no model is nil; an optional to-many holds
        // an empty array, which is what a store that keeps no "nil array" reads back.
        if models.isEmpty && !Wrapped._isToMany { return .some(nil) }
        return Wrapped._value(holding: models).map { .some($0) }
    }

    @inlinable public static func _value(holdingOne model: any PersistentModel) -> Self? {
        guard let wrapped = Wrapped._value(holdingOne: model) else { return nil }
        return .some(.some(wrapped))
    }

    @inlinable
    public static func _value(holdingObjects objects: [AnyObject], of elementType: any PersistentModel.Type) -> Self? {
        if objects.isEmpty && !Wrapped._isToMany { return .some(nil) }
        return Wrapped._value(holdingObjects: objects, of: elementType).map { .some($0) }
    }
}

// The requirements' implementations; documented on `RelationshipValue`.
extension Array: RelationshipValue where Element: PersistentModel {
    @inlinable public static var _destinationType: any PersistentModel.Type { Element.self }
    @inlinable public static var _isToMany: Bool { true }
    @inlinable public static var _isOptional: Bool { false }
    @inlinable public var _relatedModels: [any PersistentModel] {
        // Each element boxed where its conformance is known: the implicit
        // upcast (`self`) asked the runtime to cast every element, which
        // for a long to-many cost more than a save of it. Walked through a
        // buffer: this runs unspecialized (through the protocol), where an
        // array's iterator goes through witnesses for every element.
        // Never with capacity 0: the standard library then writes the count
        // into the empty array's shared storage, a write that two threads
        // make at once (the Thread Sanitizer reports it).
        guard !isEmpty else { return [] }
        return withUnsafeBufferPointer { elements in
            [any PersistentModel](unsafeUninitializedCapacity: elements.count) { buffer, initialized in
                for index in elements.indices { buffer.initializeElement(at: index, to: elements[index]) }
                initialized = elements.count
            }
        }
    }
    /// The same buffer: the elements are class references already.
    @inlinable public var _relatedObjects: [AnyObject] { ClassArrays.erase(self) }
    @inlinable public var _firstRelatedModel: (any PersistentModel)? { first }

    @inlinable public static func _value(holding models: [any PersistentModel]) -> Self? {
        // Written in place: appending checked the buffer's uniqueness and
        // capacity per element, more than the rest of the conversion.
        // Not with capacity 0 (see `_relatedModels`).
        guard !models.isEmpty else { return [] }
        var fits = true
        let result = Self(unsafeUninitializedCapacity: models.count) { buffer, count in
            for model in models {
                // Most related objects are of exactly the element class: then
                // a comparison of classes replaces the runtime's dynamic cast.
                if ObjectIdentifier(type(of: model)) == ObjectIdentifier(Element.self) {
                    buffer.initializeElement(at: count, to: unsafeDowncast(model, to: Element.self))
                } else if let element = model as? Element {
                    buffer.initializeElement(at: count, to: element)
                } else {
                    fits = false
                    return
                }
                count += 1
            }
        }
        return fits ? result : nil
    }

    @inlinable public static func _value(holdingOne model: any PersistentModel) -> Self? {
        (model as? Element).map { [$0] }
    }

    @inlinable
    public static func _value(holdingObjects objects: [AnyObject], of elementType: any PersistentModel.Type) -> Self? {
        // Every element is an `Element` (the array's own element type), so
        // the array is one of `Element` already.
        if ObjectIdentifier(elementType) == ObjectIdentifier(Element.self) {
            return ClassArrays.reinterpret(objects, as: Element.self)
        }
        return _value(holding: RelatedObjects.modelList(objects, of: elementType))
    }
}

/// Removes repeated objects, keeping the first of each: a to-many holds an
/// object at most once, as Core Data's and SwiftData's to-many do. A list
/// without repeats is returned as it is.
/// - Complexity: O(models).
func uniqueModels(_ models: [any PersistentModel]) -> [any PersistentModel] {
    guard models.count > 1 else { return models }
    var seen = IdentitySet(capacity: models.count)
    for index in models.indices where !seen.insert(models[index]) {
        // The first repeat: keep what came before, filter the rest.
        return Array(models[..<index]) + models[(index + 1)...].filter { seen.insert($0) }
    }
    return models
}

/// The objects a relationship gained (in `new`, not in `old`) and lost (in
/// `old`, not in `new`), by identity, in order. The start and end the two
/// lists share are passed over with a comparison of references each, so
/// that appending to a long list neither hashes nor touches its objects;
/// the rest is looked up in the other whole list (objects may repeat).
/// - Complexity: O(old + new).
/// `sharedPrefix`, when given, is the caller's `commonPrefixCount(old, new)`.
func membershipChanges(
    from old: [AnyObject], to new: [AnyObject], sharedPrefix: Int? = nil
) -> (added: [AnyObject], removed: [AnyObject]) {
    let start = sharedPrefix ?? ReferenceLists.commonPrefixCount(old, new)
    var oldEnd = old.count
    var newEnd = new.count
    while oldEnd > start && newEnd > start && old[oldEnd - 1] === new[newEnd - 1] {
        oldEnd -= 1
        newEnd -= 1
    }
    func absent(_ candidates: ArraySlice<AnyObject>, from list: [AnyObject]) -> [AnyObject] {
        guard !candidates.isEmpty else { return [] }
        // A few candidates are searched for directly; more go through a set.
        if candidates.count <= 8 {
            return candidates.filter { !ReferenceLists.contains($0, in: list) }
        }
        var others = IdentitySet(capacity: list.count)
        for object in list { others.insert(object) }
        return candidates.filter { !others.contains($0) }
    }
    return (absent(new[start..<newEnd], from: old), absent(old[start..<oldEnd], from: new))
}
