import Foundation

// The unkeyed and single-value containers of the recording decoder
// (ShapeRecordingDecoder.swift).

/// An array of one element: the element's shape stands for all of them.
/// A decoding that reads several differently shaped elements (a tuple
/// encoded as an array) gets an element shape of `any`.
struct RecordingUnkeyedContainer: UnkeyedDecodingContainer {
    let requests: ShapeRecordingRequests
    let box: ShapeBox
    var codingPath: [any CodingKey] { [] }
    var count: Int? { nil }
    var isAtEnd: Bool { currentIndex > 0 }
    private(set) var currentIndex = 0

    init(requests: ShapeRecordingRequests, box: ShapeBox) {
        self.requests = requests
        self.box = box
    }

    mutating func decodeNil() throws -> Bool {
        box.element().markNullable()
        return false
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try record(type) }

    // The scalar overloads call `record`, which `decode` would not reach
    // without picking the overload again.
    private mutating func record<T: Decodable>(_ type: T.Type) throws -> T {
        let element = box.element()
        let (shape, placeholder) = try requests.answer(type, box: box, key: nil)
        element.recordSingle(shape)
        currentIndex += 1
        guard let placeholder else { throw ShapeRecordingRequests.noPlaceholder(type) }
        return placeholder
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { try record(type) }
    mutating func decode(_ type: String.Type) throws -> String { try record(type) }
    mutating func decode(_ type: Double.Type) throws -> Double { try record(type) }
    mutating func decode(_ type: Float.Type) throws -> Float { try record(type) }
    mutating func decode(_ type: Int.Type) throws -> Int { try record(type) }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try record(type) }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try record(type) }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try record(type) }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try record(type) }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try record(type) }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try record(type) }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try record(type) }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try record(type) }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try record(type) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        currentIndex += 1
        return try ShapeRecordingDecoder(requests: requests, box: box.element()).container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        currentIndex += 1
        return try ShapeRecordingDecoder(requests: requests, box: box.element()).unkeyedContainer()
    }

    mutating func superDecoder() throws -> any Decoder {
        currentIndex += 1
        return ShapeRecordingDecoder(requests: requests, box: box.element())
    }
}

/// A single value: its shape is the value's.
struct RecordingSingleValueContainer: SingleValueDecodingContainer {
    let requests: ShapeRecordingRequests
    let box: ShapeBox
    var codingPath: [any CodingKey] { [] }

    func decodeNil() -> Bool {
        box.markNullable()
        return false
    }

    func decode<T: Decodable>(_ type: T.Type) throws -> T { try record(type) }

    // As in the unkeyed container, the scalar overloads call `record`.
    private func record<T: Decodable>(_ type: T.Type) throws -> T {
        let (shape, placeholder) = try requests.answer(type, box: box, key: nil)
        box.recordSingle(shape)
        guard let placeholder else { throw ShapeRecordingRequests.noPlaceholder(type) }
        return placeholder
    }

    func decode(_ type: Bool.Type) throws -> Bool { try record(type) }
    func decode(_ type: String.Type) throws -> String { try record(type) }
    func decode(_ type: Double.Type) throws -> Double { try record(type) }
    func decode(_ type: Float.Type) throws -> Float { try record(type) }
    func decode(_ type: Int.Type) throws -> Int { try record(type) }
    func decode(_ type: Int8.Type) throws -> Int8 { try record(type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try record(type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try record(type) }
    func decode(_ type: Int64.Type) throws -> Int64 { try record(type) }
    func decode(_ type: UInt.Type) throws -> UInt { try record(type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try record(type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try record(type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try record(type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try record(type) }
}
