import Foundation

// SwiftData apps sort strings with `SortDescriptor(\.name, comparator:
// .localizedStandard)` (Finder order: case-insensitive, numbers by value) or
// `.localized`. Foundation on Linux declares neither (swift-foundation issue
// #284: `String.StandardComparator` can only be `.lexical` there, and cannot be
// made or decoded otherwise). ModelStore supplies `LocalizedStringComparator`
// and `SortDescriptor` initializers that take it, so that the same line
// compiles. Such a descriptor sorts by a key path to a `Comparable` key
// (`\Trip.name` followed by a ModelStore property of String) whose `<` is
// Foundation's `localizedStandardCompare` or `localizedCompare`: in memory,
// `sorted(using:)` orders by them, and the SQL compiler recognizes the key's
// type, orders by the attribute before it, and uses a collation that calls the
// same Foundation method. The two orders are therefore the same.

/// A localized string order for `SortDescriptor`, as SwiftData apps use
/// `String.StandardComparator.localizedStandard` and `.localized`.
///
/// ```swift
/// let byName = SortDescriptor(\Trip.name, comparator: .localizedStandard)        // "file2" < "File10"
/// let byCity = SortDescriptor(\Trip.city, comparator: .localized, order: .reverse)
/// ```
///
/// Foundation on Linux has neither comparator; these compare with its
/// `localizedStandardCompare(_:)` and `localizedCompare(_:)` (ICU, current
/// locale), and a fetch orders by the same methods in SQL.
public struct LocalizedStringComparator: SortComparator, Hashable, Sendable {
    enum Method: Hashable, Sendable { case localizedStandard, localized }

    let method: Method
    /// Forward or reverse.
    public var order: SortOrder

    /// Finder order in the current locale: case- and width-insensitive,
    /// digits compared by numeric value (`localizedStandardCompare`).
    public static let localizedStandard = LocalizedStringComparator(method: .localizedStandard, order: .forward)
    /// The current locale's order (`localizedCompare`).
    public static let localized = LocalizedStringComparator(method: .localized, order: .forward)

    init(method: Method, order: SortOrder) {
        self.method = method
        self.order = order
    }

    /// `base` with another order.
    public init(_ base: LocalizedStringComparator, order: SortOrder = .forward) {
        self.init(method: base.method, order: order)
    }

    /// The order of two strings, reversed when `order` is `.reverse`.
    public func compare(_ lhs: String, _ rhs: String) -> ComparisonResult {
        let result = Self.compare(lhs, rhs, by: method)
        guard order == .reverse else { return result }
        switch result {
        case .orderedAscending: return .orderedDescending
        case .orderedDescending: return .orderedAscending
        case .orderedSame: return .orderedSame
        }
    }

    /// The one place both the in-memory keys and the SQL collations compare.
    static func compare(_ lhs: String, _ rhs: String, by method: Method) -> ComparisonResult {
        switch method {
        case .localizedStandard: lhs.localizedStandardCompare(rhs)
        case .localized: lhs.localizedCompare(rhs)
        }
    }
}

extension String.StandardComparator {
    /// `LocalizedStringComparator.localizedStandard`, under the name SwiftData
    /// code spells out (Foundation on Linux does not declare it).
    public static var localizedStandard: LocalizedStringComparator { LocalizedStringComparator.localizedStandard }
    /// `LocalizedStringComparator.localized`, under the name SwiftData code
    /// spells out (Foundation on Linux does not declare it).
    public static var localized: LocalizedStringComparator { LocalizedStringComparator.localized }
}

extension SortDescriptor {
    /// Sorts by a string with a localized comparator, in the comparator's order.
    public init(_ keyPath: KeyPath<Compared, String> & Sendable, comparator: LocalizedStringComparator) {
        self.init(keyPath, comparator: comparator, order: comparator.order)
    }

    /// Sorts by a string with a localized comparator.
    public init(_ keyPath: KeyPath<Compared, String> & Sendable, comparator: LocalizedStringComparator, order: SortOrder) {
        switch comparator.method {
        case .localizedStandard: self.init(sendable(keyPath.appending(path: \String._modelStoreLocalizedStandardKey)), order: order)
        case .localized: self.init(sendable(keyPath.appending(path: \String._modelStoreLocalizedKey)), order: order)
        }
    }

    /// Sorts by an optional string with a localized comparator, nil first
    /// (forward), in the comparator's order.
    public init(_ keyPath: KeyPath<Compared, String?> & Sendable, comparator: LocalizedStringComparator) {
        self.init(keyPath, comparator: comparator, order: comparator.order)
    }

    /// Sorts by an optional string with a localized comparator, nil first (forward).
    public init(_ keyPath: KeyPath<Compared, String?> & Sendable, comparator: LocalizedStringComparator, order: SortOrder) {
        switch comparator.method {
        case .localizedStandard: self.init(sendable(keyPath.appending(path: \String?._modelStoreLocalizedStandardKey)), order: order)
        case .localized: self.init(sendable(keyPath.appending(path: \String?._modelStoreLocalizedKey)), order: order)
        }
    }
}

/// `keyPath` as a Sendable key path. `SortDescriptor` takes only those, and
/// `appending(path:)` does not say that it returns one; the key paths given
/// here join a Sendable key path and a ModelStore property of String, which
/// captures nothing, so the result is as Sendable as its parts.
private func sendable<Root, Value>(_ keyPath: KeyPath<Root, Value>) -> any KeyPath<Root, Value> & Sendable {
    unsafeBitCast(keyPath, to: (any KeyPath<Root, Value> & Sendable).self)
}

/// A string ordered by `localizedStandardCompare`.
struct LocalizedStandardSortKey: Comparable {
    let string: String
    static func < (lhs: Self, rhs: Self) -> Bool {
        LocalizedStringComparator.compare(lhs.string, rhs.string, by: .localizedStandard) == .orderedAscending
    }
    static func == (lhs: Self, rhs: Self) -> Bool {
        LocalizedStringComparator.compare(lhs.string, rhs.string, by: .localizedStandard) == .orderedSame
    }
}

/// A string ordered by `localizedCompare`.
struct LocalizedSortKey: Comparable {
    let string: String
    static func < (lhs: Self, rhs: Self) -> Bool {
        LocalizedStringComparator.compare(lhs.string, rhs.string, by: .localized) == .orderedAscending
    }
    static func == (lhs: Self, rhs: Self) -> Bool {
        LocalizedStringComparator.compare(lhs.string, rhs.string, by: .localized) == .orderedSame
    }
}

extension String {
    var _modelStoreLocalizedStandardKey: LocalizedStandardSortKey { LocalizedStandardSortKey(string: self) }
    var _modelStoreLocalizedKey: LocalizedSortKey { LocalizedSortKey(string: self) }
}

extension Optional where Wrapped == String {
    var _modelStoreLocalizedStandardKey: LocalizedStandardSortKey? { map(LocalizedStandardSortKey.init(string:)) }
    var _modelStoreLocalizedKey: LocalizedSortKey? { map(LocalizedSortKey.init(string:)) }
}

/// Reads a localized sort back from a sort descriptor's key path.
enum LocalizedSortKeyPaths {
    /// The comparator method and the description of the string key path
    /// that `SortDescriptor.init(_:comparator:)` extended, when `keyPath`
    /// is one of those; nil otherwise.
    static func split(_ keyPath: AnyKeyPath) -> (method: LocalizedStringComparator.Method, base: Substring)? {
        let value = type(of: keyPath).valueType
        let method: LocalizedStringComparator.Method
        let suffix: AnyKeyPath
        if value == LocalizedStandardSortKey.self {
            (method, suffix) = (.localizedStandard, \String._modelStoreLocalizedStandardKey)
        } else if value == LocalizedStandardSortKey?.self {
            (method, suffix) = (.localizedStandard, \String?._modelStoreLocalizedStandardKey)
        } else if value == LocalizedSortKey.self {
            (method, suffix) = (.localized, \String._modelStoreLocalizedKey)
        } else if value == LocalizedSortKey?.self {
            (method, suffix) = (.localized, \String?._modelStoreLocalizedKey)
        } else {
            return nil
        }
        // `\String.<computed 0x… (Key)>`: the appended component is the text
        // after the root's name, and ends the composed key path's description.
        let suffixText = String(describing: suffix)
        guard let dot = suffixText.firstIndex(of: ".") else { return nil }
        let component = suffixText[dot...]
        let text = String(describing: keyPath)
        guard text.hasSuffix(component) else { return nil }
        return (method, text.dropLast(component.count))
    }
}
