extension Schema {
    /// One relationship of an entity: a property whose value is another model
    /// object (to-one) or an array of them (to-many), as SwiftData's
    /// `Schema.Relationship`.
    public struct Relationship: Sendable, Codable, Hashable {
        /// The property's name.
        public var name: String
        /// The name of the entity it refers to.
        public var destination: String
        /// True for an array of objects.
        public var isToMany: Bool
        /// True when the to-one may be nil (always true for to-many: empty is allowed).
        public var isOptional: Bool
        /// What deleting an object does to the objects this relationship holds.
        public var deleteRule: DeleteRule
        /// The destination's relationship that mirrors this one, if any.
        public var inverseName: String?
        /// The fewest objects a to-many must hold at save; nil or 0 for no minimum.
        public var minimumModelCount: Int?
        /// The most objects a to-many may hold at save; nil or 0 for no maximum.
        public var maximumModelCount: Int?
        /// The name the relationship had in an earlier schema version.
        public var originalName: String?
        /// True when the holder re-emits the changes of the objects it holds.
        public var forwardsChanges: Bool
        /// Where the relationship is stored; decided when the schema is resolved.
        public var storage: Storage

        /// Creates a relationship description. `storage` is filled in when the
        /// schema is resolved (see `Schema.resolvingRelationships()`).
        public init(
            name: String, destination: String, isToMany: Bool, isOptional: Bool, deleteRule: DeleteRule = .nullify,
            inverseName: String? = nil, minimumModelCount: Int? = nil, maximumModelCount: Int? = nil,
            originalName: String? = nil, forwardsChanges: Bool = false, storage: Storage = .unresolved
        ) {
            self.name = name
            self.destination = destination
            self.isToMany = isToMany
            self.isOptional = isOptional
            self.deleteRule = deleteRule
            self.inverseName = inverseName
            self.minimumModelCount = minimumModelCount
            self.maximumModelCount = maximumModelCount
            self.originalName = originalName
            self.forwardsChanges = forwardsChanges
            self.storage = storage
        }

        /// What deleting the holder does to the related objects, with Core
        /// Data's and SwiftData's names.
        public enum DeleteRule: String, Sendable, Codable, Hashable, CaseIterable {
            /// The related objects stay; their inverse no longer refers to the
            /// deleted object. The default.
            case nullify
            /// The related objects are deleted too, through any depth.
            case cascade
            /// The delete is refused while the relationship holds any object:
            /// `save()` throws an error naming them and writes nothing.
            case deny
            /// Nothing is done to the related objects. If one still refers to
            /// the deleted object at save, the save fails: the store never
            /// holds a dangling reference.
            case noAction
        }

        /// An option of `@Relationship`, with SwiftData's names.
        public struct Option: Hashable, Codable, Sendable {
            /// The option's name as recorded in the store's schema.
            public let name: String
            /// Accepted for SwiftData compatibility; recorded, not enforced.
            public static let unique = Option(name: "unique")
        }

        /// Where a relationship's links live in the store.
        public enum Storage: Sendable, Codable, Hashable {
            /// Not decided yet: the schema has not been resolved.
            case unresolved
            /// A column of this entity's table holds the destination's key.
            /// `orderColumn`, when present, holds this object's position in the
            /// inverse to-many, so that the inverse keeps its order.
            case foreignKey(column: String, orderColumn: String?)
            /// The destination's table holds the link: this is the inverse of a
            /// `foreignKey` relationship of the destination.
            case inverseForeignKey
            /// A join table with columns `source`, `target`, `source_order` and
            /// `target_order`; this relationship is its source side or its
            /// target side.
            case joinTable(name: String, isSource: Bool)
        }
    }
}

extension Schema.Relationship {
    /// The `(min, max)` counts that are actually limits (SwiftData uses 0 for none).
    package var countLimits: (minimum: Int?, maximum: Int?) {
        (minimumModelCount.flatMap { $0 > 0 ? $0 : nil }, maximumModelCount.flatMap { $0 > 0 ? $0 : nil })
    }

    /// The column of this entity's table that holds the link, if there is one.
    package var foreignKeyColumn: String? {
        if case .foreignKey(let column, _) = storage { return column }
        return nil
    }
}

/// Names of the columns of every join table.
package enum JoinTableColumn {
    package static let source = "source"
    package static let target = "target"
    package static let sourceOrder = "source_order"
    package static let targetOrder = "target_order"
}
