extension PropertyMetadata {
    /// Describes a property with `@Attribute(.transformable(by:))`: stored as
    /// the `Data` its value transformer makes of it, whatever its type.
    /// `@Model` calls it with the option as written, also listed in `options`.
    public static func attribute<Model: AnyObject, Value>(
        name: String, keyPath: KeyPath<Model, Value>, type: Value.Type, ordinal: Int,
        options: [Schema.Attribute.Option], originalName: String?, defaultValue: (() -> Value)? = nil,
        defaultKind: DefaultKind? = nil, transformedBy option: Schema.Attribute.Option
    ) -> PropertyMetadata {
        PropertyMetadata(
            name: name, keyPath: keyPath, ordinal: ordinal, isOptional: false, options: options, originalName: originalName,
            defaultValue: defaultValue, option: option,
            read: { statement, column throws(ValueCodingFailure) in
                try decodeTransformed(Value.self, by: option, from: statement, column: column)
            },
            bind: { value, statement, index in
                try statement.bindValue(value, as: Value.self, at: index, transformedBy: option)
            })
    }

    /// Describes an optional property with `@Attribute(.transformable(by:))`;
    /// nil is stored as NULL.
    public static func attribute<Model: AnyObject, Value>(
        name: String, keyPath: KeyPath<Model, Value?>, type: Value?.Type, ordinal: Int,
        options: [Schema.Attribute.Option], originalName: String?, defaultValue: (() -> Value?)? = nil,
        defaultKind: DefaultKind? = nil, transformedBy option: Schema.Attribute.Option
    ) -> PropertyMetadata {
        PropertyMetadata(
            name: name, keyPath: keyPath, ordinal: ordinal, isOptional: true, options: options, originalName: originalName,
            defaultValue: defaultValue, option: option,
            read: { statement, column throws(ValueCodingFailure) in
                try decodeOptionalTransformed(Value.self, by: option, from: statement, column: column)
            },
            bind: { value, statement, index in
                try statement.bindValue(value, as: Value?.self, at: index, transformedBy: option)
            })
    }

    /// A transformable attribute: kind `.data` (a BLOB column, which
    /// store-tool and migrations treat as opaque data), no recorded default
    /// (the data is the transformer's business), no placeholder (a partial
    /// fetch always reads the column).
    private init<Model: AnyObject, Value>(
        name: String, keyPath: KeyPath<Model, Value>, ordinal: Int, isOptional: Bool, options: [Schema.Attribute.Option],
        originalName: String?, defaultValue: (() -> Value)?, option: Schema.Attribute.Option,
        read: @escaping @Sendable (Statement, Int32) throws(ValueCodingFailure) -> Value,
        bind: @escaping @Sendable (Value, Statement, Int32) throws -> Void
    ) {
        self.name = name
        self.ordinal = ordinal
        self.keyPath = keyPath
        self.attribute = Schema.Attribute(
            name: name, kind: .data, representation: .primitive, swiftType: String(describing: Value.self),
            isOptional: isOptional, options: options.contains(option) ? options : options + [option],
            originalName: originalName)
        self.relationship = nil
        self.inverseKeyPath = nil
        self.accessor = KeyPathAccessor<Model, Value>(keyPath: keyPath)
        self.typedRelationship = nil
        self.readUnfetched = nil
        self.defaultBinder = defaultValue.map { value in { statement, index in try bind(value(), statement, index) } }
        self.storedValueCoding = StoredValueCoding(
            read: { statement, column in try read(statement, column) as Any },
            bind: { value, statement, index in
                guard let value = value as? Value else {
                    throw ValueCodingFailure("not a \(String(describing: Value.self))")
                }
                try bind(value, statement, index)
            })
    }
}
