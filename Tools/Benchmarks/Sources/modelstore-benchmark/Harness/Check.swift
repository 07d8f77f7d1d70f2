/// A contender did the wrong work: the benchmark's numbers for it are void.
struct CheckFailure: Error, CustomStringConvertible {
    let description: String
}

/// Throws when `actual` differs from `expected`.
func expect<T: Equatable>(_ actual: T, _ expected: T, _ what: @autoclosure () -> String) throws {
    guard actual == expected else {
        throw CheckFailure(description: "\(what()): got \(actual), expected \(expected)")
    }
}
