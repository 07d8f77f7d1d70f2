import CSQLiteBench
import Foundation

/// The rows every workload stores, and checksums to verify that a contender
/// wrote or read exactly them. Row `i` (1-based) holds:
/// number i, name "Item i", score i/4, rank i % 1000, created 1.7e9 + i s,
/// flag i % 3 == 0.
enum Dataset {
    static func number(_ i: Int) -> Int { i }
    static func name(_ i: Int) -> String { "Item \(i)" }
    static func score(_ i: Int) -> Double { Double(i) / 4 }
    static func rank(_ i: Int) -> Int { i % 1000 }
    static func created(_ i: Int) -> Double { 1_700_000_000 + Double(i) }
    static func flag(_ i: Int) -> Bool { i % 3 == 0 }

    /// Rows 1...count as an app's input: values made before a workload's
    /// timed part, as data that arrives from elsewhere, so that the timed
    /// part of every contender does only its own work with them.
    static func input(rows count: Int) -> [InputRow] {
        (0..<count).map { index in
            let i = index + 1
            return InputRow(
                number: number(i), name: name(i), score: score(i), rank: rank(i),
                created: Date(timeIntervalSince1970: created(i)), flag: flag(i))
        }
    }

    /// One row's contribution to a checksum.
    @inline(__always)
    static func checksum(number: Int, name: String, score: Double, rank: Int, created: Double, flag: Bool) -> Int {
        var sum = number &* 31
        sum = sum &+ name.utf8.count &* 5 &+ Int(name.utf8.last ?? 0)
        sum = sum &+ Int(score * 4) &* 7 &+ rank &* 13 &+ Int(created) &+ (flag ? 1 : 0)
        return sum
    }

    static func checksum(_ item: PlainItem) -> Int {
        checksum(number: item.number, name: item.name, score: item.score, rank: item.rank,
                 created: item.created.timeIntervalSince1970, flag: item.flag)
    }

    static func checksum(_ item: Item) -> Int {
        checksum(number: item.number, name: item.name, score: item.score, rank: item.rank,
                 created: item.created.timeIntervalSince1970, flag: item.flag)
    }

    static func checksum(_ item: ItemRecord) -> Int {
        checksum(number: item.number, name: item.name, score: item.score, rank: item.rank,
                 created: item.created.timeIntervalSince1970, flag: item.flag)
    }

    /// The checksum of row `i` as generated.
    static func checksum(row i: Int, rankDelta: Int = 0) -> Int {
        checksum(number: number(i), name: name(i), score: score(i), rank: rank(i) + rankDelta,
                 created: created(i), flag: flag(i))
    }

    /// The checksum of rows 1...rows as generated.
    static func checksum(rows: Int) -> Int {
        (0..<rows).reduce(0) { $0 &+ checksum(row: $1 + 1) }
    }
}

/// One row of input data (see `Dataset.input(rows:)`): plain values, no
/// object of any contender.
struct InputRow {
    let number: Int
    let name: String
    let score: Double
    let rank: Int
    let created: Date
    let flag: Bool
}
