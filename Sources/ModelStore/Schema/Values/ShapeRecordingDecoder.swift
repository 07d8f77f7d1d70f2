import Foundation

// The recording `Decoder` of ValueShape+Derivation.swift: it holds no data.
// Every value request is answered with the requested type's placeholder and
// noted in a `ShapeBox` (the shape of the value being decoded); `contains`,
// `decodeNil` and `decodeIfPresent` note the key or value as optional.

/// What one decoding of a type has asked, in order, and which request (if
/// any) is made to fail in this decoding.
final class ShapeRecordingRequests {
    let derivation: ShapeDerivation
    let failing: Int?
    /// Where each request's answer was noted: a box, and the key within it
    /// (nil for a single value or an array's element).
    private(set) var locations: [(box: ShapeBox, key: String?)] = []
    /// True once the failing request was made.
    private(set) var failed = false

    init(derivation: ShapeDerivation, failing: Int?) {
        self.derivation = derivation
        self.failing = failing
    }

    /// Notes a request and answers it: the shape and a placeholder of
    /// `type`.
    /// - Throws: `DecodingError` when this is the failing request, or when
    ///   the type has no placeholder.
    func answer<Value: Decodable>(_ type: Value.Type, box: ShapeBox, key: String?) throws -> (ValueShape, Value?) {
        defer { locations.append((box, key)) }
        if locations.count == failing {
            failed = true
            throw DecodingError.typeMismatch(type, .init(codingPath: [], debugDescription: "probing"))
        }
        return derivation.derive(type)
    }

    /// The error for a request whose type has no placeholder (a type being
    /// derived, or one whose decoding rejects placeholders): the decoding
    /// that asked fails, and its value is `any`.
    static func noPlaceholder(_ type: Any.Type) -> DecodingError {
        DecodingError.valueNotFound(type, .init(codingPath: [], debugDescription: "no placeholder"))
    }
}

/// The shape of one value as its decoding reveals it.
final class ShapeBox {
    private enum Recorded {
        case nothing
        case single(ValueShape)
        case object([String: ShapeBox], optionalKeys: Set<String>)
        case array(element: ShapeBox?)
        /// The decoding asked for two kinds of container: its form is not
        /// one shape.
        case mixed
    }

    private var recorded = Recorded.nothing
    private var isNullable = false

    /// The shape noted so far.
    var shape: ValueShape {
        let shape: ValueShape =
            switch recorded {
            case .nothing, .mixed: .any
            case .single(let shape): shape
            case .object(let fields, let optionalKeys): .object(Self.fieldShapes(fields, optionalKeys: optionalKeys))
            case .array(let element): .array(element?.shape ?? .any)
            }
        return isNullable && shape != .any ? .optional(shape) : shape
    }

    /// An optional key's shape is optional, unless it is `any` already.
    private static func fieldShapes(_ fields: [String: ShapeBox], optionalKeys: Set<String>) -> [String: ValueShape] {
        var shapes: [String: ValueShape] = [:]
        for (key, box) in fields {
            let shape = box.shape
            shapes[key] = optionalKeys.contains(key) && shape != .any ? .optional(shape) : shape
        }
        return shapes
    }

    func markNullable() { isNullable = true }

    func recordSingle(_ shape: ValueShape) {
        switch recorded {
        case .nothing: recorded = .single(shape)
        case .single(let existing) where existing == shape: break
        default: recorded = .mixed
        }
    }

    func beginObject() {
        switch recorded {
        case .nothing: recorded = .object([:], optionalKeys: [])
        case .object: break
        default: recorded = .mixed
        }
    }

    /// The box of an object's key, made on first use.
    func field(_ key: String) -> ShapeBox {
        guard case .object(var fields, let optionalKeys) = recorded else { return ShapeBox() }
        if let box = fields[key] { return box }
        let box = ShapeBox()
        fields[key] = box
        recorded = .object(fields, optionalKeys: optionalKeys)
        return box
    }

    func markOptional(_ key: String) {
        guard case .object(let fields, var optionalKeys) = recorded else { return }
        optionalKeys.insert(key)
        recorded = .object(fields, optionalKeys: optionalKeys)
    }

    func beginArray() {
        switch recorded {
        case .nothing: recorded = .array(element: nil)
        case .array: break
        default: recorded = .mixed
        }
    }

    /// The box of an array's elements: one for all of them.
    func element() -> ShapeBox {
        guard case .array(let element) = recorded else { return ShapeBox() }
        if let element { return element }
        let box = ShapeBox()
        recorded = .array(element: box)
        return box
    }

    /// Makes the part at `key` (or this value, for nil) accept any JSON.
    func loosen(key: String?) {
        if let key {
            field(key).recorded = .mixed
        } else if case .array(let element?) = recorded {
            element.recorded = .mixed
        } else {
            recorded = .mixed
        }
    }
}

struct ShapeRecordingDecoder: Decoder {
    let requests: ShapeRecordingRequests
    let box: ShapeBox
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        box.beginObject()
        return KeyedDecodingContainer(RecordingKeyedContainer<Key>(requests: requests, box: box))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        box.beginArray()
        return RecordingUnkeyedContainer(requests: requests, box: box)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        RecordingSingleValueContainer(requests: requests, box: box)
    }
}

/// Every key is present (so that the decoding asks for its value) and
/// none is listed in `allKeys`: a decoding that needs to list them (an
/// enum with associated values) fails, and its value is `any`.
private struct RecordingKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let requests: ShapeRecordingRequests
    let box: ShapeBox
    var codingPath: [any CodingKey] { [] }
    var allKeys: [Key] { [] }

    func contains(_ key: Key) -> Bool {
        box.markOptional(key.stringValue)
        return true
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        box.markOptional(key.stringValue)
        return false
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try record(type, forKey: key) }

    // The one implementation of `decode` for every type: the overloads for
    // the standard scalars call it, not `decode`, which would pick them again.
    private func record<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        let field = box.field(key.stringValue)
        let (shape, placeholder) = try requests.answer(type, box: box, key: key.stringValue)
        field.recordSingle(shape)
        guard let placeholder else { throw ShapeRecordingRequests.noPlaceholder(type) }
        return placeholder
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        box.markOptional(key.stringValue)
        let field = box.field(key.stringValue)
        let (shape, placeholder) = try requests.answer(type, box: box, key: key.stringValue)
        field.recordSingle(shape)
        return placeholder
    }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type, forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> {
        try ShapeRecordingDecoder(requests: requests, box: box.field(key.stringValue)).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try ShapeRecordingDecoder(requests: requests, box: box.field(key.stringValue)).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
        ShapeRecordingDecoder(requests: requests, box: box.field("super"))
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        ShapeRecordingDecoder(requests: requests, box: box.field(key.stringValue))
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try record(type, forKey: key) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try record(type, forKey: key) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try record(type, forKey: key) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try record(type, forKey: key) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try record(type, forKey: key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try record(type, forKey: key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try record(type, forKey: key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try record(type, forKey: key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try record(type, forKey: key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try record(type, forKey: key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try record(type, forKey: key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try record(type, forKey: key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try record(type, forKey: key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try record(type, forKey: key) }
}
