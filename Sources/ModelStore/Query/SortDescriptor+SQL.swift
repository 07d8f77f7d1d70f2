import Foundation

extension QueryOrdering {
    /// An ordering by `key` with Swift's string order (store-tool's sort keys).
    package init(key: Key, descending: Bool) {
        self.key = key
        self.descending = descending
    }

    /// The ORDER BY key of a sort descriptor: an attribute of `T`, an
    /// attribute reached through to-one relationships (`\Stop.trip?.name`),
    /// or `persistentModelID`.
    /// - Throws: `ModelStoreError.unsupportedQuery` for a descriptor built
    ///   from a comparator instead of a key path, or a key path that names no
    ///   stored attribute.
    init<T: PersistentModel>(_ descriptor: SortDescriptor<T>) throws {
        guard let keyPath = descriptor.keyPath else {
            throw ModelStoreError.unsupportedQuery(
                entity: T.entityName, expression: "SortDescriptor", reason: "it has no key path (a comparator cannot run in SQL)")
        }
        descending = descriptor.order == .reverse
        // Foundation on Linux knows one string comparator besides Swift's
        // `<` (used when there is none): `.lexical`. ModelStore's localized
        // comparators extend the key path (see LocalizedSortComparator.swift).
        stringOrder = descriptor.stringComparator == nil ? .swift : .lexical
        if let (method, base) = LocalizedSortKeyPaths.split(keyPath) {
            guard let path = SortKeyPaths.propertyPath(description: base, in: T.self) else {
                throw ModelStoreError.unsupportedQuery(
                    entity: T.entityName, expression: "SortDescriptor(\(base), comparator: .\(method))",
                    reason: "the key path names no stored attribute of \(T.entityName) or of an object it reaches through to-one relationships")
            }
            stringOrder = method == .localizedStandard ? .localizedStandard : .localized
            key = .property(PropertyReference(path: path))
        } else if keyPath == \T.persistentModelID {
            key = .identifier
        } else if let path = SortKeyPaths.propertyPath(of: keyPath, in: T.self) {
            key = .property(PropertyReference(path: path))
        } else {
            throw ModelStoreError.unsupportedQuery(
                entity: T.entityName, expression: "SortDescriptor(\(keyPath))",
                reason: "the key path names no stored attribute of \(T.entityName) or of an object it reaches through to-one relationships")
        }
    }
}

/// Maps a sort key path to property names.
///
/// A key path of one component is compared with the model's property key
/// paths. Key paths do not expose their components, and one composed with
/// `appending(path:)` does not compare equal to the literal
/// `\Stop.trip?.name`, so a longer key path is matched through its
/// description, whose components (`<computed 0x… (Type)>` for the generated
/// accessors) are the same text as those of the single properties'
/// descriptions within one process. A key path that matches nothing is
/// refused, never guessed.
enum SortKeyPaths {
    static func propertyPath(of keyPath: AnyKeyPath, in type: any PersistentModel.Type) -> [String]? {
        if let property = PropertyTable.property(of: type, keyPath: keyPath) {
            return property.attribute != nil ? [property.name] : nil
        }
        return propertyPath(description: Substring(String(describing: keyPath)), in: type)
    }

    /// The property names of a key path rooted at `type`, from its description.
    static func propertyPath(description: Substring, in type: any PersistentModel.Type) -> [String]? {
        let prefix = rootPrefix(of: type)
        guard description.hasPrefix(prefix) else { return nil }
        return match(description.dropFirst(prefix.count), in: type, depth: 0)
    }

    private static func match(_ rest: Substring, in type: any PersistentModel.Type, depth: Int) -> [String]? {
        guard depth < 8 else { return nil }
        let prefix = rootPrefix(of: type)
        for property in PropertyTable.of(type) {
            let component = String(describing: property.keyPath)
            guard component.hasPrefix(prefix) else { continue }
            let text = component.dropFirst(prefix.count)
            guard rest.hasPrefix(text) else { continue }
            var remainder = rest.dropFirst(text.count)
            if property.attribute != nil {
                // An attribute ends the path (an optional chain ends with "?").
                if remainder.isEmpty || remainder == "?" { return [property.name] }
                continue
            }
            guard let relationship = property.relationship, !relationship.isToMany,
                let destination = property.destinationType
            else { continue }
            if remainder.hasPrefix("?") || remainder.hasPrefix("!") { remainder = remainder.dropFirst() }
            guard remainder.hasPrefix(".") else { continue }
            if let tail = match(remainder.dropFirst(), in: destination, depth: depth + 1) {
                return [property.name] + tail
            }
        }
        return nil
    }

    /// `\Trip.`: how the description of a key path rooted at `type` begins.
    private static func rootPrefix(of type: any PersistentModel.Type) -> String {
        "\\\(String(describing: type))."
    }
}
