/// Typed access to one relationship property of a model object, seen as a
/// list of models, so that code that works on any relationship (inverse
/// maintenance, delete rules, saving links) needs no generics.
protocol RelationshipAccessor: Sendable {
    /// The related objects, read through the property's getter (which loads
    /// them if they are not loaded yet).
    func models(of holder: AnyObject) -> [any PersistentModel]
    /// Sets the property to hold exactly `models`, through its setter (so the
    /// change is tracked, observed and mirrored in the inverse). Returns false
    /// when the models do not fit the property's type.
    @discardableResult
    func setModels(_ models: [any PersistentModel], of holder: AnyObject) -> Bool
    /// The related objects if they are loaded; nil for a fault.
    func loadedModels(of holder: AnyObject) -> [any PersistentModel]?
    /// The related objects if they are loaded, as class references (see
    /// `RelationshipValue._relatedObjects`); nil for a fault.
    func loadedObjects(of holder: AnyObject) -> [AnyObject]?
    /// Objects of this relationship (from `loadedObjects(of:)`) as models.
    func models(_ objects: [AnyObject]) -> [any PersistentModel]
    /// Makes `members`' changes forward to `holder` through this relationship
    /// (`forwardsChanges: true`), and `removed`'s stop forwarding.
    func updateForwarding(of holder: AnyObject, adding members: [any PersistentModel], removing removed: [any PersistentModel])
}

extension RelationshipAccessor {
    /// Adds `model` to a to-many (if absent) or makes it a to-one's value.
    func add(_ model: any PersistentModel, to holder: AnyObject, isToMany: Bool) {
        let current = models(of: holder)
        if isToMany {
            guard !current.contains(where: { $0 === model }) else { return }
            setModels(current + [model], of: holder)
        } else if current.first !== model {
            setModels([model], of: holder)
        }
    }

    /// Removes `model` from a to-many, or clears a to-one that holds it. A
    /// non-optional to-one cannot be cleared and keeps its value.
    func remove(_ model: any PersistentModel, from holder: AnyObject) {
        let current = models(of: holder)
        guard current.contains(where: { $0 === model }) else { return }
        setModels(current.filter { $0 !== model }, of: holder)
    }
}

/// `@unchecked Sendable`: it holds only an immutable key path (see `PropertyMetadata`).
struct KeyPathRelationshipAccessor<Model: PersistentModel, Value: RelationshipValue>: RelationshipAccessor,
    @unchecked Sendable
{
    let keyPath: ReferenceWritableKeyPath<Model, Value>
    let ordinal: Int

    func models(of holder: AnyObject) -> [any PersistentModel] {
        guard let holder = holder as? Model else { return [] }
        return holder[keyPath: keyPath]._relatedModels
    }

    @discardableResult
    func setModels(_ models: [any PersistentModel], of holder: AnyObject) -> Bool {
        guard let holder = holder as? Model, let value = Value._value(holding: models) else { return false }
        holder[keyPath: keyPath] = value
        return true
    }

    func updateForwarding(
        of holder: AnyObject, adding members: [any PersistentModel], removing removed: [any PersistentModel]
    ) {
        guard let holder = holder as? Model else { return }
        for member in removed { member._$modelState.removeForwardingParent(holder, via: keyPath) }
        for member in members { member._$modelState.addForwardingParent(holder, via: keyPath) }
    }

    func loadedModels(of holder: AnyObject) -> [any PersistentModel]? {
        guard let holder = holder as? Model, !holder._$modelState.isFault(ordinal) else { return nil }
        return holder[keyPath: keyPath]._relatedModels
    }

    func loadedObjects(of holder: AnyObject) -> [AnyObject]? {
        guard let holder = holder as? Model, !holder._$modelState.isFault(ordinal) else { return nil }
        return holder[keyPath: keyPath]._relatedObjects
    }

    func models(_ objects: [AnyObject]) -> [any PersistentModel] {
        // Every object is of the destination class: boxed with its
        // conformance, not cast through the runtime one by one.
        RelatedObjects.modelList(objects, of: Value._destinationType)
    }
}
