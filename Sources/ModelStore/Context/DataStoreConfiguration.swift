/// Where a container keeps the objects of its models, as SwiftData's
/// `DataStoreConfiguration`: a SQLite file or memory (`ModelConfiguration`),
/// or another database (`PostgresConfiguration`, in the
/// `ModelStorePostgres` library).
///
/// ```swift
/// let container = try ModelContainer(
///     for: Trip.self, configurations: PostgresConfiguration(url: "postgres://app@db.internal/trips"))
/// ```
///
/// Unlike SwiftData's, the protocol has no `Store` type to write a data
/// store of one's own: ModelStore's stores are SQLite and PostgreSQL, and a
/// container refuses a configuration of any other type.
public protocol DataStoreConfiguration: Sendable {
    /// A name for the configuration.
    var name: String { get }
    /// The models this configuration stores, when not all of the container's.
    var schema: Schema? { get }
    /// Checks that the configuration can be used, before any connection is made.
    /// - Throws: an error naming what is wrong (a URL that cannot be read).
    func validate() throws
}

extension ModelConfiguration: DataStoreConfiguration {
    /// A `ModelConfiguration` is always usable as given; opening its file
    /// is what can fail.
    public func validate() throws {}
}

/// A configuration of another target's database that stores through the
/// library's backend seam: it says how, as a `ModelConfiguration` whose
/// `foreignDatabase` opens its connections.
package protocol ForeignStoreConfiguration: DataStoreConfiguration {
    /// The configuration the store is opened with.
    /// - Throws: what `validate()` throws.
    func modelConfiguration() throws -> ModelConfiguration
}

extension ModelContainer {
    /// The `ModelConfiguration`s behind `configurations`.
    /// - Throws: `ModelStoreError.invalidConfiguration` for a type of
    ///   configuration ModelStore has no store for, or a foreign one beside
    ///   others; what `validate()` throws.
    static func modelConfigurations(_ configurations: [any DataStoreConfiguration]) throws -> [ModelConfiguration] {
        // Several configurations are one SQLite connection that attaches
        // the other files; a server database cannot be attached.
        if configurations.count > 1, let foreign = configurations.first(where: { $0 is any ForeignStoreConfiguration }) {
            throw ModelStoreError.invalidConfiguration(
                name: foreign.name, reason: "a store on another database must be the container's only configuration")
        }
        return try configurations.map { configuration in
            try configuration.validate()
            if let configuration = configuration as? ModelConfiguration { return configuration }
            if let configuration = configuration as? any ForeignStoreConfiguration { return try configuration.modelConfiguration() }
            throw ModelStoreError.invalidConfiguration(
                name: configuration.name,
                reason: "ModelStore has no store for a configuration of type \(type(of: configuration)); "
                    + "use ModelConfiguration (SQLite) or PostgresConfiguration (ModelStorePostgres)")
        }
    }
}
