import Foundation
import Testing
@testable import ModelStore

/// `jsonKeys` writes the digits itself; SQLite's `json_each` must read back
/// exactly the keys it was given.
@Suite struct JSONKeysTests {
    @Test func keysRoundTripThroughJSON() throws {
        // Every digit count, at both of its ends, and either sign.
        var powers: [Int64] = [1]
        while let next = powers.last.map({ $0.multipliedReportingOverflow(by: 10) }), !next.overflow {
            powers.append(next.partialValue)
        }
        let edges = powers.flatMap { [$0 - 1, $0, $0 + 1, -$0, -($0 - 1)] }
        let keys: [Int64] = [0, 1, 9, 10, 99, 100, 12_345, -1, -10, Int64.max, Int64.min] + edges
        let text = jsonKeys(keys)
        #expect(text == "[" + keys.map(String.init).joined(separator: ",") + "]")
        let decoded = try JSONDecoder().decode([Int64].self, from: Data(text.utf8))
        #expect(decoded == keys)
        #expect(jsonKeys([Int64]()) == "[]")
    }
}
