/// A model class's stored properties, as its generated
/// `_$persistentProperties` describes them, made once per class and process.
///
/// The generated property builds its array every time it is asked: each
/// property's metadata, key path and accessors, thousands of instructions a
/// property. Compiling a fetch asks for it for every key path its predicate
/// and sort descriptors name, so that translating a two-condition predicate
/// cost more than running a fetch of a few rows. A class's properties never
/// change while the process runs, so the first answer is kept.
///
/// Keyed by the class itself: a subclass has a table of its own (its
/// properties, then its superclass's re-rooted at it).
enum PropertyTable {
    private static let kept = KeptValues<ObjectIdentifier, [PropertyMetadata]>()

    /// The stored properties of `type`, by ordinal.
    static func of(_ type: any PersistentModel.Type) -> [PropertyMetadata] {
        kept.value(for: ObjectIdentifier(type)) { type._$persistentProperties }
    }

    /// The stored property of `type` that `keyPath` is, if it is one.
    static func property(of type: any PersistentModel.Type, keyPath: AnyKeyPath) -> PropertyMetadata? {
        of(type).first { $0.keyPath == keyPath }
    }
}
