import Foundation
import Testing
@testable import ModelStore
@testable import ModelStoreDynamic

/// The filter language's limits, in process: every pass over a filter is
/// recursive, so its nesting, its conditions and its list values are bounded.
@Suite("Filter language: nesting, condition and list limits")
struct FilterLimitTests {
    /// The depth of a parsed filter's tree.
    func depth(_ node: FilterNode) -> Int {
        switch node {
        case .and(let lhs, let rhs), .or(let lhs, let rhs): 1 + max(depth(lhs), depth(rhs))
        case .not(let inner): 1 + depth(inner)
        default: 1
        }
    }

    /// The message of the invalidFilter error `text` throws.
    func reason(_ text: String) -> String? {
        do {
            _ = try FilterParser.parse(text)
            return nil
        } catch {
            guard case .invalidFilter(_, let reason) = error else { return nil }
            return reason
        }
    }

    @Test("chains of and and or become balanced trees, in order")
    func balancedChains() throws {
        let conditions = (1...500).map { "a == \($0)" }
        for joiner in [" and ", " or ", " && ", " || "] {
            let node = try FilterParser.parse(conditions.joined(separator: joiner))
            #expect(depth(node) == 10)
        }
        let three = try FilterParser.parse("a == 1 and b == 2 and c == 3")
        guard case .and(.and(.comparison(.path(["a"], _), _, _, _), .comparison(.path(["b"], _), _, _, _)), .comparison(.path(["c"], _), _, _, _)) = three
        else {
            Issue.record("unexpected tree \(three)")
            return
        }
    }

    @Test("past the limits: a clear invalidFilter naming the limit, at the column where it is passed")
    func limits() throws {
        #expect(reason(Array(repeating: "a == 1", count: 501).joined(separator: " and ")) == "the filter has more than 500 conditions; split it, or use 'in [...]'")
        #expect(reason(Array(repeating: "a == 1", count: 500).joined(separator: " or ")) == nil)
        let tooDeep = "the filter nests deeper than 12 levels of parentheses and 'not'"
        #expect(reason(String(repeating: "not ", count: 13) + "a") == tooDeep)
        #expect(reason(String(repeating: "not ", count: 12) + "a") == nil)
        #expect(reason(String(repeating: "(", count: 13) + "a" + String(repeating: ")", count: 13)) == tooDeep)
        #expect(reason(String(repeating: "(", count: 1_000_000)) == tooDeep)
        #expect(reason(String(repeating: "!(", count: 6) + "a" + String(repeating: ")", count: 6)) == nil)
        #expect(reason("a in [" + Array(repeating: "1", count: 10_001).joined(separator: ",") + "]") == "the filter's lists hold more than 10000 values")
        #expect(reason("a in [" + Array(repeating: "1", count: 5_000).joined(separator: ",") + "] or b in [" + Array(repeating: "1", count: 5_001).joined(separator: ",") + "]") != nil)
        do {
            _ = try FilterParser.parse("a == 1 or " + String(repeating: "(", count: 13) + "b")
        } catch {
            #expect(error == .invalidFilter(column: 23, reason: tooDeep))
        }
    }

    @Test("a filter SQLite still finds too complex is an invalidFilter, not a failure of the store")
    func tooComplexForSQLite() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file().path(percentEncoded: false)
        _ = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(url: URL(filePath: path)))
        let store = try DynamicStore(path: path)
        #expect(throws: DynamicStoreError.self) {
            _ = try store.prepareFiltered("SELECT " + String(repeating: "NOT ", count: 500) + "1", filter: "x")
        }
        // Without a filter, or for another error, SQLite's error stands.
        #expect(throws: SQLiteError.self) {
            _ = try store.prepareFiltered("SELECT " + String(repeating: "NOT ", count: 500) + "1", filter: nil)
        }
        #expect(throws: SQLiteError.self) { _ = try store.prepareFiltered("SELECT * FROM Missing", filter: "x") }
    }
}
