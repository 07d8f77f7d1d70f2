import Foundation

/// The identity of a model object across contexts, as SwiftData's
/// `PersistentIdentifier`: the entity, the store, and the row.
///
/// An object that was inserted but not yet saved has a *temporary* identifier;
/// saving gives it a permanent one, which never changes afterwards and is
/// never reused for another object (rows get AUTOINCREMENT keys). The context
/// that saved the object answers `model(for:)` for both.
///
/// Identifiers are `Sendable` and `Codable`: pass them between isolation
/// domains and look the object up in the context there.
public struct PersistentIdentifier: Hashable, Comparable, Codable, Sendable, CustomStringConvertible {
    enum Key: Hashable, Codable, Sendable {
        case permanent(Int64)
        case temporary(UUID)
    }

    /// The name of the object's entity.
    public let entityName: String
    /// The identifier of the store the object lives in; nil while temporary.
    public let storeIdentifier: String?
    let key: Key

    init(entityName: String, storeIdentifier: String?, key: Key) {
        self.entityName = entityName
        self.storeIdentifier = storeIdentifier
        self.key = key
    }

    static func temporary(entityName: String) -> PersistentIdentifier {
        PersistentIdentifier(entityName: entityName, storeIdentifier: nil, key: .temporary(UUID()))
    }

    static func permanent(entityName: String, storeIdentifier: String, rowID: Int64) -> PersistentIdentifier {
        PersistentIdentifier(entityName: entityName, storeIdentifier: storeIdentifier, key: .permanent(rowID))
    }

    /// True until the object is saved.
    public var isTemporary: Bool {
        if case .temporary = key { return true }
        return false
    }

    /// The row's primary key in the entity's table, once saved.
    public var rowID: Int64? {
        if case .permanent(let rowID) = key { return rowID }
        return nil
    }

    /// `Entity:row` as `store-tool` names objects, or `Entity:temporary-UUID`.
    public var description: String {
        switch key {
        case .permanent(let rowID): "\(entityName):\(rowID)"
        case .temporary(let uuid): "\(entityName):temporary-\(uuid.uuidString)"
        }
    }

    /// Orders identifiers by entity, then store, then row key (saved objects
    /// first, in the order of their rows), as SwiftData's identifiers are
    /// Comparable. Within one entity of one store this is the order of
    /// `SortDescriptor(\.persistentModelID)` in a fetch.
    public static func < (lhs: PersistentIdentifier, rhs: PersistentIdentifier) -> Bool {
        if lhs.entityName != rhs.entityName { return lhs.entityName < rhs.entityName }
        if lhs.storeIdentifier != rhs.storeIdentifier { return (lhs.storeIdentifier ?? "") < (rhs.storeIdentifier ?? "") }
        switch (lhs.key, rhs.key) {
        case (.permanent(let left), .permanent(let right)): return left < right
        case (.permanent, .temporary): return true
        case (.temporary, .permanent): return false
        case (.temporary(let left), .temporary(let right)): return left.uuidString < right.uuidString
        }
    }
}
