import Foundation

/// Random inputs for store-tool's languages: filters over the test models'
/// Trip, `name=value` edits, `Entity:ID` names, numbers for numeric options,
/// and mutated JSONL records. About half are valid or nearly so (they reach
/// the resolver and the compiler), the rest garbage (they test the lexer
/// and the parser's errors).
extension FuzzRandom {
    static let tripPaths = [
        "name", "destination", "startDate", "budget", "tags", "status", "notes", "nights", "stops", "travelers", "stops.title",
        "stops.count", "travelers.count", "travelers.name", "stops.trip.name", "stops.trip.stops", "id", "stops.id", "nope",
        "name.first", "stops.nope", "budget.amount", "Name", "trip", "_pk",
    ]
    static let keywords = ["and", "or", "not", "in", "contains", "icontains", "startswith", "true", "false", "nil", "null", "AND", "Not", "NULL"]
    static let symbols = ["==", "!=", "<", "<=", ">", ">=", "&&", "||", "!", "(", ")", "[", "]", ",", ".", "-", "=", "~", "===", "=>"]

    /// A literal: numbers at and past every limit, strings with escapes good
    /// and bad, dates, keys, enum cases.
    mutating func literal() -> String {
        switch int(0...13) {
        case 0: return String(int(-5...5))
        case 1: return pick(["9223372036854775807", "9223372036854775808", "-9223372036854775808", "99999999999999999999", "0", "-0"])
        case 2: return pick(["1e999", "-1e999", "1.5e-400", "3.14", "0.0", "1e", "1.e5", "2.5E+3", ".5", "1..2", "0x10", "1_000"])
        case 3: return "\"" + text(12).replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
        case 4: return "'" + text(8) + "'"
        case 5: return pick([#""\u{E9}""#, #""\u{110000}""#, #""\u{D800}""#, #""\u{}""#, #""\q""#, #""\"#, #""unterminated"#, #""\u{1F600}""#])
        case 6: return pick(["true", "false", "nil", "null", "TRUE"])
        case 7: return pick([#""2025-01-01""#, #""2025-13-45""#, #""2025-06-10T09:30:00Z""#, #""yesterday""#, #""0000-01-01""#])
        case 8: return pick([#""Trip:1""#, #""Stop:2""#, #""Trip:0""#, #""Trip:-1""#, #""Trip:99999999999999999999""#, #""Nope:1""#, #"":1""#])
        case 9: return pick([#""planned""#, #""booked""#, #""done""#, #""cancelled""#, #""""#])
        case 10: return pick([#""[]""#, #""[\"x\"]""#, #""{\"amount\":1}""#, #""not json""#])
        case 11: return "-" + pick(["1", "2.5", "x", ""])
        default: return String(int(0...100_000))
        }
    }

    /// A string literal holding any text, escaped as the language wants.
    mutating func stringLiteral() -> String {
        "\"" + text(10).replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }

    /// One condition: most of them typed right for the property (so they
    /// reach the compiler and SQLite), the rest anything.
    mutating func condition() -> String {
        guard chance(typedConditions) else { return anyCondition() }
        let comparison = pick(["==", "!=", "<", "<=", ">", ">="])
        let string = pick(["name", "destination", "notes", "stops.title", "travelers.name", "stops.trip.name", "stops.trip.destination"])
        let integer = pick(["nights", "stops.count", "travelers.count", "id", "stops.id", "stops.trip.nights"])
        switch int(0...11) {
        case 0: return "\(string) \(comparison) \(stringLiteral())"
        case 1: return "\(string) \(pick(["contains", "icontains", "startswith"])) \(stringLiteral())"
        case 2: return "\(string) \(pick(["in", "not in"])) [\((0..<int(0...5)).map { _ in stringLiteral() }.joined(separator: ", "))]"
        case 3: return "\(integer) \(comparison) \(pick(["-", ""]))\(int(0...9_999_999))"
        case 4: return "\(integer) \(pick(["in", "not in"])) [\((0..<int(0...5)).map { _ in String(int(-3...20)) }.joined(separator: ","))]"
        case 5: return "startDate \(comparison) \"" + String(format: "%04d-%02d-%02d", int(1900...2100), int(1...12), int(1...28)) + "\""
        case 6: return "status \(pick(["==", "!="])) \(pick(["\"planned\"", "\"booked\"", "\"done\""]))"
        case 7: return "tags contains \(stringLiteral())"
        case 8: return pick(["stops", "travelers", "stops.trip", "budget == nil", "budget != nil", "notes == nil", "stops.trip != nil"])
        case 9: return "stops contains \"Stop:\(int(1...5))\""
        // Two properties of one scope (a to-many's member is a scope of its own).
        case 10: return pick(["name", "notes"]) + " \(comparison) " + pick(["destination", "stops.trip.name", "name"])
        default: return pick(["nights \(comparison) id", "stops.title \(comparison) stops.trip.name", "id \(comparison) stops.count"])
        }
    }

    /// Any condition: a random path, operator and literal.
    mutating func anyCondition() -> String {
        let path = pick(Self.tripPaths)
        switch int(0...7) {
        case 0, 1: return "\(path) \(pick(["==", "!=", "<", "<=", ">", ">="])) \(literal())"
        case 2: return "\(literal()) \(pick(["==", "<", ">="])) \(path)"
        case 3: return "\(path) \(pick(["==", "!=", "<"])) \(pick(Self.tripPaths))"
        case 4: return "\(path) \(pick(["contains", "icontains", "startswith", "CONTAINS"])) \(literal())"
        case 5: return "\(path) \(pick(["in", "not in", "IN"])) [\((0..<int(0...4)).map { _ in literal() }.joined(separator: pick([",", ", ", " "])))]"
        case 6: return path
        default: return "\(literal()) \(pick(["==", "contains"])) \(literal())"
        }
    }

    /// A filter: conditions joined and nested at random, sometimes past
    /// the language's limits (more than 12 levels, more than 500 conditions).
    mutating func filter() -> String {
        // Half the filters are typed right throughout, to reach SQLite.
        typedConditions = chance(0.5) ? 1 : 0.85
        var budget = chance(0.05) ? int(400...700) : int(1...30)
        return filter(depth: chance(0.1) ? int(8...16) : int(0...5), budget: &budget)
    }

    private mutating func filter(depth: Int, budget: inout Int) -> String {
        guard depth > 0, budget > 1 else {
            budget -= 1
            return condition()
        }
        switch int(0...5) {
        case 0: return pick(["not ", "!", "NOT ", "! "]) + filter(depth: depth - 1, budget: &budget)
        case 1: return "(" + filter(depth: depth - 1, budget: &budget) + ")"
        default:
            var parts = [filter(depth: depth - 1, budget: &budget)]
            let joiner = pick([" and ", " or ", " && ", " || ", " AND ", " Or "])
            for _ in 0..<int(1...max(1, min(budget, 600))) where budget > 0 {
                parts.append(filter(depth: int(0...depth - 1), budget: &budget))
            }
            return parts.joined(separator: joiner)
        }
    }

    /// Garbage: random tokens, characters and fragments of filters, deep
    /// parentheses, truncated or spliced valid filters.
    mutating func garbageFilter() -> String {
        switch int(0...5) {
        case 0:
            return (0..<int(0...40)).map { _ in
                pick([pick(Self.tripPaths), pick(Self.keywords), pick(Self.symbols), literal(), text(3)])
            }.joined(separator: pick([" ", "", "  "]))
        case 1: return text(60)
        case 2:
            let count = int(1...3000)
            return String(repeating: pick(["(", "not ", "!", "!(", "(not "]), count: count) + condition()
                + String(repeating: ")", count: int(0...count))
        case 3:
            let valid = filter()
            return String(valid.prefix(int(0...valid.count)))
        case 4:
            var valid = Array(filter())
            for _ in 0..<int(1...4) where !valid.isEmpty {
                valid.insert(pick(FuzzRandom.awkward), at: int(0...valid.count - 1))
            }
            return String(valid)
        default:
            return condition() + " " + pick(Self.symbols + Self.keywords) + " " + condition()
        }
    }

    /// Text for a value of `kind`: valid, at the edges, or wrong.
    mutating func value(for kind: String) -> String {
        let common = ["", " ", "nil", "null", "NaN", "inf", "-inf", "1e400", text(10), String(repeating: "9", count: int(1...60))]
        let specific: [String]
        switch kind {
        case "bool": specific = ["true", "false", "TRUE", "1", "0", "yes"]
        case "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64":
            specific = [
                "0", "-1", "127", "128", "-129", "255", "256", "32767", "65536", "2147483648", "4294967296",
                "9223372036854775807", "9223372036854775808", "18446744073709551615", "18446744073709551616", "1.0", "1e3", "+5", " 5",
                "0x10", "٣",
            ]
        case "double", "float": specific = ["0", "-0.0", "3.14", "1e308", "1e309", "3.4e38", "3.5e38", "1e-400", "nan", "infinity", ".5", "5."]
        case "date":
            specific = ["2025-05-14", "2025-05-14T09:30:00Z", "2025-05-14T11:30:00.250+02:00", "2025-02-30", "9999-12-31", "0001-01-01", "2025-05-14T25:00", "1749513600"]
        case "uuid": specific = [UUID().uuidString, "6F9619FF-8B86-D011-B42D-00C04FC964FF", "not-a-uuid", "6F9619FF8B86D011B42D00C04FC964FF"]
        case "url": specific = ["https://example.com", "file:///tmp/x", "http://[::1", "relative/path", "mailto:a@b"]
        case "data": specific = ["", "AAEC", "AAE", "====", "!!!!", "SGVsbG8="]
        case "decimal": specific = ["0", "3.14", "-1e-30", "1e400", "12345678901234567890.123456789", "1,5", "0.1e1"]
        case "status": specific = ["planned", "booked", "done", "Planned", "cancelled"]
        default:
            let deep = int(1...5000)
            specific = [
                #"{"amount":1,"currency":"EUR"}"#, #"{"amount":"x"}"#, "[]", #"["a","b"]"#, "{", "[1,2", "null",
                String(repeating: "[", count: deep) + String(repeating: "]", count: deep), String(repeating: "{\"a\":", count: deep) + "1" + String(repeating: "}", count: deep),
            ]
        }
        return chance(0.7) ? pick(specific) : pick(common)
    }

    /// An `Entity:ID` name, valid or not.
    mutating func identifier(entities: [String]) -> String {
        switch int(0...5) {
        case 0: return "\(pick(entities)):\(int(1...5))"
        case 1: return "\(pick(entities)):\(pick(["0", "-1", "+1", "01", "9223372036854775807", "9223372036854775808", "1.5", "", " 1", "1 ", "١"]))"
        case 2: return "\(pick(entities + ["trip", "Nope", "", ":", "Trip:Trip"])):\(int(1...3))"
        case 3: return "\(pick(entities))::\(int(1...3))"
        case 4: return text(16)
        default: return "\(text(4)):\(int(0...9))"
        }
    }

    /// A number for a numeric option, in range or not.
    mutating func number() -> String {
        pick([
            "0", "1", "5", "0.5", "100", "101", "86400", "86401", "-1", "-0", "inf", "-inf", "nan", "1e300", "9223372036854775807",
            "9223372036854775808", "99999999999999999999", "1.5", "", " ", "abc", "0x10", "1e2", "+3", "١", String(int(0...200)),
        ])
    }

    /// `line` with a few random changes: characters dropped, inserted or
    /// replaced, a value's type changed, the line cut short or nested deep.
    mutating func mutated(_ line: String) -> String {
        var characters = Array(line)
        switch int(0...6) {
        case 0: return String(characters.prefix(int(0...characters.count)))
        case 1:
            for _ in 0..<int(1...5) where !characters.isEmpty { characters.remove(at: int(0...characters.count - 1)) }
        case 2:
            for _ in 0..<int(1...5) { characters.insert(pick(FuzzRandom.awkward), at: int(0...characters.count)) }
        case 3:
            for _ in 0..<int(1...3) where !characters.isEmpty { characters[int(0...characters.count - 1)] = pick(FuzzRandom.awkward) }
        case 4:
            let swaps = [
                ("\"Stop:", "\"Trip:"), ("\"Trip:", "\"Stop:"), (":\"", ":1"), ("\":[", "\":{"), ("null", "[]"), ("true", "\"true\""),
                ("\"key\"", "\"kee\""), ("\"attributes\"", "\"attrs\""), (":3", ":3.5"), (":3", ":99999999999999999999"),
            ]
            let (from, to) = pick(swaps)
            return line.replacingOccurrences(of: from, with: to)
        case 5:
            let deep = int(10...3000)
            return line.replacingOccurrences(of: "null", with: String(repeating: "[", count: deep) + String(repeating: "]", count: deep))
        default:
            return pick(["", "{}", "[]", "null", "{\"key\":\"Stop:1\"}", text(40), line + line])
        }
        return String(characters)
    }
}
