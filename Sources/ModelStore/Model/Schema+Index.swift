extension Schema {
    /// A model's indexes as SwiftData describes them (`Schema.Index`): the
    /// type of `#Index`'s arguments. `@Model` reads `#Index` from the class
    /// body; the entity's `indexes` hold the result.
    public final class Index<T: PersistentModel> {
        /// How an index is built, as SwiftData's `Schema.Index.Types`.
        public enum Types<P: PersistentModel> {
            /// An ordinary (B-tree) index over these properties, in order.
            case binary([PartialKeyPath<P>])
            /// An R-tree index in SwiftData; an ordinary index here (see `#Index`).
            case rtree([PartialKeyPath<P>])
        }

        /// The indexes, in the order given.
        public let indices: [Types<T>]

        /// Indexes of the given kinds.
        public init(_ indices: Types<T>...) { self.indices = indices }

        /// Ordinary indexes, one per array of key paths.
        public init(_ binaryIndices: [PartialKeyPath<T>]...) { self.indices = binaryIndices.map { .binary($0) } }
    }
}
