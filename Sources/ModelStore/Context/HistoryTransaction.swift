import Foundation

/// A position in a store's change history, as SwiftData's `HistoryToken`:
/// save it, and later fetch the transactions after it.
public protocol HistoryToken: Comparable, Codable, Hashable, Identifiable, Sendable {
    /// The type of `tokenValue`.
    associatedtype TokenType: Codable, Hashable, Sendable
    /// The token's value.
    var tokenValue: TokenType? { get }
    /// The identifier of the store whose history the token is a position in.
    var storeIdentifier: String { get }
}

/// The history token of a ModelStore store, as SwiftData's
/// `DefaultHistoryToken`: the store's identifier and the number of a
/// transaction in its history (numbers only grow, and a pruned one is never
/// given again).
///
/// Tokens of one store compare by their number; tokens of different stores
/// compare by store identifier first (an arbitrary but consistent order:
/// such tokens say nothing about each other). A token is `Codable`: keep the
/// last one an app processed, and fetch after it on the next launch.
public struct DefaultHistoryToken: HistoryToken {
    /// The store identifier, mapped to the transaction number.
    public typealias TokenType = [String: Int]

    /// The identifier of the store the token belongs to.
    public let storeIdentifier: String
    /// The transaction's number in the store's history (`store-tool history`
    /// shows it).
    let value: Int64

    init(storeIdentifier: String, value: Int64) {
        self.storeIdentifier = storeIdentifier
        self.value = value
    }

    /// `[storeIdentifier: number]`, as SwiftData's token value.
    public var tokenValue: [String: Int]? { [storeIdentifier: Int(value)] }
    /// The transaction's number.
    public var id: Int { Int(value) }

    /// Orders tokens of one store by number (see the type's discussion for
    /// tokens of different stores).
    public static func < (lhs: DefaultHistoryToken, rhs: DefaultHistoryToken) -> Bool {
        lhs.storeIdentifier == rhs.storeIdentifier ? lhs.value < rhs.value : lhs.storeIdentifier < rhs.storeIdentifier
    }

    private enum CodingKeys: String, CodingKey { case storeIdentifier, token }

    /// Decodes a token encoded by `encode(to:)`.
    /// - Throws: `DecodingError` when a member is missing or of another type.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        storeIdentifier = try container.decode(String.self, forKey: .storeIdentifier)
        value = try container.decode(Int64.self, forKey: .token)
    }

    /// Encodes the token as `{"storeIdentifier": …, "token": number}`.
    /// - Throws: what the encoder throws.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(storeIdentifier, forKey: .storeIdentifier)
        try container.encode(value, forKey: .token)
    }
}

/// One recorded save, as SwiftData's `HistoryTransaction`.
public protocol HistoryTransaction: Hashable, Identifiable, Sendable {
    /// The type of `token`.
    associatedtype TokenType: Comparable, Hashable, Identifiable, Sendable
    /// The type of `transactionIdentifier`.
    associatedtype TransactionIdentifier: Comparable, Hashable, Sendable
    /// The saving context's `author`, if it had one.
    var author: String? { get }
    /// The rows the save inserted, updated and deleted.
    var changes: [HistoryChange] { get }
    /// The identifier of the store the save wrote.
    var storeIdentifier: String { get }
    /// When the save began.
    var timestamp: Date { get }
    /// The transaction's position in the history.
    var token: TokenType { get }
    /// The transaction's identifier.
    var transactionIdentifier: TransactionIdentifier { get }
}

/// One save of a context (or one store-tool edit), as SwiftData's
/// `DefaultHistoryTransaction`.
///
/// ```swift
/// let descriptor = HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.token > lastToken })
/// for transaction in try context.fetchHistory(descriptor) {
///     for change in transaction.changes {
///         switch change {
///         case .insert(let insert): …             // insert.changedPersistentIdentifier
///         case .update(let update as DefaultHistoryUpdate<Trip>): …   // update.updatedAttributes
///         case .delete(let delete as DefaultHistoryDelete<Trip>): …   // delete.tombstone[\.name]
///         default: break
///         }
///     }
///     lastToken = transaction.token
/// }
/// ```
public struct DefaultHistoryTransaction: HistoryTransaction {
    /// The transaction's position in the history.
    public let token: DefaultHistoryToken
    /// The transaction's number (the token's).
    public let transactionIdentifier: Int64
    /// The saving context's `author`; `"store-tool"` for store-tool's edits.
    public let author: String?
    /// When the save began.
    public let timestamp: Date
    /// The saving app's bundle identifier; on Linux, where there is none, its
    /// process name.
    public let bundleIdentifier: String
    /// The saving process's id.
    public let processIdentifier: String
    /// The identifier of the store.
    public let storeIdentifier: String
    /// The rows the save inserted, updated and deleted, in the order recorded.
    public let changes: [HistoryChange]

    /// The transaction's number.
    public var id: Int64 { transactionIdentifier }

    /// Transactions are equal when they are the same transaction of the same store.
    public static func == (lhs: DefaultHistoryTransaction, rhs: DefaultHistoryTransaction) -> Bool {
        lhs.token == rhs.token
    }

    public func hash(into hasher: inout Hasher) { hasher.combine(token) }
}

/// One changed row of a transaction, as SwiftData's `HistoryChange`.
public enum HistoryChange: Sendable {
    /// The row was inserted.
    case insert(any HistoryInsert)
    /// Properties of the row were changed.
    case update(any HistoryUpdate)
    /// The row was deleted.
    case delete(any HistoryDelete)

    /// The identifier of the changed object.
    public var changedPersistentIdentifier: PersistentIdentifier {
        switch self {
        case .insert(let change): change.changedPersistentIdentifier
        case .update(let change): change.changedPersistentIdentifier
        case .delete(let change): change.changedPersistentIdentifier
        }
    }
}

/// An inserted row, as SwiftData's `HistoryInsert`.
public protocol HistoryInsert<Model>: Sendable {
    /// The model class of the row.
    associatedtype Model: PersistentModel
    /// The type of `changeIdentifier`.
    associatedtype ChangeIdentifier: Comparable, Hashable, Sendable
    /// The type of `transactionIdentifier`.
    associatedtype TransactionIdentifier: Comparable, Hashable, Sendable
    /// The change's identifier: its order in the history.
    var changeIdentifier: ChangeIdentifier { get }
    /// The inserted object.
    var changedPersistentIdentifier: PersistentIdentifier { get }
    /// The identifier of the change's transaction.
    var transactionIdentifier: TransactionIdentifier { get }
}

/// An updated row, as SwiftData's `HistoryUpdate`.
public protocol HistoryUpdate<Model>: Sendable {
    /// The model class of the row.
    associatedtype Model: PersistentModel
    /// The type of `changeIdentifier`.
    associatedtype ChangeIdentifier: Comparable, Hashable, Sendable
    /// The type of `transactionIdentifier`.
    associatedtype TransactionIdentifier: Comparable, Hashable, Sendable
    /// The change's identifier: its order in the history.
    var changeIdentifier: ChangeIdentifier { get }
    /// The updated object.
    var changedPersistentIdentifier: PersistentIdentifier { get }
    /// The identifier of the change's transaction.
    var transactionIdentifier: TransactionIdentifier { get }
    /// The key paths of the properties the save changed.
    var updatedAttributes: [any PartialKeyPath<Model> & Sendable] { get }
}

/// A deleted row, as SwiftData's `HistoryDelete`.
public protocol HistoryDelete<Model>: Sendable {
    /// The model class of the row.
    associatedtype Model: PersistentModel
    /// The type of `changeIdentifier`.
    associatedtype ChangeIdentifier: Comparable, Hashable, Sendable
    /// The type of `transactionIdentifier`.
    associatedtype TransactionIdentifier: Comparable, Hashable, Sendable
    /// The change's identifier: its order in the history.
    var changeIdentifier: ChangeIdentifier { get }
    /// The deleted object.
    var changedPersistentIdentifier: PersistentIdentifier { get }
    /// The identifier of the change's transaction.
    var transactionIdentifier: TransactionIdentifier { get }
    /// The values the row had of the attributes marked `.preserveValueOnDeletion`.
    var tombstone: HistoryTombstone<Model> { get }
}

/// An inserted row of a ModelStore store.
public struct DefaultHistoryInsert<Model: PersistentModel>: HistoryInsert, Hashable {
    /// The change's order in the history.
    public let changeIdentifier: Int64
    /// The inserted object.
    public let changedPersistentIdentifier: PersistentIdentifier
    /// The transaction's number.
    public let transactionIdentifier: Int64
}

/// An updated row of a ModelStore store.
public struct DefaultHistoryUpdate<Model: PersistentModel>: HistoryUpdate, Hashable {
    /// The change's order in the history.
    public let changeIdentifier: Int64
    /// The updated object.
    public let changedPersistentIdentifier: PersistentIdentifier
    /// The transaction's number.
    public let transactionIdentifier: Int64
    /// The key paths of the properties the save changed: attributes and
    /// relationships (to-many ones too), in the model's order. A property
    /// the model no longer has (removed by a migration since) is left out.
    public let updatedAttributes: [any PartialKeyPath<Model> & Sendable]

    /// Updates are equal when they are the same change.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.changeIdentifier == rhs.changeIdentifier && lhs.changedPersistentIdentifier == rhs.changedPersistentIdentifier
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(changeIdentifier)
        hasher.combine(changedPersistentIdentifier)
    }
}

/// A deleted row of a ModelStore store.
public struct DefaultHistoryDelete<Model: PersistentModel>: HistoryDelete, Hashable {
    /// The change's order in the history.
    public let changeIdentifier: Int64
    /// The deleted object.
    public let changedPersistentIdentifier: PersistentIdentifier
    /// The transaction's number.
    public let transactionIdentifier: Int64
    /// The preserved values.
    public let tombstone: HistoryTombstone<Model>

    /// Deletes are equal when they are the same change.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.changeIdentifier == rhs.changeIdentifier && lhs.changedPersistentIdentifier == rhs.changedPersistentIdentifier
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(changeIdentifier)
        hasher.combine(changedPersistentIdentifier)
    }
}

/// The values a deleted row had of its attributes marked
/// `.preserveValueOnDeletion`, as SwiftData's `HistoryTombstone`:
/// `tombstone[\Trip.name] as? String`.
///
/// Iterating it yields `(keyPath: PartialKeyPath<Model>, value: (any Sendable)?)`
/// pairs (as `Any`, SwiftData's element type), in the model's order.
public struct HistoryTombstone<Model: PersistentModel>: Sendable, Sequence {
    /// An iterator over the preserved values.
    public struct Iterator: IteratorProtocol {
        var entries: IndexingIterator<[Entry]>

        /// The next `(keyPath, value)` pair, or nil after the last.
        public mutating func next() -> Any? {
            entries.next().map { (keyPath: $0.keyPath as PartialKeyPath<Model>, value: $0.value) }
        }
    }

    struct Entry: Sendable {
        let keyPath: any PartialKeyPath<Model> & Sendable
        let value: (any Sendable)?
    }

    let entries: [Entry]

    /// The preserved value of the property at `keyPath`: nil when the
    /// property is not preserved, or its value was nil.
    public subscript(keyPath: PartialKeyPath<Model>) -> (any Sendable)? {
        entries.first { ($0.keyPath as PartialKeyPath<Model>) == keyPath }?.value ?? nil
    }

    /// An iterator over the preserved values.
    public func makeIterator() -> Iterator { Iterator(entries: entries.makeIterator()) }
}
