/// SwiftData's key-path access to a model's values: a read through the
/// property's getter (observed, loading a relationship on first use), a
/// write through its setter (tracked, dirtying only that property, with the
/// inverse maintained).
extension PersistentModel {
    /// The value of an attribute, as SwiftData's `getValue(forKey:)`.
    public func getValue<Value: Decodable>(forKey key: KeyPath<Self, Value>) -> Value {
        self[keyPath: key]
    }

    /// The object a to-one relationship holds.
    public func getValue<Value: PersistentModel>(forKey key: KeyPath<Self, Value>) -> Value {
        self[keyPath: key]
    }

    /// The object an optional to-one relationship holds, if any.
    public func getValue<Value: PersistentModel>(forKey key: KeyPath<Self, Value?>) -> Value? {
        self[keyPath: key]
    }

    /// The objects a to-many relationship holds, in order.
    public func getValue<Value: RangeReplaceableCollection>(forKey key: KeyPath<Self, Value>) -> Value
    where Value.Element: PersistentModel {
        self[keyPath: key]
    }

    /// Sets an attribute through its setter, as SwiftData's `setValue(forKey:to:)`.
    ///
    /// A persisted `let` cannot be set: calling this with the key path of
    /// one is a programming error and stops the program.
    public func setValue<Value: Encodable>(forKey key: KeyPath<Self, Value>, to newValue: Value) {
        self[keyPath: writable(key)] = newValue
    }

    /// Sets a to-one relationship; its inverse follows.
    public func setValue<Value: PersistentModel>(forKey key: KeyPath<Self, Value>, to newValue: Value) {
        self[keyPath: writable(key)] = newValue
    }

    /// Sets or clears an optional to-one relationship; its inverse follows.
    public func setValue<Value: PersistentModel>(forKey key: KeyPath<Self, Value?>, to newValue: Value?) {
        self[keyPath: writable(key)] = newValue
    }

    /// Replaces the objects of a to-many relationship; inverses follow.
    public func setValue<Value: RangeReplaceableCollection>(forKey key: KeyPath<Self, Value>, to newValue: Value)
    where Value.Element: PersistentModel {
        self[keyPath: writable(key)] = newValue
    }

    private func writable<Value>(_ key: KeyPath<Self, Value>) -> ReferenceWritableKeyPath<Self, Value> {
        guard let writable = key as? ReferenceWritableKeyPath<Self, Value> else {
            preconditionFailure("setValue(forKey:to:): \(key) is not settable (a let, or a computed property without a setter)")
        }
        return writable
    }
}
