// A reference to one value inside the object graph: the `Ref` of the seed
// article (003), with a model object as its root. The reference is a pair
// of functions (read, write) over the root object, so that narrowing it by
// a key path or an index composes a new pair from the old one, as `Ref`'s
// subscripts do; its writes end in the model's generated setter (or its
// `_modify` accessor), so they are tracked, observed and undoable as any
// write is, and dirty only the property they go through.
//
// Invariant: neither function traps on what the graph holds. A step that
// cannot be resolved (an index past the end of an array that shrank) reads
// as nil, and a write to it writes nothing and reports false.

/// A reference to one value inside the object graph: a model's property, or
/// a value nested in it (a field of a `Codable` struct, an element of an
/// array attribute), read and written through the model.
///
/// Make one from a key path, and narrow it by key path or index:
///
/// ```swift
/// let budget = trip.reference(\.budget)        // ModelReference<Trip, Budget>
/// let amount = budget[\.amount]                // or trip.reference(\.budget.amount)
/// amount.value = 1_200                         // trip.budget.amount is 1_200; only `budget` is dirty
/// let secondTag = trip.reference(\.tags)[1]    // ModelReference<Trip, String?>: nil when out of range
/// let token = amount.observe { print("now", $0) }
/// let field = amount.binding                   // ModelBinding<Double>: a get/set pair for a UI framework
/// ```
///
/// Reads go through the model's getters (Observation sees them, faults
/// load); writes through its setters: the context tracks them, observers and
/// `objectWillChange` hear of them, an undo manager records them, and only
/// the stored property the reference goes through becomes dirty. Writing a
/// value equal to the current one (when `Value` is `Equatable`) changes
/// nothing, as a setter does.
///
/// An element reference (`reference[index]`) has an optional value: it reads
/// nil once the index is out of range (the array shrank), and a write to it
/// then writes nothing (`set(_:)` throws `ModelReferenceError`). A key path
/// that itself subscripts an array (`\Trip.tags[2]`) traps out of range, as
/// any Swift subscript does: reach elements through `reference[index]`.
///
/// The reference holds its object strongly, as the app's own variable would,
/// and follows the object's rules: on a deleted object, or one whose context
/// has gone, it reads the object's values and writes the object as the app
/// could (such writes are not saved; see "Identity" in the README).
///
/// Models belong to one isolation domain, and so does a reference: it is not
/// `Sendable`.
public struct ModelReference<Root: PersistentModel, Value> {
    /// The object the reference starts at.
    public let model: Root

    /// Reads the value; never traps (see the file comment).
    let read: (Root) -> Value
    /// Writes the value; returns false when nothing could be written (an
    /// element out of range).
    let write: (Root, Value) -> Bool
    /// The path for messages: `Trip.budget.amount`, `Trip.tags[2]`.
    let path: String

    init(model: Root, path: String, read: @escaping (Root) -> Value, write: @escaping (Root, Value) -> Bool) {
        self.model = model
        self.path = path
        self.read = read
        self.write = write
    }

    /// Creates a reference to the value at `keyPath` of `model`: a stored
    /// property (`\.budget`) or a value nested in one (`\.budget.amount`).
    ///
    /// The key path should stay within the object's own properties: a path
    /// through a relationship into another object (`\.owner.name`) reads and
    /// writes, but observing it sees only changes of `model` itself. To refer
    /// to the other object's property, make the reference on that object.
    public init(_ model: Root, _ keyPath: ReferenceWritableKeyPath<Root, Value>) {
        self.init(
            model: model, path: ModelReferencePath.describe(keyPath, of: Root.self),
            read: { $0[keyPath: keyPath] },
            write: { root, newValue in
                // A nested path writes through the property's `_modify`,
                // which counts every write as a change: an equal value is
                // left alone here, as the property's setter would leave it.
                if ModelReferencePath.areEqual(root[keyPath: keyPath], newValue) == true { return true }
                root[keyPath: keyPath] = newValue
                return true
            })
    }

    /// The value, read through the model; setting it writes through the
    /// model. The setter is `nonmutating`: the reference itself never
    /// changes, only the graph it points into does.
    ///
    /// Setting an element reference that is out of range writes nothing; use
    /// `set(_:)` to learn of it.
    public var value: Value {
        get { read(model) }
        nonmutating set { _ = write(model, newValue) }
    }

    /// Writes `newValue` through the model, as setting `value` does.
    /// - Throws: `ModelReferenceError.elementOutOfRange` when the reference
    ///   goes through an array element whose index is out of range, or the
    ///   element is nil; nothing is written then.
    public func set(_ newValue: Value) throws {
        guard write(model, newValue) else {
            throw ModelReferenceError.elementOutOfRange(entity: Root.entityName, path: path)
        }
    }

    /// A reference to the value at `member` inside this one: `budget[\.amount]`.
    /// A write reads this reference's value, changes `member` in it and
    /// writes it back through this reference.
    public subscript<Member>(_ member: WritableKeyPath<Value, Member>) -> ModelReference<Root, Member> {
        let parent = self
        return ModelReference<Root, Member>(
            model: model, path: ModelReferencePath.append(member, to: path),
            read: { parent.read($0)[keyPath: member] },
            write: { root, newMember in
                var value = parent.read(root)
                if ModelReferencePath.areEqual(value[keyPath: member], newMember) == true { return true }
                value[keyPath: member] = newMember
                return parent.write(root, value)
            })
    }

    /// A reference to the element at `index` of this collection value: nil
    /// when the index is out of range (the collection shrank since), and a
    /// write then writes nothing. Writing nil writes nothing either: a
    /// reference to an element cannot remove it.
    ///
    /// - Complexity: each read and write checks the index: O(1) for an array.
    public subscript(_ index: Value.Index) -> ModelReference<Root, Value.Element?>
    where Value: MutableCollection {
        let parent = self
        return ModelReference<Root, Value.Element?>(
            model: model, path: path + "[\(index)]",
            read: { root in
                let collection = parent.read(root)
                return collection.indices.contains(index) ? collection[index] : nil
            },
            write: { root, newElement in
                var collection = parent.read(root)
                guard let newElement, collection.indices.contains(index) else { return false }
                if ModelReferencePath.areEqual(collection[index], newElement) == true { return true }
                collection[index] = newElement
                return parent.write(root, collection)
            })
    }

    /// A reference to the value at `member` inside this optional one: nil
    /// while this value is nil (an element out of range, an optional
    /// attribute not set), and a write then writes nothing, as does writing
    /// nil.
    public subscript<Wrapped, Member>(_ member: WritableKeyPath<Wrapped, Member>) -> ModelReference<Root, Member?>
    where Value == Wrapped? {
        let parent = self
        return ModelReference<Root, Member?>(
            model: model, path: ModelReferencePath.append(member, to: path),
            read: { parent.read($0)?[keyPath: member] },
            write: { root, newMember in
                guard let newMember, var value = parent.read(root) else { return false }
                if ModelReferencePath.areEqual(value[keyPath: member], newMember) == true { return true }
                value[keyPath: member] = newMember
                return parent.write(root, value)
            })
    }
}

/// Models belong to one isolation domain, and a reference reads and writes
/// its model: it must stay in that domain.
@available(*, unavailable)
extension ModelReference: Sendable {}

extension ModelReference: CustomStringConvertible {
    /// The path the reference follows, such as `Trip.budget.amount`; values
    /// are not printed (they may be private data).
    public var description: String { "ModelReference(\(path))" }
}

extension PersistentModel {
    /// A reference to the value at `keyPath` of this object: a stored
    /// property or a value nested in one. See `ModelReference`.
    public func reference<Value>(_ keyPath: ReferenceWritableKeyPath<Self, Value>) -> ModelReference<Self, Value> {
        ModelReference(self, keyPath)
    }
}

/// What can go wrong with a write through a `ModelReference`.
public enum ModelReferenceError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The reference goes through an array element whose index is out of
    /// range now (the array shrank since the reference was made), or through
    /// a value that is nil; nothing was written. `path` is the reference's,
    /// such as `Trip.tags[2]`.
    case elementOutOfRange(entity: String, path: String)

    /// A sentence naming the entity and the path.
    public var description: String {
        switch self {
        case .elementOutOfRange(let entity, let path):
            "cannot write \(path) of a \(entity): an element it goes through is out of range or nil"
        }
    }
}

/// Helpers shared by the reference's functions.
enum ModelReferencePath {
    /// The name of the stored property `keyPath` is, when it is one
    /// (`Trip.budget`); otherwise Swift's own description of the key path.
    static func describe<Root: PersistentModel>(_ keyPath: AnyKeyPath, of root: Root.Type) -> String {
        if let property = PropertyTable.property(of: Root.self, keyPath: keyPath) {
            return "\(Root.entityName).\(property.name)"
        }
        return String(describing: keyPath).trimmingPrefix("\\").description
    }

    /// `path` followed by `member`'s own description without its root type.
    static func append(_ member: AnyKeyPath, to path: String) -> String {
        let text = String(describing: member)
        // Swift describes `\Budget.amount` as such; keep `.amount`.
        guard let dot = text.firstIndex(of: ".") else { return path + "." + text }
        return path + text[dot...]
    }

    /// Whether two values are equal, or nil when the type is not `Equatable`
    /// (then every write is a change, as a model's setter counts it).
    static func areEqual<Value>(_ lhs: Value, _ rhs: Value) -> Bool? {
        guard let lhs = lhs as? any Equatable else { return nil }
        return lhs.isEqual(toAny: rhs)
    }
}

extension Equatable {
    /// `self == other` when `other` is of the same type; false otherwise.
    fileprivate func isEqual(toAny other: Any) -> Bool {
        guard let other = other as? Self else { return false }
        return self == other
    }
}
