extension Schema {
    /// A compound constraint or index of an entity, as `#Unique` and `#Index`
    /// declare them inside a `@Model` class. `@Model` lists them in the
    /// generated `_$constraints`.
    public enum Constraint: Sendable, Hashable {
        /// The values of these attributes, taken together, are unique.
        case unique([String])
        /// An index over these attributes, in this order.
        case index([String])
    }
}

extension Schema.Entity {
    /// The name of the index that enforces a compound unique constraint:
    /// `Trip.unique(name,startDate)`.
    package static func uniqueIndexName(_ entity: String, _ attributes: [String]) -> String {
        "\(entity).unique(\(attributes.joined(separator: ",")))"
    }

    /// The name of an `#Index` index: `Trip.index(name,startDate)`.
    package static func indexName(_ entity: String, _ attributes: [String]) -> String {
        "\(entity).index(\(attributes.joined(separator: ",")))"
    }

    /// True when the entity has any uniqueness constraint (an attribute with
    /// `.unique`, or a `#Unique`): inserts are then upserts.
    var hasUniqueness: Bool {
        attributes.contains(where: \.isUnique) || !uniqueConstraints.isEmpty
    }
}
