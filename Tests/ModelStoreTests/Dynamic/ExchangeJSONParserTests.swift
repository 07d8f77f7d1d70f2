import Foundation
import Testing
@testable import ModelStore
@testable import ModelStoreDynamic

/// The import files' JSON parser reads what `JSONDecoder` read into
/// `ExchangeJSON`, and refuses what JSON refuses.
@Suite("Dynamic layer: the import's JSON parser")
struct ExchangeJSONParserTests {
    func parse(_ text: String) -> ExchangeJSON? { try? ExchangeJSONParser.parse(Array(text.utf8)[...]) }

    func parse(bytes: [UInt8]) -> ExchangeJSON? { try? ExchangeJSONParser.parse(bytes[...]) }

    @Test("numbers: an exact Int64 is an int (1.0 and 1e3 too), any other number a double")
    func numbers() {
        #expect(parse("12") == .int(12))
        #expect(parse("-9223372036854775808") == .int(.min))
        #expect(parse("9223372036854775807") == .int(.max))
        #expect(parse("9223372036854775808") == .double(9_223_372_036_854_775_808))
        #expect(parse("1.0") == .int(1))
        #expect(parse("1e3") == .int(1000))
        #expect(parse("1.5") == .double(1.5))
        #expect(parse("-2.5E-3") == .double(-0.0025))
        for bad in ["01", "1.", ".5", "-", "1e", "+1", "0x10", "NaN"] { #expect(parse(bad) == nil, "\(bad)") }
    }

    @Test("strings: escapes and surrogate pairs decoded; control characters, lone surrogates and invalid UTF-8 refused")
    func strings() {
        #expect(parse(#""a\"b\\c\/d\n\t\u00e9\ud83d\ude00""#) == .string("a\"b\\c/d\n\té😀"))
        #expect(parse("\"é 京都\"") == .string("é 京都"))
        #expect(parse("\"a\u{1}b\"") == nil)
        #expect(parse(#""\ud800""#) == nil)
        #expect(parse(#""\ude00x""#) == nil)
        #expect(parse(#""\x""#) == nil)
        #expect(parse(bytes: [0x22, 0xC3, 0x28, 0x22]) == nil)
        #expect(parse(bytes: [0x22, 0x61, 0x5C, 0x6E, 0xFF, 0x22]) == nil, "invalid UTF-8 after an escape")
        #expect(parse("\"open") == nil)
    }

    @Test("objects and arrays: the first of repeated keys counts; trailing commas, text after the value and deep nesting refused")
    func structure() {
        #expect(parse(#" {"a": [1, true, null, {"b": "c"}], "a": 2} "#) == .object(["a": .array([.int(1), .bool(true), .null, .object(["b": .string("c")])])]))
        #expect(parse("[]") == .array([]))
        #expect(parse("{}") == .object([:]))
        for bad in ["[1,]", #"{"a":1,}"#, "{a:1}", "[1] 2", "", "tru", "nul", #"{"a" 1}"#] { #expect(parse(bad) == nil, "\(bad)") }
        let deep = String(repeating: "[", count: ExchangeJSONParser.maximumDepth) + String(repeating: "]", count: ExchangeJSONParser.maximumDepth)
        #expect(parse(deep) != nil)
        #expect(parse("[" + deep + "]") == nil)
    }

    @Test("a failure names the byte where the JSON stops being JSON")
    func failureOffset() throws {
        do {
            _ = try ExchangeJSONParser.parse(Array(#"{"key": tru}"#.utf8)[...])
            Issue.record("parsed")
        } catch {
            #expect(error.description == "at byte 9: expected a value")
        }
    }
}
