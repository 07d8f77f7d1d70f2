import Foundation
import Testing
@testable import ModelStore

/// `jsonKeys` writes the digits itself; SQLite's `json_each` must read back
/// exactly the keys it was given.
@Suite struct JSONKeysTests {
    @Test func keysRoundTripThroughJSON() throws {
        let keys: [Int64] = [0, 1, 9, 10, 99, 100, 12_345, -1, -10, Int64.max, Int64.min]
        let text = jsonKeys(keys)
        #expect(text == "[" + keys.map(String.init).joined(separator: ",") + "]")
        let decoded = try JSONDecoder().decode([Int64].self, from: Data(text.utf8))
        #expect(decoded == keys)
        #expect(jsonKeys([Int64]()) == "[]")
    }
}
