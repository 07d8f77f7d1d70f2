import Foundation
import ModelStore

/// A strict JSON parser from UTF-8 bytes straight to `ExchangeJSON`, for
/// import files: one pass over the bytes, no intermediate tree, no
/// `Decoder` (whose `try?` chain per value made the decoding of a record
/// cost more than all the SQL an import runs for it).
///
/// It reads what `JSONDecoder` reads into `ExchangeJSON`, the same way: an
/// integer that fits `Int64` (or a number with a fraction or exponent whose
/// value is an exact `Int64`, such as `1.0` or `1e3`) is `.int`, any other
/// number `.double`; of a key that repeats in an object the first value
/// counts. It refuses what JSON refuses (leading zeros, trailing commas,
/// control characters and lone surrogates in strings, invalid UTF-8), and
/// nesting deeper than `maximumDepth`, so that a hostile file cannot
/// exhaust the stack.
struct ExchangeJSONParser {
    /// Why the bytes are not JSON, and where (a 0-based byte offset).
    struct Failure: Error {
        let offset: Int
        let reason: String

        var description: String { "at byte \(offset + 1): \(reason)" }
    }

    /// The deepest nesting of arrays and objects read.
    static let maximumDepth = 512

    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0
    private var depth = 0

    private init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    /// The one JSON value that `bytes` hold (white space around it allowed).
    /// - Throws: `Failure` naming the first byte that does not fit.
    static func parse(_ bytes: UnsafeBufferPointer<UInt8>) throws(Failure) -> ExchangeJSON {
        var parser = ExchangeJSONParser(bytes)
        let value = try parser.value()
        parser.skipSpace()
        guard parser.index == bytes.count else { throw parser.failure("unexpected text after the value") }
        return value
    }

    /// The one JSON value that `bytes` hold.
    /// - Throws: `Failure`.
    static func parse(_ bytes: ArraySlice<UInt8>) throws(Failure) -> ExchangeJSON {
        let result: Result<ExchangeJSON, Failure> = bytes.withUnsafeBufferPointer { buffer in
            do throws(Failure) { return .success(try parse(buffer)) } catch { return .failure(error) }
        }
        return try result.get()
    }

    private func failure(_ reason: String) -> Failure { Failure(offset: index, reason: reason) }

    private var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func skipSpace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    private mutating func value() throws(Failure) -> ExchangeJSON {
        skipSpace()
        guard let byte = current else { throw failure("expected a value, found the end") }
        switch byte {
        case UInt8(ascii: "{"): return try object()
        case UInt8(ascii: "["): return try array()
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): return try literal("true", .bool(true))
        case UInt8(ascii: "f"): return try literal("false", .bool(false))
        case UInt8(ascii: "n"): return try literal("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
        default: throw failure("expected a value")
        }
    }

    private mutating func literal(_ word: StaticString, _ value: ExchangeJSON) throws(Failure) -> ExchangeJSON {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count else { throw failure("expected a value") }
        for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] {
            throw failure("expected a value")
        }
        index += count
        return value
    }

    private mutating func enter() throws(Failure) {
        depth += 1
        guard depth <= Self.maximumDepth else { throw failure("nested deeper than \(Self.maximumDepth) levels") }
    }

    private mutating func object() throws(Failure) -> ExchangeJSON {
        try enter()
        defer { depth -= 1 }
        index += 1
        var members: [String: ExchangeJSON] = [:]
        skipSpace()
        if current == UInt8(ascii: "}") {
            index += 1
            return .object(members)
        }
        while true {
            skipSpace()
            guard current == UInt8(ascii: "\"") else { throw failure("expected a member name in quotes") }
            let name = try string()
            skipSpace()
            guard current == UInt8(ascii: ":") else { throw failure("expected ':' after a member name") }
            index += 1
            let member = try value()
            if members[name] == nil { members[name] = member }
            skipSpace()
            switch current {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "}"):
                index += 1
                return .object(members)
            default: throw failure("expected ',' or '}' in an object")
            }
        }
    }

    private mutating func array() throws(Failure) -> ExchangeJSON {
        try enter()
        defer { depth -= 1 }
        index += 1
        var items: [ExchangeJSON] = []
        skipSpace()
        if current == UInt8(ascii: "]") {
            index += 1
            return .array(items)
        }
        while true {
            items.append(try value())
            skipSpace()
            switch current {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "]"):
                index += 1
                return .array(items)
            default: throw failure("expected ',' or ']' in an array")
            }
        }
    }

    private mutating func number() throws(Failure) -> ExchangeJSON {
        let start = index
        if current == UInt8(ascii: "-") { index += 1 }
        guard let first = current, isDigit(first) else { throw failure("expected a digit") }
        index += 1
        if first == UInt8(ascii: "0"), let next = current, isDigit(next) { throw failure("a number cannot start with 0") }
        skipDigits()
        var isInteger = true
        if current == UInt8(ascii: ".") {
            isInteger = false
            index += 1
            guard let digit = current, isDigit(digit) else { throw failure("expected a digit after '.'") }
            skipDigits()
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            isInteger = false
            index += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
            guard let digit = current, isDigit(digit) else { throw failure("expected a digit in the exponent") }
            skipDigits()
        }
        let text = UnsafeBufferPointer(rebasing: bytes[start..<index])
        if isInteger, let integer = Self.integer(text) { return .int(integer) }
        guard let double = Double(String(decoding: text, as: UTF8.self)) else {
            throw Failure(offset: start, reason: "not a number")
        }
        if let exact = Int64(exactly: double) { return .int(exact) }
        return .double(double)
    }

    /// The integer that ASCII digits (after an optional '-') spell, or nil
    /// past `Int64`'s range.
    private static func integer(_ text: UnsafeBufferPointer<UInt8>) -> Int64? {
        let isNegative = text.first == UInt8(ascii: "-")
        var result: Int64 = 0
        for byte in text.dropFirst(isNegative ? 1 : 0) {
            let digit = Int64(byte - UInt8(ascii: "0"))
            let (shifted, overflowA) = result.multipliedReportingOverflow(by: 10)
            let (next, overflowB) = isNegative ? shifted.subtractingReportingOverflow(digit) : shifted.addingReportingOverflow(digit)
            if overflowA || overflowB { return nil }
            result = next
        }
        return result
    }

    private func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    private mutating func skipDigits() {
        while let byte = current, isDigit(byte) { index += 1 }
    }

    /// A string literal at `index` (at its opening quote).
    private mutating func string() throws(Failure) -> String {
        index += 1
        let start = index
        // The common case: no escapes, so the bytes are the string's.
        var isASCII = true
        while let byte = current, byte != UInt8(ascii: "\""), byte != UInt8(ascii: "\\") {
            guard byte >= 0x20 else { throw failure("a control character in a string must be escaped") }
            if byte >= 0x80 { isASCII = false }
            index += 1
        }
        guard let stop = current else { throw failure("a string is not closed") }
        if stop == UInt8(ascii: "\"") {
            let text = UnsafeBufferPointer(rebasing: bytes[start..<index])
            // ASCII is valid UTF-8: no need to validate it.
            if isASCII {
                index += 1
                return String(decoding: text, as: UTF8.self)
            }
            guard let string = String(validating: text, as: UTF8.self) else {
                throw Failure(offset: start, reason: "a string is not valid UTF-8")
            }
            index += 1
            return string
        }
        var decoded = Array(bytes[start..<index])
        while true {
            guard let byte = current else { throw failure("a string is not closed") }
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                guard let string = String(validating: decoded, as: UTF8.self) else {
                    throw Failure(offset: start, reason: "a string is not valid UTF-8")
                }
                return string
            case UInt8(ascii: "\\"): try escape(into: &decoded)
            case ..<0x20:
                index -= 1
                throw failure("a control character in a string must be escaped")
            default: decoded.append(byte)
            }
        }
    }

    /// One escape sequence after its backslash, appended as UTF-8.
    private mutating func escape(into decoded: inout [UInt8]) throws(Failure) {
        guard let byte = current else { throw failure("a string is not closed") }
        index += 1
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): decoded.append(byte)
        case UInt8(ascii: "b"): decoded.append(0x08)
        case UInt8(ascii: "f"): decoded.append(0x0C)
        case UInt8(ascii: "n"): decoded.append(0x0A)
        case UInt8(ascii: "r"): decoded.append(0x0D)
        case UInt8(ascii: "t"): decoded.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = try hexQuad()
            if (0xD800..<0xDC00).contains(scalar) {
                // A high surrogate must be followed by an escaped low one.
                guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                    throw failure("a lone surrogate in a string")
                }
                index += 2
                let low = try hexQuad()
                guard (0xDC00..<0xE000).contains(low) else { throw failure("a lone surrogate in a string") }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            }
            guard let unicode = Unicode.Scalar(scalar) else { throw failure("a lone surrogate in a string") }
            decoded.append(contentsOf: String(Character(unicode)).utf8)
        default:
            index -= 1
            throw failure("an unknown escape in a string")
        }
    }

    private mutating func hexQuad() throws(Failure) -> UInt32 {
        guard index + 4 <= bytes.count else { throw failure("expected four hex digits after \\u") }
        var result: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw failure("expected four hex digits after \\u")
            }
            result = result << 4 | UInt32(digit)
            index += 1
        }
        return result
    }
}

extension DynamicExportFile.Record {
    /// A record from its JSON: an object with a string `key` and optional
    /// `attributes` and `relationships` objects (null for none); other
    /// members are ignored, as the export's decoder ignores them.
    /// - Throws: `ImportLineFailure` saying which member does not fit.
    init(json: ExchangeJSON) throws(ImportLineFailure) {
        guard case .object(let members) = json else { throw ImportLineFailure(reason: "the line is \(json.summary)") }
        guard let keyValue = members["key"] else { throw ImportLineFailure(reason: "no member 'key'") }
        guard case .string(let key) = keyValue else { throw ImportLineFailure(reason: "at .key: expected a string") }
        self.init(key: key)
        attributes = try Self.members(members["attributes"], "attributes")
        relationships = try Self.members(members["relationships"], "relationships")
    }

    private static func members(_ value: ExchangeJSON?, _ name: String) throws(ImportLineFailure) -> [String: ExchangeJSON]? {
        switch value {
        case nil, .null?: return nil
        case .object(let members)?: return members
        case let other?: throw ImportLineFailure(reason: "at .\(name): expected an object, found \(other.summary)")
        }
    }
}
