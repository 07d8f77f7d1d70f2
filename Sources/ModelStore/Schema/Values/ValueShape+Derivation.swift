import Foundation

// Deriving a Codable type's ValueShape without the app's help: the type is
// decoded from a recording `Decoder` (ShapeRecordingDecoder.swift) that
// answers every request with a placeholder and notes what was asked. The
// store decodes attributes with a default `JSONDecoder`, so the types it
// treats specially (Date as seconds since 2001, Data as base64, URL as a
// string) are given their JSON form here, not the one their own
// `init(from:)` would ask for.

extension ValueShape {
    /// The shape `type` decodes from; nil when nothing about it could be
    /// derived (its `init(from:)` rejects every placeholder), so that the
    /// record says the structure is unknown rather than guessing.
    ///
    /// Never narrower than what the type accepts: a part whose decoding
    /// throws on a placeholder, refers back to a type being derived, or
    /// still succeeds when its request fails (`try?` with a fallback) is
    /// `any`.
    package static func derived<Value: Decodable>(from type: Value.Type) -> ValueShape? {
        let shape = ShapeDerivation().derive(type).shape
        return shape == .any ? nil : shape
    }

    /// The record form of `derived(from:)`, derived once per type for the
    /// process: a model's property table, which holds it, is built again
    /// each time it is asked for.
    static func recordText<Value: Decodable>(of type: Value.Type) -> String? {
        let id = ObjectIdentifier(type)
        if let found = derivedTexts.withLock({ $0[id] }) { return found }
        let text = derived(from: type)?.recordText
        derivedTexts.withLock { _ = $0.updateValue(text, forKey: id) }
        return text
    }

    /// Invariant: one entry per Codable attribute type the process has
    /// described, its record text (nil when nothing could be derived).
    private static let derivedTexts = Locked<[ObjectIdentifier: String?]>([:])
}

/// One derivation: the types being derived (to stop at recursion) and
/// those already derived (each type's decoding runs once per request it
/// makes, see `derive`).
final class ShapeDerivation {
    private var inProgress: [ObjectIdentifier] = []
    private var derived: [ObjectIdentifier: (shape: ValueShape, placeholder: Any?)] = [:]

    /// A type nested deeper than this is `any`: a bound for generic types
    /// that nest without repeating (`Box<Box<Box<…>>>` built at run time).
    private static let depthLimit = 24

    /// The shape of `type`, and a value of it to hand to the decoding that
    /// asked (nil when there is none: the asking decoding then fails).
    func derive<Value: Decodable>(_ type: Value.Type) -> (shape: ValueShape, placeholder: Value?) {
        if let known = Self.known(type) { return known }
        let id = ObjectIdentifier(type)
        if let found = derived[id] { return (found.shape, found.placeholder as? Value) }
        if let collection = type as? any DecodableCollection.Type {
            return (.array(collection.elementShape(in: self)), collection.empty as? Value)
        }
        if let dictionary = type as? any DecodableDictionary.Type {
            return (dictionary.shape(in: self), dictionary.empty as? Value)
        }
        if let optional = type as? any DecodableOptional.Type {
            return (.optional(optional.wrappedShape(in: self)), optional.absent as? Value)
        }
        if let enumeration = type as? any (CaseIterable & Encodable).Type, let cases = Self.cases(of: enumeration) {
            return (cases.shape, cases.first as? Value)
        }
        guard !inProgress.contains(id), inProgress.count < Self.depthLimit else { return (.any, nil) }
        inProgress.append(id)
        defer { inProgress.removeLast() }
        let result = decodeRecording(type)
        derived[id] = (result.shape, result.placeholder)
        return result
    }

    /// Decodes `type` once to record its requests, then once per request
    /// with that request failing: a decoding that still succeeds does not
    /// need that part to have the recorded shape, so the part is `any`.
    private func decodeRecording<Value: Decodable>(_ type: Value.Type) -> (shape: ValueShape, placeholder: Value?) {
        let recording = ShapeRecordingRequests(derivation: self, failing: nil)
        let root = ShapeBox()
        guard let placeholder = try? Value(from: ShapeRecordingDecoder(requests: recording, box: root)) else {
            return (.any, nil)
        }
        for index in 0..<recording.locations.count {
            let probe = ShapeRecordingRequests(derivation: self, failing: index)
            if (try? Value(from: ShapeRecordingDecoder(requests: probe, box: ShapeBox()))) != nil, probe.failed {
                let (box, key) = recording.locations[index]
                box.loosen(key: key)
            }
        }
        return (root.shape, placeholder)
    }

    /// The JSON forms of a default `JSONDecoder`'s special types and of the
    /// standard scalars, with a placeholder each.
    private static func known<Value>(_ type: Value.Type) -> (shape: ValueShape, placeholder: Value?)? {
        // The standard integers and binary floating-point types (Int8…UInt64,
        // Float, Double) decode from a JSON number as themselves.
        if let integer = type as? any FixedWidthInteger.Type { return (.integer, integer.zero as? Value) }
        if let real = type as? any BinaryFloatingPoint.Type { return (.number, real.zero as? Value) }
        let known: (ValueShape, Any)? =
            switch type {
            case is Bool.Type: (.bool, false)
            case is String.Type: (.string, "")
            case is Decimal.Type: (.number, Decimal(0))
            case is Date.Type: (.number, Date(timeIntervalSinceReferenceDate: 0))
            case is Data.Type: (.string, Data())
            // A UUID's or URL's text is checked by its own decoding, which
            // the shape does not repeat: any string.
            case is UUID.Type: (.string, UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)))
            case is URL.Type: (.string, URL(filePath: "/"))
            default: nil
            }
        return known.map { ($0.0, $0.1 as? Value) }
    }

    /// An enum's cases as the JSON they encode to; nil when one does not
    /// encode, or there are none.
    private static func cases<Enumeration: CaseIterable & Encodable>(
        of type: Enumeration.Type
    ) -> (shape: ValueShape, first: Any)? {
        guard let first = type.allCases.first else { return nil }
        var values: [ExchangeJSON] = []
        for value in type.allCases {
            guard let data = try? JSONEncoder().encode(value),
                let json = try? JSONDecoder().decode(ExchangeJSON.self, from: data)
            else { return nil }
            values.append(json)
        }
        return (.oneOf(values), first)
    }
}

// The standard generic containers are recognized by type rather than
// decoded: their `init(from:)` loops over what the decoder holds, which a
// recording decoder cannot end well (a Dictionary asks for `allKeys`).

protocol DecodableCollection {
    static func elementShape(in derivation: ShapeDerivation) -> ValueShape
    static var empty: Self { get }
}

extension Array: DecodableCollection where Element: Decodable {
    static func elementShape(in derivation: ShapeDerivation) -> ValueShape { derivation.derive(Element.self).shape }
    static var empty: Self { [] }
}

extension Set: DecodableCollection where Element: Decodable {
    static func elementShape(in derivation: ShapeDerivation) -> ValueShape { derivation.derive(Element.self).shape }
    static var empty: Self { [] }
}

protocol DecodableDictionary {
    static func shape(in derivation: ShapeDerivation) -> ValueShape
    static var empty: Self { get }
}

extension Dictionary: DecodableDictionary where Key: Decodable, Value: Decodable {
    /// String keys make a JSON object; other keys an object whose keys must
    /// parse as the key type, or an array of keys and values: `any`.
    static func shape(in derivation: ShapeDerivation) -> ValueShape {
        Key.self == String.self ? .dictionary(derivation.derive(Value.self).shape) : .any
    }
    static var empty: Self { [:] }
}

protocol DecodableOptional {
    static func wrappedShape(in derivation: ShapeDerivation) -> ValueShape
    static var absent: Self { get }
}

extension Optional: DecodableOptional where Wrapped: Decodable {
    static func wrappedShape(in derivation: ShapeDerivation) -> ValueShape { derivation.derive(Wrapped.self).shape }
    static var absent: Self { nil }
}
