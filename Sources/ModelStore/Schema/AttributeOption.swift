extension Schema.Attribute {
    /// An option of `@Attribute`, with SwiftData's names.
    ///
    /// ```swift
    /// @Attribute(.unique) var name: String
    /// ```
    public struct Option: Hashable, Codable, Sendable, CustomStringConvertible {
        /// The option's name as recorded in the store's schema.
        public let name: String

        /// Creates an option from its recorded name.
        public init(name: String) { self.name = name }

        /// Values are unique across all objects of the entity. Inserting an
        /// object whose unique value already exists updates the existing row
        /// (an upsert), as in SwiftData.
        public static let unique = Option(name: "unique")
        /// Store large data outside the row. Accepted for SwiftData
        /// compatibility; ModelStore currently stores the value inline.
        public static let externalStorage = Option(name: "externalStorage")
        /// Keep the value in history after deletion. Accepted and recorded;
        /// ModelStore keeps no deletion history yet.
        public static let preserveValueOnDeletion = Option(name: "preserveValueOnDeletion")
        /// Track changes without storing the value. Accepted and recorded.
        public static let ephemeral = Option(name: "ephemeral")
        /// Index the value for Spotlight. Accepted and recorded; there is no
        /// Spotlight on Linux.
        public static let spotlight = Option(name: "spotlight")
        /// Encrypt the value in CloudKit. Accepted and recorded; there is no
        /// CloudKit on Linux.
        public static let allowsCloudEncryption = Option(name: "allowsCloudEncryption")

        public var description: String { "." + name }
    }
}
