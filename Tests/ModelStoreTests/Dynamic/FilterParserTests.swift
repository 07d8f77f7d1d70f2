import Testing
@testable import ModelStore
@testable import ModelStoreDynamic

@Suite("Filter language: parsing")
struct FilterParserTests {
    @Test("precedence: not binds tighter than and, and tighter than or")
    func precedence() throws {
        let node = try FilterParser.parse(#"not a == 1 or b > 2 and c"#)
        let expected = FilterNode.or(
            .not(.comparison(.path(["a"], column: 5), .equal, .literal(.integer("1"), column: 10), column: 7)),
            .and(
                .comparison(.path(["b"], column: 15), .greater, .literal(.integer("2"), column: 19), column: 17),
                .truth(.path(["c"], column: 25))))
        #expect(node == expected)
    }

    @Test("parentheses, paths, lists, keywords in any case, && and ||")
    func forms() throws {
        let node = try FilterParser.parse(#"(trip.name == "Paris" || x) AND status In ["a", 'b'] && notes == NIL"#)
        guard case .and(.and(.or(let comparison, _), .isIn(_, let items, _)), .comparison(_, .equal, .literal(.null, _), _)) = node else {
            Issue.record("unexpected tree \(node)")
            return
        }
        #expect(comparison == .comparison(.path(["trip", "name"], column: 2), .equal, .literal(.string("Paris"), column: 15), column: 12))
        #expect(items == [.literal(.string("a"), column: 44), .literal(.string("b"), column: 49)])
    }

    @Test("numbers: integers, reals, exponents, negatives")
    func numbers() throws {
        #expect(try FilterParser.parse("a > -3") == .comparison(.path(["a"], column: 1), .greater, .literal(.integer("-3"), column: 5), column: 3))
        #expect(try FilterParser.parse("a < 2.5e3") == .comparison(.path(["a"], column: 1), .less, .literal(.real("2.5e3"), column: 5), column: 3))
    }

    @Test("string escapes")
    func escapes() throws {
        let node = try FilterParser.parse(#"a == "q\"\\\n\t\0\u{E9}'""#)
        #expect(node == .comparison(.path(["a"], column: 1), .equal, .literal(.string("q\"\\\n\t\0é'"), column: 6), column: 3))
    }

    @Test("a string may start with a combining mark, which joins the opening quote into one Character")
    func combiningMarks() throws {
        #expect(try FilterParser.parse("a == \"\u{301}x\"") == .comparison(.path(["a"], column: 1), .equal, .literal(.string("\u{301}x"), column: 6), column: 3))
        #expect(try FilterParser.parse("a == '\u{301}'") == .comparison(.path(["a"], column: 1), .equal, .literal(.string("\u{301}"), column: 6), column: 3))
        #expect(try FilterParser.parse("a == \"x\\\"\u{301}\"") == .comparison(.path(["a"], column: 1), .equal, .literal(.string("x\"\u{301}"), column: 6), column: 3))
        #expect(throws: DynamicStoreError.invalidFilter(column: 8, reason: "a combining mark follows the closing \"; write it as \\u{…} inside the string")) {
            try FilterParser.parse("a == \"x\"\u{301}")
        }
    }

    @Test("errors name the column of the problem", arguments: [
        (#"a == "x" and ("#, 15), (#"a = 1"#, 3), (#"a == "open"#, 6), ("a > 3x", 6), ("a ~ 1", 3), ("", 1),
        ("a in 1", 6), ("a == 1 )", 8), ("a.", 3), (#"a == "\q""#, 7), ("(a == 1", 8), ("1 2", 3), ("a in [b]", 7),
    ])
    func errors(filter: String, column: Int) throws {
        #expect {
            _ = try FilterParser.parse(filter)
        } throws: { error in
            guard case DynamicStoreError.invalidFilter(let found, _) = error else { return false }
            return found == column
        }
    }
}
