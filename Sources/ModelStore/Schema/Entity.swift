/// Name of the integer primary key column of every entity table. The
/// underscore keeps it apart from property names, which may not start with
/// `_pk` (checked when a schema is validated).
public let primaryKeyColumn = "_pk"

/// Name of the row version column of every entity table (store format 3):
/// `initialRowVersion` when the row is inserted, one more on every write of
/// the row by any writer (a context's save, store-tool). A save's UPDATE and DELETE name
/// the version the context loaded, so that a row changed by someone else
/// since is a conflict instead of a lost update (see
/// ModelContext+Conflicts.swift). Not a property: schemas may not use the
/// name, and tools do not show it.
package let rowVersionColumn = "_version"

/// The version every insert gives a new row: 2, not 1, because SQLite
/// stores the integers 0 and 1 in no bytes and 2…127 in one. A row that
/// started at 1 would grow by a byte at its first update, and a record that
/// changes size cannot be overwritten in place: SQLite removes the cell and
/// inserts it again, rebalancing the page. From 2, a row keeps its size for
/// 125 updates. Rows inserted at 1 (by earlier versions, or by SQL that
/// leaves the column to its `DEFAULT 1`) are as valid: a version is only
/// compared for equality with the one a context read.
let initialRowVersion: Int64 = 2

extension Schema {
    /// One entity: a model class, stored in a table named after it.
    public struct Entity: Sendable, Codable, Equatable {
        /// The entity's name: the model class's name, and its table's name.
        public var name: String
        /// The stored attributes, in ordinal order.
        public var attributes: [Attribute]
        /// The relationships, in ordinal order.
        public var relationships: [Relationship]
        /// Compound unique constraints declared with `#Unique`: each is a list
        /// of attribute names whose values together are unique.
        public var uniqueConstraints: [[String]] = []
        /// Indexes declared with `#Index`: each is a list of attribute names.
        public var indexes: [[String]] = []
        /// The name the entity had in an earlier schema version
        /// (`@Model(originalName:)`), so that a migration renames its table.
        public var originalName: String?
        /// The name of the entity this one inherits from (its model class's
        /// `@Model` superclass), as SwiftData's `Schema.Entity.superentityName`;
        /// nil for a root entity. A subentity's `attributes` and
        /// `relationships` include the inherited ones, first, as Core Data's do.
        public var superentityName: String?
        /// The properties with their accessors, when the entity was built from
        /// a model class; empty when it was read from a store's record.
        public var properties: [PropertyMetadata] { runtime?.properties ?? [] }
        /// The model class, when the entity was built from one.
        var modelType: Any.Type? { runtime?.modelType }
        private var runtime: Runtime?

        private struct Runtime: Sendable {
            let modelType: Any.Type
            let properties: [PropertyMetadata]
        }

        private enum CodingKeys: String, CodingKey {
            case name, attributes, relationships, uniqueConstraints, indexes, originalName, superentityName
        }

        /// Creates an entity from descriptions alone, as read from a store's
        /// record or built by a migration.
        public init(
            name: String, attributes: [Attribute], relationships: [Relationship] = [], uniqueConstraints: [[String]] = [],
            indexes: [[String]] = [], originalName: String? = nil, superentityName: String? = nil
        ) {
            self.superentityName = superentityName
            self.name = name
            self.attributes = attributes
            self.relationships = relationships
            self.uniqueConstraints = uniqueConstraints
            self.indexes = indexes
            self.originalName = originalName
        }

        /// Creates an entity for a model class from its generated property table.
        init(name: String, modelType: Any.Type, properties: [PropertyMetadata]) {
            self.name = name
            self.attributes = properties.compactMap(\.attribute)
            self.relationships = properties.compactMap(\.relationship)
            self.runtime = Runtime(modelType: modelType, properties: properties)
        }

        /// Reads an entity from a schema record; a record written before
        /// relationships (or compound constraints and indexes) existed has none.
        /// - Throws: `DecodingError` when the record is not an entity.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            name = try container.decode(String.self, forKey: .name)
            attributes = try container.decode([Attribute].self, forKey: .attributes)
            relationships = try container.decodeIfPresent([Relationship].self, forKey: .relationships) ?? []
            uniqueConstraints = try container.decodeIfPresent([[String]].self, forKey: .uniqueConstraints) ?? []
            indexes = try container.decodeIfPresent([[String]].self, forKey: .indexes) ?? []
            originalName = try container.decodeIfPresent(String.self, forKey: .originalName)
            superentityName = try container.decodeIfPresent(String.self, forKey: .superentityName)
        }

        /// Writes the entity into a schema record.
        /// - Throws: `EncodingError`, which plain schema values do not cause.
        // Relationships, constraints, indexes, the original name and the superentity are written
        // only when there are some, so that the record (and fingerprint) of an
        // entity without any is unchanged.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(name, forKey: .name)
            try container.encode(attributes, forKey: .attributes)
            if !relationships.isEmpty { try container.encode(relationships, forKey: .relationships) }
            if !uniqueConstraints.isEmpty { try container.encode(uniqueConstraints, forKey: .uniqueConstraints) }
            if !indexes.isEmpty { try container.encode(indexes, forKey: .indexes) }
            try container.encodeIfPresent(originalName, forKey: .originalName)
            try container.encodeIfPresent(superentityName, forKey: .superentityName)
        }

        /// The relationship with this name, if any.
        public func relationship(named name: String) -> Relationship? {
            relationships.first { $0.name == name }
        }

        /// The properties in ordinal order: for an entity built from a model
        /// class, the order the class declares them; otherwise its attributes,
        /// then its relationships. Ordinal N is column N + 1 of `SELECT`s.
        package var slots: [PropertySlot] {
            if let runtime {
                var attributeIndex = 0
                var relationshipIndex = 0
                var slots: [PropertySlot] = []
                slots.reserveCapacity(runtime.properties.count)
                // By index, so that only each property's relationship is
                // read, not its whole description copied.
                for index in runtime.properties.indices {
                    if runtime.properties[index].relationship != nil {
                        slots.append(.relationship(relationships[relationshipIndex]))
                        relationshipIndex += 1
                    } else {
                        slots.append(.attribute(attributes[attributeIndex]))
                        attributeIndex += 1
                    }
                }
                return slots
            }
            return attributes.map(PropertySlot.attribute) + relationships.map(PropertySlot.relationship)
        }

        /// The attribute with this name, if any.
        public func attribute(named name: String) -> Attribute? {
            attributes.first { $0.name == name }
        }

        public static func == (lhs: Entity, rhs: Entity) -> Bool {
            lhs.name == rhs.name && lhs.attributes == rhs.attributes && lhs.relationships == rhs.relationships
                && lhs.uniqueConstraints == rhs.uniqueConstraints && lhs.indexes == rhs.indexes
                && lhs.originalName == rhs.originalName && lhs.superentityName == rhs.superentityName
        }
    }

    /// One property of an entity, by ordinal.
    package enum PropertySlot {
        case attribute(Attribute)
        case relationship(Relationship)

        package var name: String {
            switch self {
            case .attribute(let attribute): attribute.name
            case .relationship(let relationship): relationship.name
            }
        }

        /// The column of the entity's table that holds the property, if any.
        package var column: String? {
            switch self {
            case .attribute(let attribute): attribute.name
            case .relationship(let relationship): relationship.foreignKeyColumn
            }
        }
    }

    /// One stored attribute of an entity: a column of its table.
    public struct Attribute: Sendable, Codable, Hashable {
        /// The property's name, and its column's name.
        public var name: String
        /// The logical type, which decides the column type.
        public var kind: ValueKind
        /// How the Swift value maps to the column (itself, raw value, JSON).
        public var representation: ValueRepresentation
        /// The Swift type's name as the app declared it, for people to read.
        public var swiftType: String
        /// True when nil is allowed (the column accepts NULL).
        public var isOptional: Bool
        /// The `@Attribute` options.
        public var options: [Option]
        /// The name the property had in an earlier schema version, for migrations.
        public var originalName: String?
        /// The raw values of the type's cases, in declaration order and in
        /// store-tool's text form (`planned`, `2`), when the type is a
        /// `CaseIterable` enum stored as its raw value; nil otherwise (and in
        /// records written before ModelStore recorded them).
        ///
        /// It describes values, not the table: it is not part of the
        /// fingerprint, and a change of cases is not a schema difference.
        public var enumCases: [String]?
        /// The property's declared initial value (`var nights = 3`) in
        /// store-tool's text form (what `key=value` takes: `3`, `planned`,
        /// `true`, `[]`), when the declaration has one that is a constant: a
        /// literal, a collection of literals, or an enum case. Nil when there
        /// is none, when it is computed (`Date()`), and in older records.
        ///
        /// Like `enumCases`, not part of the fingerprint or the differences.
        public var defaultValue: String?
        /// The JSON structure a Codable attribute's type decodes from, as
        /// compact JSON with sorted keys (`{"object":{"amount":"number"}}`),
        /// derived from the type when the app builds its schema, so that
        /// store-tool can refuse a value the app could not decode. Parts
        /// whose structure could not be derived are `"any"`. Nil for other
        /// attributes, when nothing could be derived, and in records written
        /// before ModelStore recorded it: then the value's structure is
        /// unknown and only its being JSON is checked.
        ///
        /// Like `enumCases`, not part of the fingerprint or the differences.
        public var codableShape: String?

        /// Creates an attribute description.
        public init(
            name: String, kind: ValueKind, representation: ValueRepresentation = .primitive,
            swiftType: String, isOptional: Bool, options: [Option] = [], originalName: String? = nil,
            enumCases: [String]? = nil, defaultValue: String? = nil, codableShape: String? = nil
        ) {
            self.name = name
            self.kind = kind
            self.representation = representation
            self.swiftType = swiftType
            self.isOptional = isOptional
            self.options = options
            self.originalName = originalName
            self.enumCases = enumCases
            self.defaultValue = defaultValue
            self.codableShape = codableShape
        }

        /// The attribute without what describes its values rather than its
        /// column (`enumCases`, `defaultValue`, `codableShape`): what the
        /// fingerprint covers.
        var layout: Attribute {
            var copy = self
            copy.enumCases = nil
            copy.defaultValue = nil
            copy.codableShape = nil
            return copy
        }

        /// True when the attribute has the `.unique` option.
        public var isUnique: Bool { options.contains(.unique) }

        /// True when the attribute has the `.transformable(by:)` option: its
        /// column holds the data a value transformer made of the value, which
        /// only the app (which has the transformer) can read as its type.
        public var isTransformable: Bool { options.contains { $0.name == Option.transformableName } }
    }
}
