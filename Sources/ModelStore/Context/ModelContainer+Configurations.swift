import Foundation

/// One configuration of a container and the entities it stores.
struct ConfigurationPart {
    let configuration: ModelConfiguration
    let schema: Schema
}

/// How a container's schema is split among several configurations, each its
/// own store.
///
/// The rules, checked before any file is opened:
/// - names: a configuration whose store is at the default location names
///   its file (`NAME.store`), so its name may hold no `/` or NUL and must fit
///   a file name (255 bytes); two configurations may not share a name or a
///   file, and at most one may leave its schema to the container
///   (`SwiftDataError.duplicateConfiguration`);
/// - a configuration's schema may only hold entities of the container's
///   schema (`.configurationSchemaNotFoundInContainerSchema`);
/// - each entity is stored by one configuration: the one whose schema lists
///   it; entities no schema lists go to the configuration without a schema,
///   or, when every configuration has one, to the first;
/// - a relationship cannot cross configurations (each is its own file, and a
///   foreign key cannot point into another file): `ModelStoreError.invalidSchema`
///   naming the relationship, both entities and both configurations.
enum ConfigurationPlan {
    /// SQLite's default limit on attached databases (SQLITE_MAX_ATTACHED):
    /// a container's first store is the connection's main database, each
    /// other one is attached.
    static let maximumAttached = 10

    /// Checks the names of the configurations. Applies to one configuration too.
    /// - Throws: `SwiftDataError.configurationFileNameContainsInvalidCharacters`
    ///   or `.configurationFileNameTooLong`.
    static func checkNames(_ configurations: [ModelConfiguration]) throws {
        for configuration in configurations where configuration.usesDefaultLocation {
            let name = configuration.name
            if name.contains("/") || name.contains("\0") || name.isEmpty {
                throw SwiftDataError(
                    .configurationFileNameContainsInvalidCharacters,
                    underlying: .invalidConfiguration(
                        name: name, reason: "its name names its file \(name).store, and a file name cannot be empty or hold / or NUL"))
            }
            if "\(name).store".utf8.count > 255 {
                throw SwiftDataError(
                    .configurationFileNameTooLong,
                    underlying: .invalidConfiguration(
                        name: name, reason: "its name names its file \(name).store, which is longer than 255 bytes"))
            }
        }
    }

    /// Splits `schema` among `configurations` (two or more).
    /// - Throws: `SwiftDataError` for the configuration errors above;
    ///   `ModelStoreError.invalidSchema` for a relationship between
    ///   configurations or an entity in two of them;
    ///   `.invalidConfiguration` for more configurations than SQLite attaches.
    static func parts(of schema: Schema, configurations: [ModelConfiguration]) throws -> [ConfigurationPart] {
        try checkDuplicates(configurations)
        guard configurations.count - 1 <= maximumAttached else {
            throw ModelStoreError.invalidConfiguration(
                name: configurations[maximumAttached + 1].name,
                reason: "a container has at most \(maximumAttached + 1) configurations (SQLite attaches \(maximumAttached) files to one connection)")
        }
        // Which configurations' schemas list each entity.
        var listedBy: [String: [Int]] = [:]
        for (index, configuration) in configurations.enumerated() {
            for entity in configuration.schema?.entities ?? [] {
                guard schema.entity(named: entity.name) != nil else {
                    throw SwiftDataError(
                        .configurationSchemaNotFoundInContainerSchema,
                        underlying: .invalidConfiguration(
                            name: configuration.name,
                            reason: "its schema holds \(entity.name), which the container's schema does not"))
                }
                listedBy[entity.name, default: []].append(index)
            }
        }
        let fallback = configurations.firstIndex { $0.schema == nil } ?? 0
        var owner: [String: Int] = [:]
        for entity in schema.entities {
            let listing = listedBy[entity.name] ?? []
            if listing.count > 1 {
                throw twoConfigurations(entity.name, listing, configurations)
            }
            owner[entity.name] = listing.first ?? fallback
        }
        for entity in schema.entities {
            guard let from = owner[entity.name] else { continue }
            for relationship in entity.relationships {
                if let to = owner[relationship.destination], to != from {
                    throw crossing(entity.name, relationship.name, relationship.destination, from, to, configurations)
                }
            }
        }
        return configurations.enumerated().map { index, configuration in
            ConfigurationPart(
                configuration: configuration,
                schema: Schema(
                    entities: schema.entities.filter { owner[$0.name] == index },
                    version: configuration.schema?.version ?? schema.version))
        }
    }

    private static func checkDuplicates(_ configurations: [ModelConfiguration]) throws {
        var names: [String: Int] = [:]
        var files: [String: String] = [:]
        var withoutSchema: String?
        for configuration in configurations {
            if names[configuration.name] != nil {
                throw SwiftDataError(
                    .duplicateConfiguration,
                    underlying: .invalidConfiguration(
                        name: configuration.name, reason: "two configurations of the container have this name"))
            }
            names[configuration.name] = 1
            if !configuration.isStoredInMemoryOnly {
                let file = configuration.url.standardizedFileURL.path(percentEncoded: false)
                if let other = files[file] {
                    throw SwiftDataError(
                        .duplicateConfiguration,
                        underlying: .invalidConfiguration(
                            name: configuration.name, reason: "it stores in \(file), as configuration \(other) does"))
                }
                files[file] = configuration.name
            }
            if configuration.schema == nil {
                if let other = withoutSchema {
                    throw SwiftDataError(
                        .duplicateConfiguration,
                        underlying: .invalidConfiguration(
                            name: configuration.name,
                            reason: "it has no schema, as configuration \(other) has not: both would store the entities no configuration lists"))
                }
                withoutSchema = configuration.name
            }
        }
    }

    /// An entity in the schemas of two configurations: most often because a
    /// schema reaches it through a relationship (`Schema([Trip.self])` holds
    /// every model Trip relates to), so the error names that relationship.
    private static func twoConfigurations(
        _ entity: String, _ listing: [Int], _ configurations: [ModelConfiguration]
    ) -> ModelStoreError {
        // A holder only one configuration lists, relating to the entity:
        // that relationship is the one that crosses.
        for index in listing {
            guard let schema = configurations[index].schema, let other = listing.first(where: { $0 != index }) else {
                continue
            }
            let otherNames = Set(configurations[other].schema?.entities.map(\.name) ?? [])
            for holder in schema.entities where !otherNames.contains(holder.name) {
                if let relationship = holder.relationships.first(where: { $0.destination == entity }) {
                    return crossing(holder.name, relationship.name, entity, index, other, configurations)
                }
            }
        }
        let names = listing.map { configurations[$0].name }.joined(separator: " and ")
        // Both schemas reach each other's entities: name one relationship
        // that ties the entity to the rest.
        let schemas = listing.compactMap { configurations[$0].schema }
        let tie = schemas.lazy.flatMap(\.entities).compactMap { holder -> String? in
            guard let relationship = holder.relationships.first(where: { holder.name == entity || $0.destination == entity })
            else { return nil }
            return "\(holder.name).\(relationship.name)"
        }.first
        return .invalidSchema(
            reason: "\(entity) is in the schemas of configurations \(names)"
                + (tie.map { " (a schema holds every model its models relate to, here through \($0))" } ?? "")
                + "; each entity is stored by one configuration, and a relationship cannot cross configurations")
    }

    private static func crossing(
        _ entity: String, _ relationship: String, _ destination: String, _ from: Int, _ to: Int,
        _ configurations: [ModelConfiguration]
    ) -> ModelStoreError {
        .invalidSchema(
            reason: "\(entity).\(relationship) relates \(entity) (configuration \(configurations[from].name)) to "
                + "\(destination) (configuration \(configurations[to].name)); a relationship cannot cross configurations, "
                + "as each is its own store: put both entities in one configuration")
    }
}
