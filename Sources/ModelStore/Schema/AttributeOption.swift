extension Schema.Attribute {
    /// An option of `@Attribute`, with SwiftData's names.
    ///
    /// ```swift
    /// @Attribute(.unique) var name: String
    /// ```
    public struct Option: Hashable, Codable, Sendable, CustomStringConvertible {
        /// The option's name as recorded in the store's schema.
        public let name: String
        /// For `.transformable(by:)`, the name of the value transformer
        /// (the registered name, or the transformer class's qualified name);
        /// nil for every other option. Recorded in the schema (older records
        /// have no such key).
        public let transformerName: String?

        /// Creates an option from its recorded name.
        public init(name: String) {
            self.name = name
            self.transformerName = nil
        }

        private init(transformerName: String) {
            self.name = Self.transformableName
            self.transformerName = transformerName
        }

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

        /// The recorded name of `.transformable(by:)`.
        static let transformableName = "transformable"

        /// Store the value as the `Data` that a `transformerType` transformer
        /// makes of it, and read it back with its reverse transformation, as
        /// in SwiftData: for a property whose type is not otherwise storable.
        /// The column holds the data (a BLOB); nil is stored as NULL without
        /// calling the transformer.
        ///
        /// The transformer is the one registered under the class's qualified
        /// name (`MyApp.ColorTransformer`); when there is none, a new
        /// instance of the class is registered under it.
        public static func transformable(by transformerType: ValueTransformer.Type) -> Option {
            Option(transformerName: transformerRegistrationName(transformerType))
        }

        /// Store the value through the transformer registered under
        /// `transformerName` (`ValueTransformer.setValueTransformer(_:forName:)`);
        /// see `transformable(by:)` with a transformer class. Saving or
        /// loading such a value when no transformer is registered under the
        /// name is an error.
        public static func transformable(by transformerName: String) -> Option {
            Option(transformerName: transformerName)
        }

        public var description: String {
            transformerName.map { ".\(name)(by: \"\($0)\")" } ?? "." + name
        }
    }
}
