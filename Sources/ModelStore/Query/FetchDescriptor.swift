import Foundation

/// What to fetch, as SwiftData's `FetchDescriptor`: which objects (a
/// predicate), in which order, and how many.
///
/// ```swift
/// var descriptor = FetchDescriptor<Trip>(
///     predicate: #Predicate { $0.destination == "Portugal" },
///     sortBy: [SortDescriptor(\.startDate)])
/// descriptor.fetchLimit = 10
/// let trips = try context.fetch(descriptor)
/// ```
public struct FetchDescriptor<T: PersistentModel> {
    /// Which objects to fetch; nil fetches all.
    public var predicate: Predicate<T>?
    /// The order of the results; objects that compare equal keep the order of
    /// their rows.
    public var sortBy: [SortDescriptor<T>]
    /// At most this many objects.
    public var fetchLimit: Int?
    /// Skip this many objects first.
    public var fetchOffset: Int?
    /// Whether unsaved inserts, changes and deletes of the context count.
    public var includePendingChanges: Bool = true
    /// Relationships to load for the whole result at once, one query per
    /// relationship, instead of one query per object on first access.
    ///
    /// ```swift
    /// descriptor.relationshipKeyPathsForPrefetching = [\.stops, \.owner]
    /// ```
    public var relationshipKeyPathsForPrefetching: [PartialKeyPath<T>] = []
    /// The attributes to read; empty reads them all. The others are not
    /// selected: each is read from the store when the object's property is
    /// first accessed (one query per property), as Core Data's partial
    /// faults are. Attributes of types without an empty value (URL, enums,
    /// Codable values) are always read.
    ///
    /// ```swift
    /// descriptor.propertiesToFetch = [\.name, \.startDate]
    /// ```
    public var propertiesToFetch: [PartialKeyPath<T>] = []

    /// Creates a descriptor.
    public init(predicate: Predicate<T>? = nil, sortBy: [SortDescriptor<T>] = []) {
        self.predicate = predicate
        self.sortBy = sortBy
    }
}
