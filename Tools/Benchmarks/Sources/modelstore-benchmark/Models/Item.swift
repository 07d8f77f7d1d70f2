import Foundation
import ModelStore

/// The benchmark's entity: six attributes (Int, String, Double, Int, Date,
/// Bool). Its table is what every contender reads and writes:
/// `"Item" ("_pk" INTEGER PRIMARY KEY AUTOINCREMENT, "number" INTEGER, "name"
/// TEXT, "score" ANY, "rank" INTEGER, "created" REAL, "flag" INTEGER) STRICT`.
@Model final class Item {
    var number: Int
    var name: String
    var score: Double
    var rank: Int
    var created: Date
    var flag: Bool

    init(number: Int, name: String, score: Double, rank: Int, created: Date, flag: Bool) {
        self.number = number
        self.name = name
        self.score = score
        self.rank = rank
        self.created = created
        self.flag = flag
    }
}

/// What the raw C and GRDB Statement contenders fill: a plain Swift object with
/// the same six properties (and the row's key, to write it back).
final class PlainItem {
    var id: Int64
    var number: Int
    var name: String
    var score: Double
    var rank: Int
    var created: Date
    var flag: Bool

    init(id: Int64, number: Int, name: String, score: Double, rank: Int, created: Date, flag: Bool) {
        self.id = id
        self.number = number
        self.name = name
        self.score = score
        self.rank = rank
        self.created = created
        self.flag = flag
    }
}
