import Foundation

/// The set of entities a store holds, with a version, as SwiftData's `Schema`.
///
/// A schema is built from model types (`Schema([Trip.self, Stop.self])`) or
/// read back from a store's own schema record, which is what lets
/// `store-tool` work on a store without the app's code.
///
/// ```swift
/// let schema = Schema([Trip.self], version: Schema.Version(1, 0, 0))
/// let container = try ModelContainer(for: schema, configurations: ModelConfiguration(url: url))
/// ```
public struct Schema: Sendable, Codable, Equatable, CustomStringConvertible {
    /// The entities, in the order the model types were given.
    public var entities: [Entity] {
        didSet { builtFrom = nil }
    }
    /// The version the app gives its schema; recorded in the store.
    public var version: Version {
        didSet { builtFrom = nil }
    }
    /// The model types the schema was built from (`init(_:version:)`) while
    /// it is as built: any change of `entities` or `version` forgets them.
    /// Lets a store check such a schema once per process
    /// (`checkedForStore()`). Not part of the schema's value: neither
    /// compared nor encoded.
    var builtFrom: BuiltSchemaKey?

    /// What a schema built from model types was built from: the types, in
    /// the order given, and the version.
    struct BuiltSchemaKey: Hashable, Sendable {
        let types: [ObjectIdentifier]
        let version: Version
    }

    private enum CodingKeys: String, CodingKey {
        case entities, version
    }

    /// Two schemas are equal when their entities and versions are.
    public static func == (lhs: Schema, rhs: Schema) -> Bool {
        lhs.entities == rhs.entities && lhs.version == rhs.version
    }

    /// Creates a schema from entity descriptions.
    public init(entities: [Entity], version: Version = Version(1, 0, 0)) {
        self.entities = entities
        self.version = version
    }

    /// The entity with this name, if the schema has one.
    public func entity(named name: String) -> Entity? {
        entities.first { $0.name == name }
    }

    public var description: String {
        "Schema \(version): " + entities.map(\.name).joined(separator: ", ")
    }

    /// A short, stable hash of the entities and attributes (not the version):
    /// two stores with the same fingerprint have the same tables.
    ///
    /// FNV-1a over the canonical JSON of the entities; it detects accidental
    /// differences, it is not a cryptographic digest. What describes values
    /// but not tables (an attribute's enum cases and default value) is left
    /// out, so that recording them did not change any store's fingerprint.
    public var fingerprint: String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in canonicalEntitiesJSON() {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    private func canonicalEntitiesJSON() -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        // Encoding plain structs of strings and booleans cannot fail.
        let layout = entities.map { entity in
            var entity = entity
            entity.attributes = entity.attributes.map(\.layout)
            return entity
        }
        return (try? encoder.encode(layout)) ?? Data()
    }

    /// The schema record written into a store: JSON with sorted keys.
    /// - Throws: `EncodingError`, which plain schema values do not cause.
    public func recordData() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return try encoder.encode(self)
    }

    /// Reads a schema record written by `recordData()`.
    /// - Throws: `DecodingError` when the record is not a schema.
    public init(recordData: Data) throws {
        self = try JSONDecoder().decode(Schema.self, from: recordData)
    }
}

extension Schema {
    /// A schema version, `major.minor.patch`, as SwiftData's `Schema.Version`.
    public struct Version: Codable, Hashable, Comparable, Sendable, CustomStringConvertible {
        public var major: Int
        public var minor: Int
        public var patch: Int

        /// Creates a version such as `Schema.Version(1, 2, 0)`.
        public init(_ major: Int, _ minor: Int, _ patch: Int) {
            self.major = major
            self.minor = minor
            self.patch = patch
        }

        public static func < (lhs: Version, rhs: Version) -> Bool {
            (lhs.major, lhs.minor, lhs.patch) < (rhs.major, rhs.minor, rhs.patch)
        }

        public var description: String { "\(major).\(minor).\(patch)" }
    }
}
