extension Schema {
    /// Creates a schema from model classes, as SwiftData's `Schema(_:version:)`.
    ///
    /// ```swift
    /// let schema = Schema([Trip.self, Stop.self])
    /// ```
    public init(_ types: [any PersistentModel.Type], version: Version = Version(1, 0, 0)) {
        self.init(entities: types.map(Schema.Entity.init(modelType:)), version: version)
    }
}

extension Schema.Entity {
    /// Describes a model class from the property table `@Model` generated.
    public init(modelType: any PersistentModel.Type) {
        self.init(name: modelType.entityName, modelType: modelType, properties: modelType._$persistentProperties)
    }

    /// The model class, when the entity was built from one.
    var persistentModelType: (any PersistentModel.Type)? {
        modelType as? any PersistentModel.Type
    }
}
