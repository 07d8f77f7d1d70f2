extension Schema {
    /// Creates a schema from model classes, as SwiftData's `Schema(_:version:)`.
    /// The classes that relationships lead to are included too, and so are
    /// the `@Model` superclasses of those given (`Schema([Car.self])` holds
    /// `Vehicle` as well), each before its subclasses.
    ///
    /// ```swift
    /// let schema = Schema([Trip.self])   // also Stop, Tag, … reached through relationships
    /// ```
    /// Relationship errors (an inverse that does not point back, a missing
    /// destination) are reported when a container opens the schema, by
    /// `validate()`.
    public init(_ types: [any PersistentModel.Type], version: Version = Version(1, 0, 0)) {
        let key = BuiltSchemaKey(types: types.map { ObjectIdentifier($0) }, version: version)
        if let built = Self.builtFromTypes.withLock({ $0[key] }) {
            self = built
            return
        }
        self.init(building: types, version: version)
        builtFrom = key
        Self.builtFromTypes.withLock { $0[key] = self }
    }

    /// The schema as a store opens it: validated, with its relationships
    /// resolved. A schema built from model types and not changed since
    /// (`builtFrom`) is checked once per process: its check depends on the
    /// types only.
    /// - Throws: `ModelStoreError.invalidSchema`, as `validate()`.
    func checkedForStore() throws(ModelStoreError) -> Schema {
        if let key = builtFrom, let checked = Self.checkedFromTypes.withLock({ $0[key] }) { return checked }
        try validate()
        let resolved = try resolvingRelationships()
        if let key = builtFrom { Self.checkedFromTypes.withLock { $0[key] = resolved } }
        return resolved
    }

    /// `checkedForStore()`'s results for schemas built from types, by the
    /// same keys as `builtFromTypes`; only valid schemas are kept.
    private static let checkedFromTypes = Locked<[BuiltSchemaKey: Schema]>([:])

    /// The schemas built from model types in this process, by the types in
    /// the order given and the version: every container an app opens for
    /// the same models builds its schema once. Correct because a schema
    /// built from types depends on nothing else: `@Model` generates each
    /// type's property table as a constant. Bounded by the distinct lists of
    /// types the app's code names.
    private static let builtFromTypes = Locked<[BuiltSchemaKey: Schema]>([:])

    private init(building types: [any PersistentModel.Type], version: Version) {
        var ordered: [any PersistentModel.Type] = []
        var seen = Set<ObjectIdentifier>()
        var pending = types
        while !pending.isEmpty {
            let type = pending.removeFirst()
            guard !seen.contains(ObjectIdentifier(type)) else { continue }
            if let superclass = type._$superentityType, !seen.contains(ObjectIdentifier(superclass)) {
                pending.insert(contentsOf: [superclass, type], at: 0)
                continue
            }
            seen.insert(ObjectIdentifier(type))
            ordered.append(type)
            pending += type._$persistentProperties.compactMap(\.destinationType)
        }
        let schema = Schema(entities: ordered.map(Schema.Entity.init(modelType:)), version: version)
        self = (try? schema.resolvingRelationships()) ?? schema
    }

    /// Creates a schema from model classes listed one by one, as SwiftData's
    /// variadic `Schema(_:version:)`.
    public init(_ types: any PersistentModel.Type..., version: Version = Version(1, 0, 0)) {
        self.init(types, version: version)
    }

    /// The schema of one version of a versioned schema: its models, with its
    /// version identifier, as SwiftData's `Schema(versionedSchema:)`.
    ///
    /// ```swift
    /// let container = try ModelContainer(
    ///     for: Schema(versionedSchema: TripsV2.self), migrationPlan: TripsPlan.self, configurations: config)
    /// ```
    public init(versionedSchema: any VersionedSchema.Type) {
        self.init(versionedSchema.models, version: versionedSchema.versionIdentifier)
    }
}

extension Schema.Entity {
    /// Describes a model class from the property table `@Model` generated.
    public init(modelType: any PersistentModel.Type) {
        let properties = modelType._$persistentProperties
        self.init(name: modelType.entityName, modelType: modelType, properties: properties)
        originalName = modelType._$originalEntityName
        superentityName = modelType._$superentityType?.entityName
        for constraint in modelType._$constraints {
            switch constraint {
            case .unique(let names): uniqueConstraints.append(names)
            case .index(let names): indexes.append(names)
            }
        }
        // An inverse given as a key path becomes the name of the destination's property.
        for (index, relationship) in relationships.enumerated() {
            guard let property = properties.first(where: { $0.name == relationship.name }),
                let inverse = property.inverseKeyPath, let destination = property.destinationType
            else { continue }
            let inverseProperty = destination._$persistentProperties.first { $0.keyPath == inverse }
            relationships[index].inverseName = inverseProperty?.name ?? "\(inverse)"
        }
    }

    /// The model class, when the entity was built from one.
    var persistentModelType: (any PersistentModel.Type)? {
        modelType as? any PersistentModel.Type
    }
}
