// Foundation on Darwin has `ValueTransformer` (NSValueTransformer) and its
// name type; Foundation on Linux has neither. This file is a small stand-in
// with the same spelling, so that a SwiftData model with
// `@Attribute(.transformable(by: SomeTransformer.self))` and its transformer
// class compile on Linux unchanged. Where Foundation has them, they are
// Foundation's, and an app importing both Foundation and ModelStore sees one
// `ValueTransformer`.
#if !canImport(Darwin)
import Foundation

/// The name of a registered value transformer; Foundation's
/// `NSValueTransformerName`, for Linux, where Foundation lacks it.
public struct NSValueTransformerName: Hashable, RawRepresentable, Sendable {
    /// The name.
    public let rawValue: String

    /// Creates a name.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Creates a name.
    public init(_ rawValue: String) { self.rawValue = rawValue }
}

/// Converts a value into another, and back: Foundation's `ValueTransformer`,
/// as a stand-in for Linux, where Foundation lacks it.
///
/// Subclass it and override `transformedValue(_:)` and
/// `reverseTransformedValue(_:)`, as on Darwin. With
/// `@Attribute(.transformable(by:))`, ModelStore stores a property's value
/// as the `Data` that `transformedValue(_:)` returns, and reads it back
/// with `reverseTransformedValue(_:)`:
///
/// ```swift
/// final class ColorTransformer: ValueTransformer {
///     override class func transformedValueClass() -> AnyClass { NSData.self }
///     override class func allowsReverseTransformation() -> Bool { true }
///     override func transformedValue(_ value: Any?) -> Any? { (value as? RGBColor)?.data }
///     override func reverseTransformedValue(_ value: Any?) -> Any? { (value as? Data).flatMap(RGBColor.init) }
/// }
/// ```
///
/// Only what models need is here: the two transformations, the two class
/// methods that describe them, and the registry of named transformers.
/// Foundation's predefined transformers (`NSSecureUnarchiveFromDataTransformer`
/// and the negation ones) are not.
///
/// A registered transformer is shared by every context, on any thread, as
/// Foundation's registry and Core Data share theirs: it must be safe to call
/// concurrently, which one without mutable state is. The class is not
/// `Sendable` (Foundation's is not either, and subclasses would have to
/// restate it); the registry vouches for its transformers instead.
open class ValueTransformer {
    /// Creates a transformer. Required, so that `.transformable(by:)` can
    /// make one from the class.
    public required init() {}

    /// The class of the values `transformedValue(_:)` returns. The default
    /// is `NSObject`, as in Foundation; ModelStore does not consult it (it
    /// checks each returned value instead).
    open class func transformedValueClass() -> AnyClass { NSObject.self }

    /// Whether `reverseTransformedValue(_:)` is supported. The default is
    /// true, as in Foundation. ModelStore reads a stored value only through
    /// a transformer that allows it.
    open class func allowsReverseTransformation() -> Bool { true }

    /// The value transformed. The default returns the value unchanged, as in
    /// Foundation.
    open func transformedValue(_ value: Any?) -> Any? { value }

    /// The value transformed back. The default calls `transformedValue(_:)`
    /// when the class allows reverse transformation, as in Foundation, and
    /// returns nil when it does not (where Foundation raises).
    open func reverseTransformedValue(_ value: Any?) -> Any? {
        Self.allowsReverseTransformation() ? transformedValue(value) : nil
    }

    /// Registers `transformer` under `name`, replacing any transformer
    /// registered under it; nil removes the registration. Thread-safe.
    open class func setValueTransformer(_ transformer: ValueTransformer?, forName name: NSValueTransformerName) {
        let entry = transformer.map(Registered.init)
        registry.withLock { $0[name] = entry }
    }

    /// The names of the registered transformers. Thread-safe.
    open class func valueTransformerNames() -> [NSValueTransformerName] {
        registry.withLock { Array($0.keys) }
    }

    /// A registered transformer. `@unchecked Sendable`: registering a
    /// transformer shares it with every thread, which Foundation's contract
    /// for registered transformers allows (see the class's discussion).
    private struct Registered: @unchecked Sendable {
        let transformer: ValueTransformer
    }

    private static let registry = Locked<[NSValueTransformerName: Registered]>([:])

    /// The transformer registered under `name`, if any.
    static func registered(_ name: NSValueTransformerName) -> ValueTransformer? {
        registry.withLock { $0[name] }?.transformer
    }

    /// The transformer registered under `name`; when there is none, a new
    /// `type`, registered under it. One check under the lock, so that two
    /// threads registering at once end with the same transformer.
    static func registered(_ name: NSValueTransformerName, orMake type: ValueTransformer.Type) -> ValueTransformer {
        registry.withLock { registry in
            if let existing = registry[name] { return existing }
            let made = Registered(transformer: type.init())
            registry[name] = made
            return made
        }.transformer
    }
}

/// Gives `ValueTransformer` Foundation's `init?(forName:)`, which returns
/// the registered instance: a class's own initializer cannot return an
/// existing object, an initializer in a protocol extension can (one that is
/// not class-constrained: only there is `self` assignable). Only
/// `ValueTransformer` conforms.
public protocol _ValueTransformerLookup {}

extension ValueTransformer: _ValueTransformerLookup {}

extension _ValueTransformerLookup {
    /// The transformer registered under `name`; nil when there is none, or
    /// when it is not a `Self`. Thread-safe.
    public init?(forName name: NSValueTransformerName) {
        guard let transformer = ValueTransformer.registered(name) as? Self else { return nil }
        self = transformer
    }
}
#endif
