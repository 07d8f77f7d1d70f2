import Foundation

/// The schema record's canonical text, remembered per schema for the process.
///
/// Opening a store compares the text its metadata holds with the app's
/// schema's text before decoding anything: equal texts mean equal schemas
/// (the text is `recordData()`, a pure function of what `==` compares), so
/// the record need not be decoded. Encoding the app's schema at every open
/// would cost about as much as decoding the record, so the text is kept
/// here; an app opens containers for a handful of schemas.
extension Schema {
    /// The schema record as text (`recordData()` as UTF-8: the one definition
    /// of the canonical text a store's record is compared with), and the
    /// schema as decoding that text gives it: without model classes, whose
    /// property tables the record does not hold.
    /// - Throws: `EncodingError`, which plain schema values do not cause.
    /// - Complexity: an `==` per remembered schema to find it; O(size of the
    ///   schema) to encode it the first time.
    package func canonicalRecord() throws -> (text: String, schema: Schema) {
        if let found = RecordTextCache.shared.withLock({ entries in entries.first { $0.schema == self } }) {
            return (found.text, found.schema)
        }
        let entry = (schema: Self.recordOnly(self), text: String(decoding: try recordData(), as: UTF8.self))
        RecordTextCache.shared.withLock { entries in
            // Invariant: at most one entry per schema (by `==`), at most
            // `limit` entries, the oldest dropped first.
            guard !entries.contains(where: { $0.schema == self }) else { return }
            if entries.count == RecordTextCache.limit { entries.removeFirst() }
            entries.append(entry)
        }
        return (entry.text, entry.schema)
    }

    /// The schema with only what its record says, as `init(recordData:)`
    /// reads it: no model classes (the cache must not keep their property
    /// tables alive, and an entity's `slots` then follow its record).
    private static func recordOnly(_ schema: Schema) -> Schema {
        Schema(
            entities: schema.entities.map { entity in
                Entity(
                    name: entity.name, attributes: entity.attributes, relationships: entity.relationships,
                    uniqueConstraints: entity.uniqueConstraints, indexes: entity.indexes,
                    originalName: entity.originalName, superentityName: entity.superentityName)
            }, version: schema.version)
    }
}

/// The remembered record texts (see `Schema.canonicalRecord()`).
private enum RecordTextCache {
    /// Enough for the schemas of an app's containers and a migration plan's
    /// stages; a process that opens more schemas encodes the older ones again.
    static let limit = 16
    static let shared = Locked<[(schema: Schema, text: String)]>([])
}
